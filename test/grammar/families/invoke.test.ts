import { describe, expect, it } from "vitest";
import { parseInvoke } from "../../../src/grammar/families/invoke.ts";
import * as renderer from "../render/invoke.ts";
import { describeFixtures, describeRoundTrip, describeTruncation, runParser } from "./family-fixtures.ts";
import { invokeParser } from "./part1-parsers.ts";

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

	it("keeps the raw text of coerced values for schema typing", () => {
		const [found] = runParser(parseInvoke, '<invoke name="a"><parameter name="n"> 5 </parameter></invoke>');
		expect(found?.arguments).toEqual({ n: 5 });
		expect(found?.rawArguments).toEqual({ n: "5" });
	});

	it("does not treat an invoke word in the middle of a line as a bracket-less invoke", () => {
		expect(runParser(parseInvoke, 'please invoke name="read"> now')).toEqual([]);
	});
});
