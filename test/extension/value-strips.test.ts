import { describe, expect, it } from "vitest";
import {
	ANCHOR_BLEED_MODELS,
	ANCHOR_STRIP_SKIP,
	GRAMMAR_LEAK_MODELS,
	STRIP_ANCHOR_RULE,
	STRIP_GRAMMAR_RULE,
	stripValues,
} from "../../src/extension/value-strips.ts";

describe("anchor bleed (extension-contract §9.5)", () => {
	it("20: strips ^ and $ from a read path on kimi-k2 and names the tool in the note", () => {
		const { input, result } = stripValues({
			toolName: "read",
			input: { path: "^/home/user/file.ts$" },
			modelId: "kimi-k2-instruct",
		});
		expect(input).toEqual({ path: "/home/user/file.ts" });
		expect(result.changed).toBe(true);
		expect(result.rules).toContain(STRIP_ANCHOR_RULE);
		expect(result.notes.join(" ")).toContain("read");
	});

	it.each(["MiniMax-Text-01", "glm-4.6"])("21: opens the anchor gate for %s", (modelId) => {
		expect(stripValues({ toolName: "read", input: { path: "^/x$" }, modelId }).result.changed).toBe(true);
	});

	it.each(["claude-opus-4-8", "kimi-k1.5", undefined])("22: keeps the gate closed for %j", (modelId) => {
		const original = { path: "^/x$" };
		const { input, result } = stripValues({ toolName: "read", input: original, modelId });
		expect(result.changed).toBe(false);
		expect(input).toBe(original);
		expect(input).toEqual({ path: "^/x$" });
	});

	it("23: exempts grep.pattern (a regex) but strips grep.path", () => {
		const { input, result } = stripValues({
			toolName: "grep",
			input: { pattern: "^import React", path: "^/src$" },
			modelId: "glm-4.6",
		});
		expect(input).toEqual({ pattern: "^import React", path: "/src" });
		expect(result.rules).toEqual([STRIP_ANCHOR_RULE]);
	});

	it("24: strips find.pattern (a glob)", () => {
		expect(stripValues({ toolName: "find", input: { pattern: "^*.ts$" }, modelId: "glm-4.6" }).input).toEqual({
			pattern: "*.ts",
		});
	});

	it("exempts only the top level: a nested pattern key is stripped", () => {
		const { input } = stripValues({ toolName: "grep", input: { opts: { pattern: "^x$" } }, modelId: "glm-4.6" });
		expect(input).toEqual({ opts: { pattern: "x" } });
	});

	it("27: recurses into arrays of objects", () => {
		const { input } = stripValues({
			toolName: "edit",
			input: { edits: [{ oldText: "^a$", newText: "^b$" }] },
			modelId: "glm-4.6",
		});
		expect(input).toEqual({ edits: [{ oldText: "a", newText: "b" }] });
	});
});

describe("grammar tokens (§9.5 and decisions §4.3)", () => {
	it("25: cleans a leaked key and value on glm", () => {
		const { input, result } = stripValues({
			toolName: "grep",
			input: { "<arg_key>pattern</arg_key>": "<arg_value>foo</arg_value>" },
			modelId: "glm-4.6",
		});
		expect(input).toEqual({ pattern: "foo" });
		expect(result.rules).toContain(STRIP_GRAMMAR_RULE);
	});

	it("26: leaves the same leak alone on kimi-k2 (anchor-gated only)", () => {
		const { input, result } = stripValues({
			toolName: "grep",
			input: { "<arg_key>pattern</arg_key>": "<arg_value>foo</arg_value>" },
			modelId: "kimi-k2-instruct",
		});
		expect(input).toEqual({ "<arg_key>pattern</arg_key>": "<arg_value>foo</arg_value>" });
		expect(result.rules).not.toContain(STRIP_GRAMMAR_RULE);
	});

	it("keeps a content field with a trailing newline byte for byte on glm", () => {
		const original = { path: "a.txt", content: "line one\n  indented\n", command: "ls " };
		const { input, result } = stripValues({ toolName: "write", input: original, modelId: "glm-4.6" });
		expect(result.changed).toBe(false);
		expect(input).toBe(original);
	});

	it("removes only the tokens, keeping whitespace inside them", () => {
		const { input } = stripValues({
			toolName: "write",
			input: { content: "<arg_value>  body\n</arg_value>" },
			modelId: "glm-4.6",
		});
		expect(input).toEqual({ content: "  body\n" });
	});

	it("cleans grammar tokens before anchors, reporting both rules in that order", () => {
		const { input, result } = stripValues({
			toolName: "read",
			input: { path: "<arg_value>^/a$</arg_value>" },
			modelId: "glm-4.6",
		});
		expect(input).toEqual({ path: "/a" });
		expect(result.rules).toEqual([STRIP_GRAMMAR_RULE, STRIP_ANCHOR_RULE]);
		expect(result.notes).toHaveLength(2);
	});

	it("still removes grammar tokens from the anchor-exempt grep.pattern", () => {
		const { input } = stripValues({
			toolName: "grep",
			input: { pattern: "<arg_value>^x$</arg_value>" },
			modelId: "glm-4.6",
		});
		expect(input).toEqual({ pattern: "^x$" });
	});

	it("moves a renamed key to the end and lets it win over an existing key", () => {
		const { input } = stripValues({
			toolName: "read",
			input: { "<arg_key>path</arg_key>": "new", path: "old", limit: 1 },
			modelId: "glm-4.6",
		});
		expect(Object.entries(input as object)).toEqual([
			["limit", 1],
			["path", "new"],
		]);
	});
});

describe("inputs and purity", () => {
	it.each([["text"], [5], [null]])("returns a non-object input %j as is", (value) => {
		expect(stripValues({ toolName: "read", input: value, modelId: "glm-4.6" })).toEqual({
			input: value,
			result: { changed: false, rules: [], notes: [] },
		});
	});

	it("strips an array root without a skip list", () => {
		expect(stripValues({ toolName: "grep", input: ["^a$"], modelId: "glm-4.6" }).input).toEqual(["a"]);
	});

	it("never mutates the caller's value and returns a copy sharing nothing", () => {
		const original = { edits: [{ oldText: "^a$" }], keep: { deep: "x" } };
		const snapshot = structuredClone(original);
		const { input } = stripValues({ toolName: "edit", input: original, modelId: "glm-4.6" });
		expect(original).toEqual(snapshot);
		expect((input as typeof original).keep).not.toBe(original.keep);
	});

	it("exports the contract's constants", () => {
		expect(ANCHOR_BLEED_MODELS.map((r) => r.source)).toEqual(["kimi-k2", "minimax", "glm"]);
		expect(GRAMMAR_LEAK_MODELS.map((r) => r.source)).toEqual(["glm"]);
		expect([...(ANCHOR_STRIP_SKIP.grep ?? [])]).toEqual(["pattern"]);
		expect([STRIP_ANCHOR_RULE, STRIP_GRAMMAR_RULE]).toEqual(["stripAnchorBleed", "stripGrammarTokenLeak"]);
	});
});
