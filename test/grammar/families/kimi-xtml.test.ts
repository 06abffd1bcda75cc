import { describe, expect, it } from "vitest";
import { parseKimiXtml } from "../../../src/grammar/families/kimi-xtml.ts";
import { parseToolGrammarLeaks, recoverGrammarLeaks } from "../../../src/grammar/index.ts";
import * as renderer from "../render/kimi-xtml.ts";
import { describeFixtures, describeRoundTrip, describeTruncation, runParser } from "./family-fixtures.ts";

describeFixtures("kimi-xtml", "kimi-xtml", parseKimiXtml);
describeTruncation("kimi-xtml", parseKimiXtml);
describeRoundTrip("kimi-xtml", "kimi-xtml", parseKimiXtml, renderer);

const block = (body: string) =>
	`<|open|>tools<|sep|><|open|>call tool="bash"<|sep|>${body}<|close|>call<|sep|><|close|>tools<|sep|>`;
const arg = (type: string, value: string) =>
	`<|open|>argument key="command" type="${type}"<|sep|>${value}<|close|>argument<|sep|>`;

describe("kimi-xtml argument types", () => {
	it.each([
		["integer", "2.5"],
		["integer", '"2"'],
		["boolean", "yes"],
		["boolean", "1"],
		["null", "None"],
		["object", "[1]"],
		["array", '{"a": 1}'],
		["number", "NaN"],
		["date", "2026-01-01"],
	])("refuses a %s argument written %j", (type, value) => {
		expect(runParser(parseKimiXtml, block(arg(type, value))).every((c) => c.stripOnly)).toBe(true);
	});

	it("keeps a string value byte for byte, JSON-looking or not", () => {
		const [call] = runParser(parseKimiXtml, block(arg("string", ' {"a": 1}\n')));
		expect(call?.arguments).toEqual({ command: ' {"a": 1}\n' });
	});
});

describe("kimi-xtml under recovery", () => {
	const message = (text: string) => ({ role: "assistant", content: [{ type: "text", text }], stopReason: "stop" });

	it("promotes a closed block under recover and leaves the prose", () => {
		const result = recoverGrammarLeaks(message(`Listing.\n${block(arg("string", "ls"))}`), {
			mode: "recover",
			knownTools: new Set(["bash"]),
		});
		expect(result.promoted).toBe(true);
		expect(result.recoveredCalls).toEqual([{ name: "bash", arguments: { command: "ls" }, grammar: "kimi-xtml" }]);
		expect(result.message.content[0]).toEqual({ type: "text", text: "Listing." });
	});

	it("never runs a refused block, and strips only its tags", () => {
		const text = `Listing.\n${block(arg("number", "ls"))}`;
		const result = recoverGrammarLeaks(message(text), { mode: "recover", knownTools: new Set(["bash"]) });
		expect(result.promoted).toBe(false);
		expect(result.message.content).toEqual([{ type: "text", text: "Listing.\nls" }]);
	});

	it("never runs a block in the think channel", () => {
		const text = `<|open|>think<|sep|>${block(arg("string", "rm -rf x"))}<|close|>think<|sep|>Done.`;
		const result = recoverGrammarLeaks(message(text), { mode: "recover", knownTools: new Set(["bash"]) });
		expect(result.promoted).toBe(false);
		expect(result.message.content).toEqual([{ type: "text", text }]);
	});

	it("is read by no other family", () => {
		const found = parseToolGrammarLeaks(block(arg("string", "ls")));
		expect(found).toEqual([{ name: "bash", arguments: { command: "ls" }, grammar: "kimi-xtml" }]);
	});
});

describe("kimi-xtml on 1 MB of hostile text", () => {
	const MB = 1 << 20;
	const fill = (unit: string) => unit.repeat(Math.ceil(MB / unit.length)).slice(0, MB);
	it.each([
		["unclosed blocks", fill('<|open|>tools<|sep|><|open|>call tool="a"<|sep|>')],
		["closers only", fill("<|close|>argument<|sep|><|close|>tools<|sep|>")],
		["headers without sep", fill('<|open|>argument key="')],
		["closed blocks", fill(block(arg("string", "ls")))],
	])("%s: returns with every range inside the text", (_label, text) => {
		const found = runParser(parseKimiXtml, text);
		for (const candidate of found) {
			expect(candidate.start).toBeGreaterThanOrEqual(0);
			expect(candidate.end).toBeLessThanOrEqual(text.length);
		}
		expect(Array.isArray(parseToolGrammarLeaks(text))).toBe(true);
	});
});
