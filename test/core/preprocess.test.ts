import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { preprocessInput } from "../../src/core/preprocess.ts";
import type { Preprocessor } from "../../src/core/types.ts";

interface RunOptions {
	modelId?: string;
	allowValidValueTransforms?: boolean;
	toolName?: string;
}

function run(input: unknown, preprocessors: readonly Preprocessor[], options: RunOptions = {}) {
	return preprocessInput({
		input,
		toolName: options.toolName ?? "probe",
		preprocessors,
		modelId: options.modelId,
		allowValidValueTransforms: options.allowValidValueTransforms ?? true,
	});
}

const ruleIds = (result: { changes: { ruleId: string }[] }): string[] => result.changes.map((change) => change.ruleId);

function deepFreeze<T>(value: T): T {
	if (typeof value === "object" && value !== null) {
		for (const key of Object.keys(value)) {
			deepFreeze((value as Record<string, unknown>)[key]);
		}
		Object.freeze(value);
	}
	return value;
}

const GLM = [/glm/i];

describe("preprocessInput: identity and copy-on-write", () => {
	it("returns the same reference when no preprocessor changes anything", () => {
		const input = { path: "/x", content: "body" };
		const result = run(input, [
			{ kind: "alias", selector: "/path", aliases: ["file_path"] },
			{ kind: "filesystem-path", selector: "/path" },
		]);
		expect(result.value).toBe(input);
		expect(result.changes).toEqual([]);
		expect(result.observations).toEqual([]);
	});

	it("copies only the containers on the path to a write and reuses untouched siblings", () => {
		const content = "x".repeat(1 << 20);
		const sibling = { deep: ["kept"] };
		const input = { meta: { file_path: "/a", other: sibling }, content, list: [1, 2] };
		const result = run(deepFreeze(input), [{ kind: "alias", selector: "/meta/path", aliases: ["file_path"] }]);
		const value = result.value as { meta: Record<string, unknown>; content: string; list: number[] };
		expect(value).not.toBe(input);
		expect(value.meta).not.toBe(input.meta);
		expect(value.meta.path).toBe("/a");
		expect(value.meta.other).toBe(sibling);
		expect(value.content).toBe(content);
		expect(value.list).toBe(input.list);
		expect(input.meta).toEqual({ file_path: "/a", other: sibling });
	});

	it("writes every wildcard location into one shared copy of the array", () => {
		const input = { edits: [{ old_string: "a" }, { old_string: "b" }, { oldText: "c" }] };
		const result = run(input, [{ kind: "alias", selector: "/edits/*/oldText", aliases: ["old_string"] }]);
		const value = result.value as { edits: Record<string, unknown>[] };
		expect(value.edits).toEqual([{ oldText: "a" }, { oldText: "b" }, { oldText: "c" }]);
		expect(value.edits[2]).toBe(input.edits[2]);
		expect(input.edits[0]).toEqual({ old_string: "a" });
		expect(ruleIds(result)).toEqual(["preprocess.exact-alias", "preprocess.exact-alias"]);
	});

	it("never mutates its input, whatever the preprocessors do", () => {
		const preprocessors: Preprocessor[] = [
			{ kind: "alias", selector: "/path", aliases: ["file_path", "filename"] },
			{ kind: "alias", selector: "/edits/*/oldText", aliases: ["old_string"] },
			{ kind: "filesystem-path", selector: "/path" },
			{ kind: "string-or-array", selector: "/tags" },
			{ kind: "scalar", selector: "/limit", scalarType: "number" },
			{ kind: "anchor-bleed", selector: "/path", modelFamilies: GLM },
			{ kind: "grammar-tokens", selector: "", modelFamilies: GLM },
			{
				kind: "structural",
				selector: "",
				ruleId: "owner.wrap",
				apply: (value) => {
					if (value !== null && typeof value === "object") {
						(value as Record<string, unknown>).touched = true;
						return { value, note: "owner reshaped the input" };
					}
					return undefined;
				},
			},
		];
		const key = fc.constantFrom("path", "file_path", "filename", "tags", "limit", "edits", "<arg_key>path</arg_key>");
		const leaf = fc.oneof(
			fc.string(),
			fc.constantFrom("^/x$", "[a](http://a)", "<arg_value>v</arg_value>", " 5 "),
			fc.integer(),
			fc.constant(null),
		);
		const edit = fc.dictionary(fc.constantFrom("oldText", "old_string", "newText"), leaf);
		const input = fc.dictionary(key, fc.oneof(leaf, fc.array(edit, { maxLength: 3 })));
		fc.assert(
			fc.property(input, (value) => {
				const snapshot = structuredClone(value);
				run(deepFreeze(value), preprocessors, { modelId: "glm-4.6" });
				expect(value).toEqual(snapshot);
			}),
		);
	});

	it("hands structural preprocessors a copy, so their mutation never reaches the caller", () => {
		const input = { a: { b: 1 } };
		const result = run(input, [
			{
				kind: "structural",
				selector: "/a",
				ruleId: "owner.bump",
				apply: (value) => {
					(value as { b: number }).b = 2;
					return { value, note: "bumped" };
				},
			},
		]);
		expect(input).toEqual({ a: { b: 1 } });
		expect(result.value).toEqual({ a: { b: 2 } });
		expect(result.changes).toEqual([{ ruleId: "owner.bump", stage: "preprocess", note: "bumped" }]);
	});
});

describe("preprocessInput: alias", () => {
	it("moves an exact alias onto its canonical key even when the schema would accept the extra key", () => {
		const result = run({ directory: "/tmp" }, [{ kind: "alias", selector: "/path", aliases: ["directory"] }], {
			toolName: "lister",
		});
		expect(result.value).toEqual({ path: "/tmp" });
		expect(result.changes).toHaveLength(1);
		const [change] = result.changes;
		expect(change).toMatchObject({ ruleId: "preprocess.exact-alias", stage: "preprocess" });
		expect(change!.note).toContain("directory");
		expect(change!.note).toContain("path");
		expect(change!.note).toContain("lister");
	});

	it("treats an empty canonical as missing only with emptyEquivalentToMissing", () => {
		const result = run({ path: "", file_path: "/x", content: "", body: "replacement" }, [
			{ kind: "alias", selector: "/path", aliases: ["file_path"], emptyEquivalentToMissing: true },
			{ kind: "alias", selector: "/content", aliases: ["body"] },
		]);
		expect(result.value).toEqual({ path: "/x", content: "", body: "replacement" });
		expect(ruleIds(result)).toEqual(["preprocess.exact-alias"]);
	});

	it("ignores an unknown preprocessor kind next to an alias", () => {
		const unknownKind = { kind: "telepathy", selector: "/path" } as unknown as Preprocessor;
		const result = run({ file: "/x" }, [unknownKind, { kind: "alias", selector: "/path", aliases: ["file"] }]);
		expect(result.value).toEqual({ path: "/x" });
		expect(ruleIds(result)).toEqual(["preprocess.exact-alias"]);
	});

	it("renames inside every array element and leaves unconfigured keys exactly as sent", () => {
		const input = {
			paht: "/typo",
			content: '{"looks":"like json"}',
			files: [{ old_string: "a" }, { old_string: "b" }],
		};
		const result = run(input, [{ kind: "alias", selector: "/files/*/oldText", aliases: ["old_string"] }]);
		expect(result.value).toEqual({
			paht: "/typo",
			content: '{"looks":"like json"}',
			files: [{ oldText: "a" }, { oldText: "b" }],
		});
	});

	it("moves only the first present alias and leaves the others as extra keys", () => {
		const result = run({ filename: "/b", file_path: "/a" }, [
			{ kind: "alias", selector: "/path", aliases: ["file_path", "filename"] },
		]);
		expect(result.value).toEqual({ filename: "/b", path: "/a" });
		expect(result.changes).toHaveLength(1);
	});

	it("skips an alias whose value is the empty string", () => {
		const result = run({ file_path: "", filename: "/b" }, [
			{ kind: "alias", selector: "/path", aliases: ["file_path", "filename"] },
		]);
		expect(result.value).toEqual({ file_path: "", path: "/b" });
	});

	it("skips an alias that fails its accepts guard; without a guard only null and undefined are refused", () => {
		const guarded = run({ file_path: 5, filename: "/b" }, [
			{ kind: "alias", selector: "/path", aliases: ["file_path", "filename"], accepts: "string" },
		]);
		expect(guarded.value).toEqual({ file_path: 5, path: "/b" });
		const unguarded = run({ file_path: 5 }, [{ kind: "alias", selector: "/path", aliases: ["file_path"] }]);
		expect(unguarded.value).toEqual({ path: 5 });
		const nullAlias = run({ file_path: null }, [{ kind: "alias", selector: "/path", aliases: ["file_path"] }]);
		expect(nullAlias.changes).toEqual([]);
	});

	it("applies the array and object guards", () => {
		const preprocessors: Preprocessor[] = [
			{ kind: "alias", selector: "/edits", aliases: ["changes"], accepts: "array" },
			{ kind: "alias", selector: "/config", aliases: ["cfg"], accepts: "object" },
		];
		expect(run({ changes: "a list", cfg: [1] }, preprocessors).changes).toEqual([]);
		expect(run({ changes: "{}", cfg: "[1]" }, preprocessors).changes).toEqual([]);
		// A container sent as its JSON text is that container (pi#5698): it moves, and the schema repair parses it.
		expect(run({ changes: " [] ", cfg: '{"a":1}' }, preprocessors).value).toEqual({ edits: " [] ", config: '{"a":1}' });
		expect(run({ changes: [], cfg: { a: 1 } }, preprocessors).value).toEqual({ edits: [], config: { a: 1 } });
	});

	it("does not let a null canonical block the alias, and keeps its position", () => {
		const result = run({ path: null, file_path: "/x", z: 1 }, [
			{ kind: "alias", selector: "/path", aliases: ["file_path"] },
		]);
		expect(result.value).toEqual({ path: "/x", z: 1 });
		expect(Object.keys(result.value as object)).toEqual(["path", "z"]);
		expect(result.changes).toHaveLength(1);
	});

	it("appends a newly created canonical key at the end", () => {
		const result = run({ file_path: "/x", z: 1 }, [{ kind: "alias", selector: "/path", aliases: ["file_path"] }]);
		expect(Object.keys(result.value as object)).toEqual(["z", "path"]);
	});

	it("does nothing when the alias parent is not a record or is missing", () => {
		const preprocessors: Preprocessor[] = [
			{ kind: "alias", selector: "/config/mode", aliases: ["m"], accepts: "string" },
		];
		const arrayParent = { config: [1] };
		expect(run(arrayParent, preprocessors).value).toBe(arrayParent);
		const missingParent = { other: { m: "x" } };
		expect(run(missingParent, preprocessors).value).toBe(missingParent);
	});

	it("does not index arrays with a numeric segment", () => {
		const input = { files: [{ old_string: "a" }] };
		const result = run(input, [{ kind: "alias", selector: "/files/0/oldText", aliases: ["old_string"] }]);
		expect(result.value).toBe(input);
	});

	it("decodes pointer escapes in the selector", () => {
		const result = run({ "a/b": { old: 1 } }, [{ kind: "alias", selector: "/a~1b/new", aliases: ["old"] }]);
		expect(result.value).toEqual({ "a/b": { new: 1 } });
	});

	it("keeps a moved __proto__ value inert", () => {
		const input = JSON.parse('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
		const result = run(input, [{ kind: "alias", selector: "/options", aliases: ["__proto__"] }]);
		const value = result.value as Record<string, unknown>;
		expect(value.options).toEqual({ polluted: true });
		expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
		expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
	});

	it("names no canonical key with a root or wildcard selector", () => {
		const input = { a: 1 };
		expect(run(input, [{ kind: "alias", selector: "", aliases: ["a"] }]).value).toBe(input);
		expect(run({ list: [1] }, [{ kind: "alias", selector: "/list/*", aliases: ["a"] }]).changes).toEqual([]);
	});
});

describe("preprocessInput: field kinds", () => {
	it("scalar number mode converts decimal number text only", () => {
		const result = run({ a: " 5 ", b: "0x10", c: "1e3", d: "", e: "-2.5", f: "Infinity", g: 7 }, [
			{ kind: "scalar", selector: "/a", scalarType: "number" },
			{ kind: "scalar", selector: "/b", scalarType: "number" },
			{ kind: "scalar", selector: "/c", scalarType: "number" },
			{ kind: "scalar", selector: "/d", scalarType: "number" },
			{ kind: "scalar", selector: "/e", scalarType: "number" },
			{ kind: "scalar", selector: "/f", scalarType: "number" },
			{ kind: "scalar", selector: "/g", scalarType: "number" },
		]);
		expect(result.value).toEqual({ a: " 5 ", b: "0x10", c: "1e3", d: "", e: -2.5, f: "Infinity", g: 7 });
		expect(ruleIds(result)).toEqual(["preprocess.scalar"]);
	});

	it("scalar string mode stringifies numbers and booleans but not null", () => {
		const result = run({ list: [5, true, null, "s"] }, [{ kind: "scalar", selector: "/list/*", scalarType: "string" }]);
		expect(result.value).toEqual({ list: ["5", "true", null, "s"] });
		expect(result.changes).toHaveLength(2);
	});

	it("scalar boolean mode accepts true/false in any case only", () => {
		const result = run({ list: ["TRUE", "False", "yes", 1] }, [
			{ kind: "scalar", selector: "/list/*", scalarType: "boolean" },
		]);
		expect(result.value).toEqual({ list: [true, false, "yes", 1] });
		expect(result.changes).toHaveLength(2);
	});

	it("scalar without a type does nothing", () => {
		const input = { a: "5" };
		expect(run(input, [{ kind: "scalar", selector: "/a" }]).value).toBe(input);
	});

	it("string-or-array wraps a root string and renders the root selector as a slash", () => {
		const result = run("urgent", [{ kind: "string-or-array", selector: "" }], { toolName: "tagger" });
		expect(result.value).toEqual(["urgent"]);
		const [change] = result.changes;
		expect(change!.ruleId).toBe("preprocess.string-or-array");
		expect(change!.note).toContain("string-or-array");
		expect(change!.note).toContain("/");
		expect(change!.note).toContain("tagger");
	});

	it("string-or-array leaves arrays and non-strings alone", () => {
		const input = { tags: ["a"], other: 1 };
		expect(run(input, [{ kind: "string-or-array", selector: "/tags" }]).value).toBe(input);
	});

	it("scalar notes name the kind, the selector and the tool", () => {
		const [change] = run({ count: "12" }, [{ kind: "scalar", selector: "/count", scalarType: "number" }], {
			toolName: "counter",
		}).changes;
		expect(change!.note).toContain("scalar");
		expect(change!.note).toContain("/count");
		expect(change!.note).toContain("counter");
	});

	it("filesystem-path unwraps only degenerate links among wildcard items", () => {
		const result = run({ files: ["[a.md](https://a.md)", "[b](https://c)", 7] }, [
			{ kind: "filesystem-path", selector: "/files/*" },
		]);
		expect(result.value).toEqual({ files: ["a.md", "[b](https://c)", 7] });
		expect(ruleIds(result)).toEqual(["preprocess.filesystem-path"]);
	});

	it("filesystem-path-array unwraps string elements and keeps the rest", () => {
		const result = run({ dirs: ["[b.md](https://b.md)", 7] }, [{ kind: "filesystem-path-array", selector: "/dirs" }], {
			toolName: "finder",
		});
		expect(result.value).toEqual({ dirs: ["b.md", 7] });
		const [change] = result.changes;
		expect(change!.ruleId).toBe("preprocess.filesystem-path-array");
		expect(change!.note).toContain("/dirs");
		expect(change!.note).toContain("finder");
	});

	it("glob never changes anything", () => {
		const input = { pattern: "[a](http://a)" };
		const result = run(input, [{ kind: "glob", selector: "/pattern" }]);
		expect(result.value).toBe(input);
		expect(result.changes).toEqual([]);
	});

	it("unwraps a markdown path even when valid-value transforms are forbidden", () => {
		const result = run({ path: "[notes.md](http://notes.md)" }, [{ kind: "filesystem-path", selector: "/path" }], {
			allowValidValueTransforms: false,
		});
		expect(result.value).toEqual({ path: "notes.md" });
		expect(ruleIds(result)).toEqual(["preprocess.filesystem-path"]);
	});
});

describe("preprocessInput: model-gated valid-value kinds", () => {
	const anchor: Preprocessor = { kind: "anchor-bleed", selector: "/path", modelFamilies: GLM };

	it("never runs without a matching model id and model families", () => {
		const input = { path: "^/x$" };
		expect(run(input, [anchor]).value).toBe(input);
		expect(run(input, [anchor], { modelId: "" }).value).toBe(input);
		expect(run(input, [anchor], { modelId: "claude-opus-4-8" }).value).toBe(input);
		expect(run(input, [{ kind: "anchor-bleed", selector: "/path" }], { modelId: "glm-4.6" }).value).toBe(input);
	});

	it("observes instead of writing under a policy without valid-value transforms, once per rule", () => {
		const input = { path: "^/x$", other: "^y" };
		const result = run(input, [anchor, { kind: "anchor-bleed", selector: "/other", modelFamilies: GLM }], {
			modelId: "glm-4.6",
			allowValidValueTransforms: false,
		});
		expect(result.value).toBe(input);
		expect(result.changes).toEqual([]);
		expect(result.observations).toEqual(["stripAnchorBleed"]);
	});

	it("strips anchor runs at the edges only", () => {
		const result = run(
			{ a: "^^x$$", b: "a^b$c" },
			[
				{ kind: "anchor-bleed", selector: "/a", modelFamilies: GLM },
				{ kind: "anchor-bleed", selector: "/b", modelFamilies: GLM },
			],
			{ modelId: "glm-4.6", toolName: "grepper" },
		);
		expect(result.value).toEqual({ a: "x", b: "a^b$c" });
		expect(ruleIds(result)).toEqual(["stripAnchorBleed"]);
		expect(result.changes[0]!.note).toContain("grepper");
	});

	it("matches a global model-family regex on every call", () => {
		const families = [/glm/gi];
		const preprocessors: Preprocessor[] = [{ kind: "anchor-bleed", selector: "/path", modelFamilies: families }];
		for (let round = 0; round < 3; round++) {
			expect(run({ path: "^/x" }, preprocessors, { modelId: "glm-4.6" }).value).toEqual({ path: "/x" });
		}
	});

	it("cleans leaked tokens from root keys and string values into a null-prototype record", () => {
		const input = { "<arg_key>a</arg_key>": "<arg_value>v</arg_value>", b: "<arg_key><arg_value>x", c: 5 };
		const result = run(input, [{ kind: "grammar-tokens", selector: "", modelFamilies: GLM }], {
			modelId: "glm-4.6",
			toolName: "grep",
		});
		expect({ ...(result.value as object) }).toEqual({ a: "v", b: "<arg_value>x", c: 5 });
		expect(Object.getPrototypeOf(result.value)).toBeNull();
		expect(ruleIds(result)).toEqual(["stripGrammarTokenLeak"]);
		expect(result.changes[0]!.note).toContain("grep");
	});

	it("keeps the later value when cleaned keys collide", () => {
		const result = run(
			{ "<arg_key>a</arg_key>": 1, a: 2 },
			[{ kind: "grammar-tokens", selector: "", modelFamilies: GLM }],
			{
				modelId: "glm-4.6",
			},
		);
		expect({ ...(result.value as object) }).toEqual({ a: 2 });
	});

	it("trims whitespace between a removed token and a key, never in values", () => {
		const result = run(
			{ "<arg_key> path </arg_key>": "<arg_value> /x \n</arg_value>" },
			[{ kind: "grammar-tokens", selector: "", modelFamilies: GLM }],
			{ modelId: "glm-4.6" },
		);
		expect({ ...(result.value as object) }).toEqual({ path: " /x \n" });
	});

	it("copies a record with its prototype when only values changed", () => {
		const result = run(
			{ pattern: "<arg_value>foo</arg_value>" },
			[{ kind: "grammar-tokens", selector: "", modelFamilies: GLM }],
			{ modelId: "glm-4.6" },
		);
		expect(result.value).toEqual({ pattern: "foo" });
		expect(Object.getPrototypeOf(result.value)).toBe(Object.prototype);
	});

	it("leaves a value with no leaked token untouched, whitespace included", () => {
		const input = { path: " /x " };
		const result = run(input, [{ kind: "grammar-tokens", selector: "/path", modelFamilies: GLM }], {
			modelId: "glm-4.6",
		});
		expect(result.value).toBe(input);
		expect(result.changes).toEqual([]);
		const conservative = run(input, [{ kind: "grammar-tokens", selector: "/path", modelFamilies: GLM }], {
			modelId: "glm-4.6",
			allowValidValueTransforms: false,
		});
		expect(conservative.observations).toEqual([]);
	});

	it("removes only the token characters from content fields, keeping their exact bytes", () => {
		const input = {
			edits: [
				{ oldText: "<arg_value>  a\n", newText: "  b\n</arg_value>" },
				{ oldText: " keep ", newText: "same\n" },
			],
		};
		const result = run(
			input,
			[
				{ kind: "grammar-tokens", selector: "/edits/*/oldText", modelFamilies: GLM },
				{ kind: "grammar-tokens", selector: "/edits/*/newText", modelFamilies: GLM },
			],
			{ modelId: "glm-4.6" },
		);
		const value = result.value as typeof input;
		expect(value.edits).toEqual([
			{ oldText: "  a\n", newText: "  b\n" },
			{ oldText: " keep ", newText: "same\n" },
		]);
		expect(value.edits[1]).toBe(input.edits[1]);
		expect(ruleIds(result)).toEqual(["stripGrammarTokenLeak", "stripGrammarTokenLeak"]);
	});

	it("removes one leading and one trailing token only", () => {
		const result = run(
			{ v: "<arg_key><arg_value>x</arg_value></arg_key>" },
			[{ kind: "grammar-tokens", selector: "/v", modelFamilies: GLM }],
			{ modelId: "glm-4.6" },
		);
		expect(result.value).toEqual({ v: "<arg_value>x</arg_value>" });
	});

	it("observes a leaked token under conservative and keeps the value", () => {
		const input = { "<arg_key>pattern</arg_key>": "<arg_value>foo</arg_value>" };
		const result = run(input, [{ kind: "grammar-tokens", selector: "", modelFamilies: GLM }], {
			modelId: "glm-4.6",
			allowValidValueTransforms: false,
		});
		expect(result.value).toBe(input);
		expect(result.observations).toEqual(["stripGrammarTokenLeak"]);
	});

	it("does not touch grammar tokens on a model outside the token families", () => {
		const input = { pattern: "<arg_value>foo</arg_value>" };
		const result = run(input, [{ kind: "grammar-tokens", selector: "/pattern", modelFamilies: GLM }], {
			modelId: "kimi-k2-instruct",
		});
		expect(result.value).toBe(input);
	});
});

describe("preprocessInput: order and structural reshapes", () => {
	it("runs preprocessors in list order, each seeing the previous result", () => {
		const result = run(
			{ file_path: "^/f$" },
			[
				{ kind: "alias", selector: "/path", aliases: ["file_path"] },
				{ kind: "anchor-bleed", selector: "/path", modelFamilies: GLM },
			],
			{ modelId: "glm-4.6" },
		);
		expect(result.value).toEqual({ path: "/f" });
		expect(ruleIds(result)).toEqual(["preprocess.exact-alias", "stripAnchorBleed"]);
	});

	it("lets a structural preprocessor replace the root and record its own rule", () => {
		const result = run({ old_string: "a", new_string: "b" }, [
			{
				kind: "structural",
				selector: "",
				ruleId: "foldFlatEditFields",
				apply: (value) => {
					const record = value as Record<string, unknown>;
					return { value: { edits: [{ oldText: record.old_string, newText: record.new_string }] }, note: "folded" };
				},
			},
		]);
		expect(result.value).toEqual({ edits: [{ oldText: "a", newText: "b" }] });
		expect(result.changes).toEqual([{ ruleId: "foldFlatEditFields", stage: "preprocess", note: "folded" }]);
	});

	it("calls a structural preprocessor for a missing location too", () => {
		const seen: unknown[] = [];
		const input = { a: 1 };
		const result = run(input, [
			{
				kind: "structural",
				selector: "/missing",
				ruleId: "owner.peek",
				apply: (value) => {
					seen.push(value);
					return undefined;
				},
			},
		]);
		expect(seen).toEqual([undefined]);
		expect(result.value).toBe(input);
	});

	it("is never gated by policy or model", () => {
		const result = run(
			{ a: 1 },
			[
				{
					kind: "structural",
					selector: "/a",
					ruleId: "owner.double",
					apply: (value) => ({ value: (value as number) * 2, note: "doubled" }),
				},
			],
			{ allowValidValueTransforms: false },
		);
		expect(result.value).toEqual({ a: 2 });
	});
});
