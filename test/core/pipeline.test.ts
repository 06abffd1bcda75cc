/**
 * runRepairPipeline, behaviour by behaviour (fast path, envelope,
 * preprocessing, engine, diagnostics, callbacks), through the real pipeline.
 */
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { runRepairPipeline } from "../../src/core/pipeline.ts";
import type { Preprocessor, RepairObservation, RepairPipelineResult } from "../../src/core/types.ts";
import { check } from "../../src/core/validator.ts";
import { BUILTIN_SCHEMAS } from "../support/builtin-schemas.ts";
import { builtin, custom, deepFreeze, facade, ruleIds } from "../support/pipeline-helpers.ts";

const pathSchema = Type.Object({ path: Type.String() });

describe("fast path, identity and purity", () => {
	it("returns a strictly valid object by reference with no changes", () => {
		const input = { path: "/etc/hosts" };
		const result = builtin("read", input);
		expect(result.outcome).toBe("valid");
		expect(result.changes).toEqual([]);
		expect(result.args).toBe(input);
		expect(result.issueSummary).toBeUndefined();
		expect(result.fingerprint).toBeUndefined();
		expect(result.retryMessage).toBeUndefined();
	});

	it("leaves input that only native conversion would fix valid and unconverted", () => {
		const input = { path: "/a", limit: "7" };
		const result = builtin("read", input);
		expect(result.outcome).toBe("valid");
		expect(result.args).toBe(input);
		expect(input.limit).toBe("7");
	});

	it("converts the same field once anything else was repaired", () => {
		const result = builtin("read", { file_path: "/a", limit: "7" });
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "/a", limit: 7 });
	});

	it("never parses JSON-looking text in a content field", () => {
		const input = { path: "/a.json", content: '["x","y"]' };
		const result = builtin("write", input);
		expect(result.outcome).toBe("valid");
		expect(result.args).toBe(input);
	});

	it("leaves a markdown link inside a non-path field alone", () => {
		const input = { path: "/a.md", content: "see [notes.md](http://notes.md)" };
		const result = builtin("write", input);
		expect(result.outcome).toBe("valid");
		expect(result.args).toBe(input);
	});

	it("takes the full run for an auto-linked engine path field that no preprocessor guards", () => {
		const schema = Type.Object({ path: Type.String() });
		const result = custom(schema, { path: "[a.md](http://a.md)" }, { legacyConfig: { pathFields: ["path"] } });
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "a.md" });
	});

	it("is deterministic, never mutates its input, and is idempotent on repaired args", () => {
		const input = deepFreeze({ file_path: "/a", offset: null, limit: "3" });
		const snapshot = structuredClone(input);
		const first = builtin("read", input);
		const second = builtin("read", input);
		expect(second).toEqual(first);
		expect(input).toEqual(snapshot);
		expect(first.outcome).toBe("repaired");
		const again = builtin("read", first.args);
		expect(again.outcome).toBe("valid");
		expect(again.args).toBe(first.args);
	});
});

describe("owner shim: a change the owner shim makes is recorded like any repair", () => {
	it("keeps the caller's reference when the shim returns a new but equal object", () => {
		const input = { path: "/a" };
		const result = custom(pathSchema, input, { ownerPrepareArguments: (value) => ({ ...(value as object) }) });
		expect(result.outcome).toBe("valid");
		expect(result.args).toBe(input);
		expect(result.changes).toEqual([]);
	});

	it("gives the shim a private copy and records its in-place change", () => {
		const input = { path: "/a" };
		const result = custom(pathSchema, input, {
			ownerPrepareArguments: (value) => {
				(value as { path: string }).path = "/b";
				return value;
			},
		});
		expect(input.path).toBe("/a");
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "/b" });
		expect(result.changes).toEqual([
			{ ruleId: "owner-shim.prepare-arguments", stage: "owner-shim", note: expect.stringContaining("custom") },
		]);
	});

	it("records a shim that turns a bare string into an object", () => {
		const result = custom(pathSchema, "/srv", { ownerPrepareArguments: (value) => ({ path: value }) });
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "/srv" });
		expect(ruleIds(result)).toEqual(["owner-shim.prepare-arguments"]);
	});

	it("ignores a shim that throws", () => {
		const input = { path: "/x" };
		const result = custom(pathSchema, input, {
			ownerPrepareArguments: () => {
				throw new Error("boom");
			},
		});
		expect(result.outcome).toBe("valid");
		expect(result.args).toBe(input);
	});

	it("converts owner-changed input, since the shim's change counts as a repair", () => {
		const result = custom(
			pathSchema,
			{ path: 5 },
			{ ownerPrepareArguments: (value) => ({ ...(value as object), extra: true }) },
		);
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "5", extra: true });
	});
});

describe("envelope through the pipeline", () => {
	it("decodes a doubly encoded object, reporting the two identical decodes once with a count, with the tool-specific note", () => {
		const text = JSON.stringify(JSON.stringify({ path: "/x" }));
		const result = builtin("read", text);
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "/x" });
		expect(ruleIds(result)).toEqual(["envelope.decode-json"]);
		expect(result.changes[0]!.note).toContain("read");
		expect(result.changes[0]!.note).toContain("2 times");
		const legacy = facade("read", text);
		expect(legacy.rulesFired).toEqual(["parseJsonStringifiedRootObject"]);
		expect(legacy.changes).toHaveLength(1);
		expect(legacy.notes).toHaveLength(1);
	});

	it("refuses a four-times-encoded object instead of wrapping it as a path", () => {
		let text = JSON.stringify({ path: "/x" });
		for (let i = 0; i < 3; i++) text = JSON.stringify(text);
		const result = builtin("read", text);
		expect(result.outcome).toBe("unrepairable");
		expect(result.args).toBe(text);
	});

	it("unwraps a singleton object array, also from text", () => {
		const direct = custom(pathSchema, [{ path: "/x" }]);
		expect(direct.outcome).toBe("repaired");
		expect(direct.args).toEqual({ path: "/x" });
		expect(ruleIds(direct)).toEqual(["envelope.unwrap-singleton-object-array"]);
		const text = custom(pathSchema, '[{"path":"/x"}]');
		expect(ruleIds(text)).toEqual(["envelope.decode-json", "envelope.unwrap-singleton-object-array"]);
	});

	it("fails closed on an empty array, a two-element array and a number, keeping the reference", () => {
		for (const input of [[], [{ path: "/a" }, { path: "/b" }], 42]) {
			const result = custom(pathSchema, input);
			expect(result.outcome).toBe("unrepairable");
			expect(result.args).toBe(input);
			expect(result.changes).toEqual([]);
		}
	});

	it("does not unwrap a string singleton or a nested array", () => {
		for (const input of [["x"], [[{ a: 1 }]]]) {
			const result = custom(Type.Unknown(), input);
			expect(result.outcome).toBe("valid");
			expect(result.args).toBe(input);
		}
	});

	it("escapes a raw line feed inside a JSON string and records it after the decode", () => {
		const result = custom(pathSchema, '{"path":"a\nb"}');
		expect(result.args).toEqual({ path: "a\nb" });
		expect(ruleIds(result)).toEqual(["envelope.decode-json", "envelope.escape-control-character"]);
	});

	it("records no escape change when only the inner layer needed escaping", () => {
		const inner = '{"path":"a\nb"}';
		const result = custom(pathSchema, JSON.stringify(inner));
		expect(result.args).toEqual({ path: "a\nb" });
		expect(ruleIds(result)).toEqual(["envelope.decode-json"]);
	});

	it("completes a truncated object under adaptive only, and only when the schema accepts it", () => {
		const adaptive = custom(pathSchema, '{"path":"/tmp/a"');
		expect(adaptive.outcome).toBe("repaired");
		expect(adaptive.args).toEqual({ path: "/tmp/a" });
		expect(ruleIds(adaptive)).toEqual(["envelope.complete-truncated-object"]);
		expect(custom(pathSchema, '{"path":"/tmp/a"', { policy: "conservative" }).outcome).toBe("unrepairable");
		expect(custom(pathSchema, '{"wrong":true').outcome).toBe("unrepairable");
	});

	it("refuses to close an open string or wrap broken JSON as a command: either would run a guess", () => {
		for (const policy of ["conservative", "adaptive"] as const) {
			const result = builtin("bash", '{"command":"ls', { policy });
			expect(result.outcome).toBe("unrepairable");
			expect(result.args).toBe('{"command":"ls');
		}
		expect(builtin("bash", '{"command":"rm -rf /tmp/scra').outcome).toBe("unrepairable");
	});

	it("never completes an open array, even after a complete value", () => {
		const schema = Type.Object({ include: Type.Array(Type.String()) });
		const result = custom(schema, '{"include":["a"');
		expect(result.outcome).toBe("unrepairable");
		expect(result.args).toBe('{"include":["a"');
	});

	it("escapes control characters in a completion candidate", () => {
		const result = custom(pathSchema, '{"path":"a\nb"');
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "a\nb" });
	});

	it("lets the engine parse a root object when the envelope is over its size limit", () => {
		const result = custom(pathSchema, '{"path":"/x"}', { limits: { maxInputBytes: 4 } });
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "/x" });
		expect(ruleIds(result)).toEqual(["parseJsonStringifiedRootObject"]);
		expect(result.changes[0]?.stage).toBe("schema-repair");
	});

	it("keeps an own __proto__ key as data and pollutes nothing", () => {
		const result = custom(pathSchema, '{"path":"/x","__proto__":{"polluted":true}}');
		expect(result.outcome).toBe("repaired");
		const args = result.args as Record<string, unknown>;
		expect(Object.hasOwn(args, "__proto__")).toBe(true);
		expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});

	it("keeps the original text when JSON decodes to a non-object", () => {
		const bash = builtin("bash", '"hi"');
		expect(bash.outcome).toBe("repaired");
		expect(bash.args).toEqual({ command: '"hi"' });
		const nullText = custom(pathSchema, "null");
		expect(nullText.outcome).toBe("unrepairable");
		expect(nullText.retryMessage?.endsWith('Received: "null"')).toBe(true);
	});

	it("decodes the envelope regardless of the schema", () => {
		expect(custom(Type.String(), '{"a":1}').outcome).toBe("unrepairable");
		const unknown = custom(Type.Unknown(), '{"a":1}');
		expect(unknown.outcome).toBe("repaired");
		expect(unknown.args).toEqual({ a: 1 });
	});

	it("never wraps an unwrapped singleton back into an array", () => {
		const schema = Type.Array(Type.Object({ a: Type.Number() }));
		const input = [{ a: 1 }];
		const result = custom(schema, input);
		expect(result.outcome).toBe("unrepairable");
		expect(result.args).toBe(input);
	});

	it("converts a decoded number to its exact text for a string field, on the record, with no issue summary", () => {
		const result = custom(pathSchema, '{"path":4164}');
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "4164" });
		expect(ruleIds(result)).toEqual(["envelope.decode-json", "convertScalarToSchemaType"]);
		expect(result.issueSummary).toBeUndefined();
		expect(result.fingerprint).toBeUndefined();
	});
});

describe("preprocessing through the pipeline", () => {
	const optionalPath = Type.Object({ path: Type.Optional(Type.String()) });
	const alias = (selector: `/${string}`, aliases: string[], extra: Partial<Preprocessor> = {}): Preprocessor =>
		({ kind: "alias", selector, aliases, ...extra }) as Preprocessor;

	it("runs an exact alias before the fast path even when the schema would accept the extra key", () => {
		const result = custom(optionalPath, { directory: "/tmp" }, { preprocessors: [alias("/path", ["directory"])] });
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "/tmp" });
	});

	it("treats an empty canonical as missing only when configured", () => {
		const schema = Type.Object({ path: Type.String(), content: Type.String() });
		const result = custom(
			schema,
			{ path: "", file_path: "/x", content: "", body: "replacement" },
			{
				preprocessors: [alias("/path", ["file_path"], { emptyEquivalentToMissing: true }), alias("/content", ["body"])],
			},
		);
		expect(result.args).toEqual({ path: "/x", content: "", body: "replacement" });
	});

	it("ignores an unrecognized preprocessor kind next to an alias", () => {
		const result = custom(
			optionalPath,
			{ directory: "/tmp" },
			{
				preprocessors: [
					{ kind: "mystery", selector: "/path" } as unknown as Preprocessor,
					alias("/path", ["directory"]),
				],
			},
		);
		expect(result.outcome).toBe("repaired");
		expect(ruleIds(result)).toEqual(["preprocess.exact-alias"]);
		expect(check(optionalPath, result.args)).toBe(true);
	});

	it("renames inside every array element with a wildcard and touches nothing unconfigured", () => {
		const schema = Type.Object({
			files: Type.Array(Type.Object({ oldText: Type.String() })),
			content: Type.Optional(Type.String()),
		});
		const result = custom(
			schema,
			{ files: [{ old_string: "a" }, { old_string: "b" }], paht: "/x", content: '{"a":1}' },
			{ preprocessors: [alias("/files/*/oldText", ["old_string"])] },
		);
		expect(result.args).toEqual({ files: [{ oldText: "a" }, { oldText: "b" }], paht: "/x", content: '{"a":1}' });
		expect(ruleIds(result)).toEqual(["preprocess.exact-alias"]);
	});

	it("moves only the first alias present and skips empty or guarded ones", () => {
		const preprocessors = [alias("/path", ["a", "b", "c"], { accepts: "string" })];
		expect(custom(optionalPath, { a: "1", b: "2" }, { preprocessors }).args).toEqual({ b: "2", path: "1" });
		expect(custom(optionalPath, { a: "", b: "2" }, { preprocessors }).args).toEqual({ a: "", path: "2" });
		expect(custom(optionalPath, { a: 5, c: "3" }, { preprocessors }).args).toEqual({ a: 5, path: "3" });
	});

	it("does not let a null canonical block the alias", () => {
		const result = custom(
			optionalPath,
			{ path: null, file_path: "/x" },
			{ preprocessors: [alias("/path", ["file_path"])] },
		);
		expect(result.args).toEqual({ path: "/x" });
		expect(ruleIds(result)).toEqual(["preprocess.exact-alias"]);
	});

	it("does nothing at a non-record or missing parent, or for a numeric segment", () => {
		const schema = Type.Object({ cfg: Type.Optional(Type.Unknown()), files: Type.Optional(Type.Unknown()) });
		const input = { cfg: [1], files: [{ a: "x" }] };
		const result = custom(schema, input, {
			preprocessors: [alias("/cfg/x", ["y"]), alias("/missing/x", ["y"]), alias("/files/0/b", ["a"])],
		});
		expect(result.outcome).toBe("valid");
		expect(result.args).toBe(input);
	});

	it("decodes pointer escapes in selectors", () => {
		const schema = Type.Object({ "a/b": Type.String() });
		const result = custom(schema, { ab: "v" }, { preprocessors: [alias("/a~1b", ["ab"])] });
		expect(result.args).toEqual({ "a/b": "v" });
	});

	it("converts scalars only in the configured mode", () => {
		const schema = Type.Object({ n: Type.Unknown(), s: Type.Unknown(), b: Type.Unknown() });
		const result = custom(
			schema,
			{ n: "5", s: 5, b: "TRUE" },
			{
				preprocessors: [
					{ kind: "scalar", selector: "/n", scalarType: "number" },
					{ kind: "scalar", selector: "/s", scalarType: "string" },
					{ kind: "scalar", selector: "/b", scalarType: "boolean" },
				],
			},
		);
		expect(result.args).toEqual({ n: 5, s: "5", b: true });
		expect(ruleIds(result)).toEqual(["preprocess.scalar", "preprocess.scalar", "preprocess.scalar"]);
		const untouched = { n: "Infinity", s: null, b: "yes" };
		expect(
			custom(schema, untouched, {
				preprocessors: [
					{ kind: "scalar", selector: "/n", scalarType: "number" },
					{ kind: "scalar", selector: "/s", scalarType: "string" },
					{ kind: "scalar", selector: "/b", scalarType: "boolean" },
				],
			}).args,
		).toBe(untouched);
	});

	it("turns a root string into a one-element array with string-or-array at the root", () => {
		const result = custom(Type.Array(Type.String()), "a", {
			preprocessors: [{ kind: "string-or-array", selector: "" }],
		});
		expect(result.args).toEqual(["a"]);
		expect(result.changes[0]?.note).toContain("/");
	});

	it("unwraps only degenerate links among path array items", () => {
		const schema = Type.Object({ files: Type.Array(Type.String()) });
		const result = custom(
			schema,
			{ files: ["[a.md](http://a.md)", "[b](https://c)"] },
			{ preprocessors: [{ kind: "filesystem-path", selector: "/files/*" }] },
		);
		expect(result.args).toEqual({ files: ["a.md", "[b](https://c)"] });
	});

	it("never changes anything with the glob kind", () => {
		const input = { path: "^*.ts$" };
		expect(custom(pathSchema, input, { preprocessors: [{ kind: "glob", selector: "/path" }] }).args).toBe(input);
	});

	it("gates heuristic kinds by model and records one observation under conservative", () => {
		const preprocessors: Preprocessor[] = [
			{ kind: "anchor-bleed", selector: "/path", modelFamilies: [/glm/i] },
			{ kind: "anchor-bleed", selector: "/other", modelFamilies: [/glm/i] },
		];
		const input = { path: "^/x$", other: "^y$" };
		expect(custom(pathSchema, input, { preprocessors }).args).toBe(input);
		const seen: RepairObservation[] = [];
		const result = custom(pathSchema, input, {
			preprocessors,
			modelId: "glm-4.6",
			policy: "conservative",
			onObservation: (observation) => seen.push(observation),
		});
		expect(result.outcome).toBe("valid");
		expect(result.args).toBe(input);
		const expected = {
			channel: "tool",
			stage: "valid-value",
			ruleId: "stripAnchorBleed",
			toolName: "custom",
			outcome: "detected",
		};
		expect(result.observations).toEqual([expected]);
		expect(seen).toEqual([expected]);
	});

	it("strips anchors at the edges only", () => {
		const preprocessors: Preprocessor[] = [{ kind: "anchor-bleed", selector: "/path", modelFamilies: [/glm/i] }];
		expect(custom(pathSchema, { path: "^^x$$" }, { preprocessors, modelId: "glm-4.6" }).args).toEqual({ path: "x" });
		const inner = { path: "a^b$c" };
		expect(custom(pathSchema, inner, { preprocessors, modelId: "glm-4.6" }).args).toBe(inner);
	});

	it("strips leaked grammar tokens from keys and values", () => {
		const result = custom(
			Type.Object({ a: Type.String() }),
			{ "<arg_key>a</arg_key>": "<arg_value>v</arg_value>", b: "<arg_key><arg_value>x", c: 5 },
			{ preprocessors: [{ kind: "grammar-tokens", selector: "", modelFamilies: [/glm/i] }], modelId: "glm-4.6" },
		);
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ a: "v", b: "<arg_value>x", c: 5 });
		expect(ruleIds(result)).toEqual(["stripGrammarTokenLeak"]);
	});

	it("unwraps a markdown-link path even under conservative", () => {
		const result = builtin("read", { path: "[a.md](http://a.md)" }, { policy: "conservative" });
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "a.md" });
		expect(ruleIds(result)).toEqual(["preprocess.filesystem-path"]);
	});
});

describe("schema-repair engine through the pipeline", () => {
	it("renames an alias in the facade and names it in the note", () => {
		const result = facade("read", { file_path: "/tmp/a.txt" });
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "/tmp/a.txt" });
		expect(result.rulesFired).toEqual(["renameAliasedField"]);
		expect(result.notes[0]).toContain("file_path");
		expect(ruleIds(builtin("read", { file_path: "/tmp/a.txt" }))).toEqual(["preprocess.exact-alias"]);
	});

	it("drops a null optional, and a null required field ends unrepairable", () => {
		const optional = builtin("read", { path: "/a", offset: null });
		expect(optional.args).toEqual({ path: "/a" });
		expect(ruleIds(optional)).toEqual(["dropNullOrUndefinedField"]);
		expect(optional.changes[0]?.note).toContain("null");
		const required = builtin("read", { path: null });
		expect(required.outcome).toBe("unrepairable");
		expect(required.retryMessage).toContain("  • /path: `path` must be a string, not null;");
	});

	it("drops an empty object standing in for an optional array, nothing else", () => {
		const schema = Type.Object({ path: Type.String(), tags: Type.Optional(Type.Array(Type.String())) });
		const dropped = custom(schema, { path: "/a", tags: {} });
		expect(dropped.args).toEqual({ path: "/a" });
		expect(ruleIds(dropped)).toEqual(["dropEmptyObjectPlaceholder"]);
		expect(custom(schema, { path: "/a", tags: { a: 1 } }).outcome).toBe("unrepairable");
		const requiredArray = Type.Object({ tags: Type.Array(Type.String()) });
		expect(custom(requiredArray, { tags: {} }).outcome).toBe("unrepairable");
	});

	it("parses array text before wrapping and never wraps a list literal", () => {
		const schema = Type.Object({ include: Type.Array(Type.String()) });
		const parsed = custom(schema, { include: '["a","b"]' });
		expect(parsed.args).toEqual({ include: ["a", "b"] });
		expect(ruleIds(parsed)).toEqual(["parseJsonStringifiedArray"]);
		const wrapped = custom(schema, { include: "foo" });
		expect(wrapped.args).toEqual({ include: ["foo"] });
		expect(ruleIds(wrapped)).toEqual(["wrapBareStringAsArray"]);
		for (const literal of ['["a",', "['a', 'b']", " [1, 2"]) {
			const input = { include: literal };
			const result = custom(schema, input);
			expect(result.outcome).toBe("unrepairable");
			expect(result.args).toBe(input);
		}
	});

	it("converts parsed number items to their text for a string array", () => {
		const schema = Type.Object({ include: Type.Array(Type.String()) });
		expect(custom(schema, { include: "[1,2]" }).args).toEqual({ include: ["1", "2"] });
	});

	it("parses object text for object fields and array elements, never malformed text", () => {
		const schema = Type.Object({ opts: Type.Object({ deep: Type.Boolean() }) });
		const parsed = custom(schema, { opts: '{"deep":true}' });
		expect(parsed.args).toEqual({ opts: { deep: true } });
		expect(ruleIds(parsed)).toEqual(["parseJsonStringifiedObject"]);
		expect(custom(schema, { opts: '{"a":1' }).outcome).toBe("unrepairable");
		const list = Type.Object({ items: Type.Array(Type.Object({ a: Type.Number() })) });
		const element = custom(list, { items: ['{"a":1}'] });
		expect(element.args).toEqual({ items: [{ a: 1 }] });
		expect(element.changes[0]?.note).toContain('"0"');
	});

	it("fires several rules in one pass and keeps valid fields", () => {
		const result = facade("read", { file_path: "/a", offset: null, limit: 5 });
		expect(result.args).toEqual({ path: "/a", limit: 5 });
		expect(result.rulesFired).toEqual(["renameAliasedField", "dropNullOrUndefinedField"]);
	});

	it("iterates: a parsed array then gets its aliases renamed", () => {
		const input = { path: "/a.txt", edits: '[{"old_text":"foo","new_text":"bar"}]' };
		const legacy = facade("edit", input);
		expect(legacy.args).toEqual({ path: "/a.txt", edits: [{ oldText: "foo", newText: "bar" }] });
		expect(legacy.rulesFired).toEqual(["parseJsonStringifiedArray", "renameAliasedField"]);
		expect(facade("edit", { path: "/a.txt", edits: '[{"oldText":"foo","newText":"bar"}]' }).rulesFired).toEqual([
			"parseJsonStringifiedArray",
		]);
		expect(ruleIds(builtin("edit", input))).toEqual([
			"parseJsonStringifiedArray",
			"renameAliasedField",
			"renameAliasedField",
		]);
	});

	it("needs two passes for an array of stringified objects", () => {
		const input = { path: "/a", edits: JSON.stringify([JSON.stringify({ oldText: "a", newText: "b" })]) };
		const result = facade("edit", input);
		expect(result.outcome).toBe("repaired");
		expect(result.rulesFired).toEqual(["parseJsonStringifiedArray", "parseJsonStringifiedObject"]);
	});

	it("renames aliases in every element of a parsed array", () => {
		const edits = JSON.stringify([
			{ old_text: "a", new_text: "b" },
			{ search: "c", replace: "d" },
		]);
		const result = facade("edit", { path: "/a", edits });
		expect(result.args).toEqual({
			path: "/a",
			edits: [
				{ oldText: "a", newText: "b" },
				{ oldText: "c", newText: "d" },
			],
		});
	});

	it("never uses a null alias value", () => {
		expect(facade("edit", { path: "/a", edits: '[{"old_text":null,"new_text":"b"}]' }).outcome).toBe("unrepairable");
	});

	it("stops after a pass that fires nothing", () => {
		const result = facade("edit", { path: "/a", edits: [{ bogus: 42 }] });
		expect(result.outcome).toBe("unrepairable");
		expect(result.rulesFired).toEqual([]);
	});

	it("caps repair at three passes and never turns the rest into zeros", () => {
		const properties: Record<string, ReturnType<typeof Type.Optional<ReturnType<typeof Type.Number>>>> = {};
		const input: Record<string, null> = {};
		for (let i = 0; i < 30; i++) {
			properties[`f${i}`] = Type.Optional(Type.Number());
			input[`f${i}`] = null;
		}
		const result = custom(Type.Object(properties), input);
		expect(result.outcome).toBe("unrepairable");
		expect(result.args).toBe(input);
		expect(result.changes).toEqual([]);
	});

	it("never drops a null array element nor converts it", () => {
		const input = { items: [null] };
		const result = custom(Type.Object({ items: Type.Array(Type.String()) }), input);
		expect(result.outcome).toBe("unrepairable");
		expect(result.args).toBe(input);
	});
});

describe("unrepairable results and diagnostics", () => {
	it("keeps the reference and reports a required-field fingerprint", () => {
		const input = { nothing: "useful" };
		const result = builtin("read", input);
		expect(result.outcome).toBe("unrepairable");
		expect(result.args).toBe(input);
		expect(result.changes).toEqual([]);
		expect(result.issueSummary).toBe("(root)|required|path");
		expect(result.fingerprint).toBe("c888829a");
	});

	it("names the tool and never turns null content into text", () => {
		const result = builtin("write", { path: "/a.txt", content: null });
		expect(result.outcome).toBe("unrepairable");
		const lines = result.retryMessage?.split("\n") ?? [];
		expect(lines[0]).toContain("write");
		expect(lines[0]?.endsWith(":")).toBe(true);
		expect(lines.at(-1)).toBe('Received: {"path":"/a.txt","content":null}');
		expect(JSON.stringify(result)).not.toContain('"content":"null"');
	});

	it("fingerprints the failure shape, not the values", () => {
		expect(builtin("read", { x: 1 }).fingerprint).toBe(builtin("read", { x: 2 }).fingerprint);
	});

	it("lists at most eight issues and cuts Received at 300 characters", () => {
		const properties: Record<string, ReturnType<typeof Type.Number>> = {};
		const input: Record<string, string> = {};
		for (let i = 0; i < 20; i++) {
			properties[`field${i}`] = Type.Number();
			input[`field${i}`] = "x".repeat(20);
		}
		const message = custom(Type.Object(properties), input).retryMessage ?? "";
		expect(message.split("\n").filter((line) => line.startsWith("  • "))).toHaveLength(8);
		const received = message.split("\n").at(-1) ?? "";
		expect(received.length).toBe("Received: ".length + 301);
		expect(received.endsWith("…")).toBe(true);
	});

	it("shows the post-envelope value in Received", () => {
		const result = custom(pathSchema, '{"wrong":1}');
		expect(result.retryMessage?.endsWith('Received: {"wrong":1}')).toBe(true);
	});

	it("claims no changes and returns the original input even after earlier stages changed it", () => {
		const input = '{"file_path":5,"path":null}';
		const result = builtin("edit", input);
		expect(result.outcome).toBe("unrepairable");
		expect(result.changes).toEqual([]);
		expect(result.args).toBe(input);
	});

	it("fails closed on undefined with Received: undefined", () => {
		const result = custom(pathSchema, undefined);
		expect(result.outcome).toBe("unrepairable");
		expect(result.args).toBeUndefined();
		expect(result.retryMessage?.endsWith("Received: undefined")).toBe(true);
	});
});

describe("callbacks", () => {
	it("calls onOutcome exactly once with the returned result, after the observations", () => {
		const calls: RepairPipelineResult[] = [];
		const result = custom(pathSchema, '{"path":"/x"}', { onOutcome: (outcome) => calls.push(outcome) });
		expect(calls).toHaveLength(1);
		expect(calls[0]).toBe(result);
		expect(result.outcome).toBe("repaired");

		const order: string[] = [];
		custom(
			pathSchema,
			{ path: "^/x$" },
			{
				preprocessors: [{ kind: "anchor-bleed", selector: "/path", modelFamilies: [/glm/i] }],
				modelId: "glm-4.6",
				policy: "conservative",
				onObservation: () => order.push("observation"),
				onOutcome: () => order.push("outcome"),
			},
		);
		expect(order).toEqual(["observation", "outcome"]);
	});

	it("swallows exceptions thrown by either callback without changing the verdict", () => {
		const input = { path: "^/x$" };
		const result = runRepairPipeline({
			input,
			config: {
				toolName: "custom",
				schema: pathSchema,
				preprocessors: [{ kind: "anchor-bleed", selector: "/path", modelFamilies: [/glm/i] }],
				modelId: "glm-4.6",
				policy: "conservative",
				onObservation: () => {
					throw new Error("observer");
				},
				onOutcome: () => {
					throw new Error("outcome");
				},
			},
		});
		expect(result.outcome).toBe("valid");
		expect(result.args).toBe(input);
	});
});

describe("input outside the JSON domain", () => {
	it("fails closed instead of throwing on cycles and functions", () => {
		const cyclic: Record<string, unknown> = { file_path: "/a" };
		cyclic.self = cyclic;
		const withFunction = { file_path: "/a", run: () => 1 };
		for (const input of [cyclic, withFunction, "x".repeat(3) as unknown]) {
			expect(() => builtin("read", input, { ownerPrepareArguments: (value) => value })).not.toThrow();
		}
		const result = builtin("read", cyclic);
		expect(result.outcome).toBe("unrepairable");
		expect(result.args).toBe(cyclic);
		expect(result.retryMessage).toContain("read");
	});
});

describe("a contained internal error is reported and listed in the result, never silent", () => {
	it("lists the pipeline boundary for input outside the JSON domain, and reports it once", () => {
		const withFunction = { file_path: "/a", run: () => 1 };
		const reported: string[] = [];
		const result = builtin("read", withFunction, { onContainedError: (label) => reported.push(label) });
		expect(result.outcome).toBe("unrepairable");
		expect(result.containedErrors).toEqual(reported);
		expect(reported).toContain("pipeline");
	});

	it("lists a throwing owner shim; the call is judged as it came", () => {
		const result = builtin(
			"read",
			{ file_path: "/a" },
			{
				ownerPrepareArguments: () => {
					throw new Error("owner bug");
				},
			},
		);
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "/a" });
		expect(result.containedErrors).toEqual(["owner-shim"]);
	});

	it("lists a throwing structural repair of the engine; the other repairs still run", () => {
		const schema = Type.Object({ path: Type.String() });
		const result = custom(
			schema,
			{ file_path: "/a" },
			{
				legacyConfig: {
					fieldAliases: { path: ["file_path"] },
					structural: [
						{
							name: "ownerStructural",
							apply: () => {
								throw new Error("owner bug");
							},
						},
					],
				},
			},
		);
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "/a" });
		expect(result.containedErrors).toEqual(["structural-repair"]);
	});

	it("has no list when nothing was contained", () => {
		expect(Object.hasOwn(builtin("read", { path: "/a" }), "containedErrors")).toBe(false);
		expect(Object.hasOwn(builtin("read", { file_path: "/a" }), "containedErrors")).toBe(false);
	});
});

describe("result shape", () => {
	it("reports the resolved policy name, adaptive by default", () => {
		expect(custom(pathSchema, { path: "/a" }).policy).toBe("adaptive");
		expect(custom(pathSchema, { path: "/a" }, { policy: "recover" }).policy).toBe("recover");
	});

	it("gives every repaired change a rule ID, a stage and a note, and a fresh object", () => {
		const input = { file_path: "/a", offset: null };
		const result = builtin("read", input);
		expect(result.args).not.toBe(input);
		for (const change of result.changes) {
			expect(change.ruleId).not.toBe("");
			expect(change.note).not.toBe("");
			expect(["envelope", "owner-shim", "preprocess", "schema-repair"]).toContain(change.stage);
		}
		expect(check(BUILTIN_SCHEMAS.read, result.args)).toBe(true);
	});

	it("shares no containers with the caller's input in a repaired result", () => {
		const nested = { oldText: "a", newText: "b" };
		const input = { file_path: "/a", edits: [nested] };
		const result = builtin("edit", input);
		const edits = (result.args as { edits: unknown[] }).edits;
		expect(edits).not.toBe(input.edits);
		expect(edits[0]).not.toBe(nested);
		expect(edits[0]).toEqual(nested);
	});
});
