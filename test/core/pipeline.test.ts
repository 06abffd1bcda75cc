/**
 * runRepairPipeline, behaviour by behaviour, up to preprocessing: the fast
 * path, the owner shim, the envelope and preprocessing, through the real
 * pipeline. `pipeline-outcomes.test.ts` continues from the engine on.
 */
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import type { Preprocessor, RepairObservation } from "../../src/core/types.ts";
import { check } from "../../src/core/validator.ts";
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
		const result = custom(schema, { path: "[a.md](http://a.md)" }, { engineConfig: { pathFields: ["path"] } });
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

	it("refuses a text that decodes to a non-object, keeping the original text", () => {
		// A JSON string literal wrapped with its quotes would run `"hi"` as the command.
		const bash = builtin("bash", '"hi"');
		expect(bash.outcome).toBe("unrepairable");
		expect(bash.args).toBe('"hi"');
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
		// The misspelt key is never guessed onto a field; it stays as sent and the note names it.
		expect(ruleIds(result)).toEqual(["preprocess.exact-alias", "reportUndeclaredKeys"]);
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
		const schema = Type.Object({ path: Type.String(), other: Type.String() });
		const input = { path: "^/x$", other: "^y$" };
		expect(custom(schema, input, { preprocessors }).args).toBe(input);
		const seen: RepairObservation[] = [];
		const result = custom(schema, input, {
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
			Type.Object({ a: Type.String(), b: Type.String(), c: Type.Number() }),
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
