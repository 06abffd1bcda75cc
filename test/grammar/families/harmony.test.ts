import { describe, expect, it } from "vitest";
import { parseHarmony } from "../../../src/grammar/families/harmony.ts";
import { recoverGrammarLeaks } from "../../../src/grammar/index.ts";
import type { MinimalAssistantMessage } from "../../../src/grammar/types.ts";
import * as renderer from "../render/harmony.ts";
import { describeFixtures, describeRoundTrip, describeTruncation, runParser } from "./family-fixtures.ts";

const call = (header: string, body = '{"path":"README.md"}', end = "<|call|>") => `${header}<|message|>${body}${end}`;

describe("harmony recipients", () => {
	it.each([
		["<|start|>assistant<|channel|>commentary to=functions.read <|constrain|>json"],
		["<|start|>assistant to=functions.read<|channel|>commentary json"],
		["<|start|>assistant to=functions.read<|channel|>commentary"],
		["<|channel|>commentary to=functions.read"],
		["<|channel|>commentary json to=functions.read"],
	])("reads a call from header %j", (header) => {
		const text = call(header);
		expect(runParser(parseHarmony, text)).toEqual([
			{ name: "read", arguments: { path: "README.md" }, grammar: "harmony", start: 0, end: text.length },
		]);
	});

	it.each([["to=browser.search"], ["to=python"], ["to=functions."], ["to=functions.read)"], ["to=assistant"]])(
		"reads no call when the recipient is %j",
		(recipient) => {
			expect(runParser(parseHarmony, call(`<|channel|>commentary ${recipient}`))).toEqual([]);
		},
	);

	it("keeps the dots after functions. in the name", () => {
		expect(runParser(parseHarmony, call("<|channel|>commentary to=functions.a.b"))).toMatchObject([{ name: "a.b" }]);
	});
});

describe("harmony channels", () => {
	it("marks a call in the analysis channel as reasoning", () => {
		expect(runParser(parseHarmony, call("<|channel|>analysis to=functions.read"))).toMatchObject([
			{ name: "read", reasoning: true },
		]);
	});

	it("never reads a call from the final channel", () => {
		expect(runParser(parseHarmony, call("<|start|>assistant<|channel|>final to=functions.read"))).toEqual([]);
	});

	it("does not mark commentary calls as reasoning", () => {
		const [found] = runParser(parseHarmony, call("<|channel|>commentary to=functions.read"));
		expect(found?.reasoning).toBeUndefined();
	});
});

describe("harmony bodies and terminators", () => {
	it("accepts <|end|> in place of <|call|>", () => {
		expect(runParser(parseHarmony, call("<|channel|>commentary to=functions.read", undefined, "<|end|>"))).toHaveLength(
			1,
		);
	});

	it("accepts a missing terminator only at the very end and only with a complete body", () => {
		const header = "<|channel|>commentary to=functions.read";
		expect(runParser(parseHarmony, call(header, '{"path":"a"}\n', ""))).toMatchObject([{ name: "read" }]);
		expect(runParser(parseHarmony, call(header, '{"path":"a"} trailing words', ""))).toEqual([]);
		expect(runParser(parseHarmony, call(header, '{"path":"a"', ""))).toMatchObject([{ stripOnly: true }]);
	});

	it("reads no call from a body that is not a JSON object", () => {
		for (const body of ['["a"]', '"a"', "42", "null", "read it"]) {
			expect(runParser(parseHarmony, call("<|channel|>commentary to=functions.read", body))).toEqual([]);
		}
	});

	it("treats a cut-off function header as a strip-only marker with no arguments", () => {
		const text = "Checking.\n<|channel|>commentary to=functions.bash";
		expect(runParser(parseHarmony, text)).toEqual([
			{ name: "", arguments: {}, grammar: "harmony", start: 10, end: text.length, stripOnly: true },
		]);
	});

	it("does not mark a cut-off analysis header as strip-only", () => {
		expect(runParser(parseHarmony, "<|channel|>analysis to=functions.bash")).toEqual([]);
	});

	it("reads a call inside a fence as nothing, and the next one outside it", () => {
		const inside = call("<|channel|>commentary to=functions.read", '{"path":"a"}');
		const outside = call("<|channel|>commentary to=functions.read", '{"path":"b"}');
		const found = runParser(parseHarmony, `\`\`\`\n${inside}\n\`\`\`\n${outside}`);
		expect(found.map((candidate) => candidate.arguments)).toEqual([{ path: "b" }]);
	});
});

describeFixtures("harmony", "harmony", parseHarmony);
describeTruncation("harmony", parseHarmony);
describeRoundTrip("harmony", "harmony", parseHarmony, renderer);

describe("harmony through the recovery driver", () => {
	const message = (text: string): MinimalAssistantMessage => ({
		role: "assistant",
		content: [{ type: "text", text }],
		stopReason: "stop",
	});
	const options = { mode: "recover" as const, knownTools: new Set(["read"]), now: () => 0 };

	it("promotes a commentary call to a real tool call", () => {
		const result = recoverGrammarLeaks(
			message(`Reading.\n${call("<|channel|>commentary to=functions.read")}`),
			options,
		);
		expect(result.promoted).toBe(true);
		expect(result.message.content).toEqual([
			{ type: "text", text: "Reading." },
			{
				type: "toolCall",
				id: expect.stringMatching(/^tool_repair_harmony_/),
				name: "read",
				arguments: { path: "README.md" },
			},
		]);
	});

	it("observes an analysis-channel call without promoting or stripping it", () => {
		const input = message(call("<|channel|>analysis to=functions.read"));
		const result = recoverGrammarLeaks(input, options);
		expect(result).toMatchObject({ promoted: false, changed: false, observed: true, detectedGrammars: ["harmony"] });
		expect(result.message).toBe(input);
	});

	it("strips a dangling function header in strip mode without promoting anything", () => {
		const result = recoverGrammarLeaks(message("Checking.\n<|channel|>commentary to=functions.read"), {
			...options,
			mode: "strip",
		});
		expect(result).toMatchObject({ changed: true, promoted: false });
		expect(result.message.content).toEqual([{ type: "text", text: "Checking." }]);
	});
});
