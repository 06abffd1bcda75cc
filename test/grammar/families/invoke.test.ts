import { describe, expect, it } from "vitest";
import { parseInvoke } from "../../../src/grammar/families/invoke.ts";
import { recoverGrammarLeaks } from "../../../src/grammar/index.ts";
import * as renderer from "../render/invoke.ts";
import { describeFixtures, describeRoundTrip, describeTruncation, runParser } from "./family-fixtures.ts";
import { invokeParser } from "./selected-parsers.ts";

describeFixtures("invoke", "invoke", invokeParser);
describeTruncation("invoke", invokeParser);
describeRoundTrip("invoke", "invoke", invokeParser, renderer);

describe("invoke shapes before selection", () => {
	it("reports a wrapped invoke both as the wrapper and as the element, so selection can keep the wrapper", () => {
		const element = '<invoke name="ls"><parameter name="path">.</parameter></invoke>';
		const text = `<tool_call>${element}</tool_call>`;
		const found = runParser(parseInvoke, text).map((c) => text.slice(c.start, c.end));
		expect(found).toEqual([text, element]);
	});

	it("keeps the bytes of coerced values for schema typing (a string field gets them as written)", () => {
		const [found] = runParser(parseInvoke, '<invoke name="a"><parameter name="n"> 5 </parameter></invoke>');
		expect(found?.arguments).toEqual({ n: 5 });
		expect(found?.rawArguments).toEqual({ n: " 5 " });
	});

	it("does not treat an invoke word in the middle of a line as a bracket-less invoke", () => {
		expect(runParser(parseInvoke, 'please invoke name="read"> now')).toEqual([]);
	});
});

describe("invoke element-style arguments (MiniMax M3)", () => {
	const M3 = "]<]minimax[>[";

	it("types top-level leaves from the schema: the raw text goes beside the string value", () => {
		const [found] = runParser(parseInvoke, '<invoke name="read"><path>a.md</path><limit> 5 </limit></invoke>');
		expect(found?.arguments).toEqual({ path: "a.md", limit: " 5 " });
		expect(found?.rawArguments).toEqual({ path: "a.md", limit: "5" });
	});

	it("promotes an M3 call under recover and leaves no namespace token behind", () => {
		const text = `Reading.${M3}<invoke name="read">${M3}<path>a.md${M3}</path>${M3}</invoke>`;
		const result = recoverGrammarLeaks(
			{ role: "assistant", content: [{ type: "text", text }], stopReason: "stop" },
			{ mode: "recover", knownTools: new Set(["read"]) },
		);
		expect(result.recoveredCalls).toEqual([{ name: "read", arguments: { path: "a.md" }, grammar: "invoke" }]);
		expect(result.message.content[0]).toEqual({ type: "text", text: "Reading." });
	});

	it("refuses nesting past the depth limit instead of reading it", () => {
		const deep = `${"<a>".repeat(20)}x${"</a>".repeat(20)}`;
		const [found] = runParser(parseInvoke, `<invoke name="t"><k>${deep}</k></invoke>`);
		expect(found?.arguments).toEqual({});
	});

	it.each([
		["an element opened and never closed, repeated", `<invoke name="a">${"<b>".repeat(40_000)}</invoke>`],
		["leaf openers without closers", `<invoke name="a">${"<b>x".repeat(40_000)}</invoke>`],
		["many closed invokes", '<invoke name="a"><b>x</b></invoke>'.repeat(8_000)],
	])("returns on %s", (_label, text) => {
		for (const candidate of runParser(parseInvoke, text)) expect(candidate.end).toBeLessThanOrEqual(text.length);
	});
});
