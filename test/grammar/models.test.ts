import { describe, expect, it } from "vitest";
import { GRAMMAR_RECOVERY_MODELS, modelLeaksGrammar } from "../../src/grammar/index.ts";

describe("modelLeaksGrammar matches the model families known to leak their tool grammar", () => {
	it.each([
		"deepseek-v4-pro",
		"Qwen3-Coder",
		"glm-4.6",
		"meta-llama/Llama-4",
		"kimi-k2",
		"MiniMax-M2",
		"mistral-large",
		"granite-4",
		"olmo-3",
		"openai/gpt-oss-120b",
		"gemma-4-27b",
	])("is true for %s", (id) => {
		expect(modelLeaksGrammar(id)).toBe(true);
	});

	it.each(["claude-opus-4-8", "gpt-5", "gemini-3-pro", "devstral", "ministral", "", undefined])(
		"is false for %j",
		(id) => {
			expect(modelLeaksGrammar(id)).toBe(false);
		},
	);

	it("lists the original nine patterns, then gpt-oss and gemma", () => {
		expect(GRAMMAR_RECOVERY_MODELS.map((r) => r.source)).toEqual([
			"glm",
			"kimi",
			"minimax",
			"qwen",
			"mistral",
			"llama",
			"granite",
			"olmo",
			"deepseek",
			"gpt-oss",
			"gemma",
		]);
		expect(GRAMMAR_RECOVERY_MODELS.every((r) => r.flags === "i")).toBe(true);
	});
});
