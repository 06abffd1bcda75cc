import { describe, expect, it } from "vitest";
import {
	AMBIGUOUS_GRAMMARS,
	leakGrammarsFor,
	modelNamedInLeakModels,
	UNAMBIGUOUS_GRAMMARS,
} from "../../src/grammar/models.ts";
import { GRAMMAR_NAMES } from "../../src/grammar/types.ts";

describe("which grammar families are looked for, by model id", () => {
	it("classifies every family exactly once, with a reason", () => {
		for (const name of GRAMMAR_NAMES) {
			const reasons = [UNAMBIGUOUS_GRAMMARS[name], AMBIGUOUS_GRAMMARS[name]].filter((r) => r !== undefined);
			expect(reasons, name).toHaveLength(1);
			expect(reasons[0]?.length, name).toBeGreaterThan(20);
		}
	});

	it("looks for the sentinel families only, for a model id of no known family", () => {
		expect(leakGrammarsFor("local-model")).toEqual(["dsml", "invoke", "kimi", "harmony", "gemma", "kimi-xtml"]);
		expect(leakGrammarsFor(undefined)).toEqual(leakGrammarsFor(""));
		expect(leakGrammarsFor("")).toEqual(leakGrammarsFor("local-model"));
	});

	it("looks for every family for a known leaking family or a model named in leakModels", () => {
		expect(leakGrammarsFor("Qwen3-Coder")).toEqual(GRAMMAR_NAMES);
		expect(leakGrammarsFor("coder:30b", ["CODER"])).toEqual(GRAMMAR_NAMES);
		expect(leakGrammarsFor("coder:30b", ["seed"])).not.toContain("qwen");
	});

	it("matches leakModels as plain case-insensitive texts, never as regular expressions", () => {
		expect(modelNamedInLeakModels("my.model", ["my.model"])).toBe(true);
		expect(modelNamedInLeakModels("myXmodel", ["my.model"])).toBe(false);
		expect(modelNamedInLeakModels("anything", [".*"])).toBe(false);
		expect(modelNamedInLeakModels("anything", [""])).toBe(false);
		expect(modelNamedInLeakModels(undefined, ["a"])).toBe(false);
	});
});
