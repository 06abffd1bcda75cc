import { afterEach, describe, expect, it, vi } from "vitest";
import { FAMILY_STEPS } from "../../src/grammar/families/index.ts";
import { parseToolGrammarLeaks, recoverGrammarLeaks } from "../../src/grammar/index.ts";
import type { MinimalAssistantMessage } from "../../src/grammar/types.ts";

const qwenLeak = "Reading.\n<tool_call>\n<function=read>\n<parameter=path>a.md</parameter>\n</function>\n</tool_call>";

/** Makes the qwen step throw, as a bug in it would. */
function breakQwenStep(): void {
	const step = FAMILY_STEPS.find((candidate) => candidate.id === "qwen");
	if (step === undefined) throw new Error("the qwen step is missing");
	vi.spyOn(step, "parse").mockImplementation(() => {
		throw new TypeError("a message that may quote an argument value");
	});
}

afterEach(() => {
	vi.restoreAllMocks();
});

describe("an internal error is contained once at the entry point and told to the caller", () => {
	it("recoverGrammarLeaks returns the message unchanged and reports the error under its label", () => {
		breakQwenStep();
		const message: MinimalAssistantMessage = {
			role: "assistant",
			content: [{ type: "text", text: qwenLeak }],
			stopReason: "stop",
		};
		const reported: Array<{ label: string; error: unknown }> = [];
		const result = recoverGrammarLeaks(message, {
			mode: "recover",
			knownTools: new Set(["read"]),
			onContainedError: (label, error) => reported.push({ label, error }),
		});
		expect(result.changed).toBe(false);
		expect(result.message).toBe(message);
		expect(reported).toHaveLength(1);
		expect(reported[0]?.label).toBe("grammar:recover");
		expect(reported[0]?.error).toBeInstanceOf(TypeError);
	});

	it("parseToolGrammarLeaks answers no calls and reports the error under its label", () => {
		breakQwenStep();
		const reported: string[] = [];
		expect(parseToolGrammarLeaks(qwenLeak, undefined, (label) => reported.push(label))).toEqual([]);
		expect(reported).toEqual(["grammar:parse"]);
	});

	it("reports nothing when nothing throws", () => {
		const reported: string[] = [];
		expect(parseToolGrammarLeaks(qwenLeak, undefined, (label) => reported.push(label))).toHaveLength(1);
		expect(reported).toEqual([]);
	});
});
