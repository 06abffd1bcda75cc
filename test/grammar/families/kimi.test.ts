import { describe, expect, it } from "vitest";
import { kimiToolName, parseKimi } from "../../../src/grammar/families/kimi.ts";
import * as renderer from "../render/kimi.ts";
import { describeFixtures, describeRoundTrip, describeTruncation, runParser } from "./family-fixtures.ts";

const section = (id: string, args: string) =>
	`<|tool_calls_section_begin|><|tool_call_begin|>${id}<|tool_call_argument_begin|>${args}<|tool_call_end|><|tool_calls_section_end|>`;

describe("kimi sections", () => {
	it("reads functions.web_search:0 with {query:pi} as web_search {query:'pi'}", () => {
		const text = section("functions.web_search:0", '{"query":"pi"}');
		expect(runParser(parseKimi, text)).toEqual([
			{ name: "web_search", arguments: { query: "pi" }, grammar: "kimi", start: 0, end: text.length },
		]);
	});
});

describe("a kimi call id in place of a tool name is no call", () => {
	it("yields no candidate for an OpenAI-style id such as call_0001, so the text stays untouched", () => {
		expect(runParser(parseKimi, `Working.\n${section("call_0001", '{"query":"pi"}')}`)).toEqual([]);
	});

	it.each([
		["functions.read:0", "read"],
		["functions.mcp.search:12", "mcp.search"],
		["functions.call_7:0", "call_7"],
		["read", "read"],
		["read:3", "read"],
		["functions.read", "read"],
		["  functions.ls:1 ", "ls"],
	])("names the tool of id %j as %j", (id, name) => {
		expect(kimiToolName(id)).toBe(name);
	});

	it.each([["call_0001"], ["call-2"], ["CALL9"], ["functions.call_3"], [""], ["9read"], ["read:x"], ["read extra"]])(
		"names no tool for id %j",
		(id) => {
			expect(kimiToolName(id)).toBeUndefined();
		},
	);
});

describe("kimi section boundaries", () => {
	it("keeps markup-like text inside the arguments", () => {
		const text = section("functions.grep:0", '{"pattern": "<div class=\\"x\\">", "path": "a < b"}');
		expect(runParser(parseKimi, text)).toMatchObject([
			{ name: "grep", arguments: { pattern: '<div class="x">', path: "a < b" } },
		]);
	});

	it("shares one range between all calls of a section and ignores a second, unclosed section", () => {
		const closed = section("functions.read:0", '{"path":"a"}');
		const text = `${closed}\n<|tool_calls_section_begin|><|tool_call_begin|>functions.ls:0<|tool_call_argument_begin|>{}`;
		const found = runParser(parseKimi, text);
		expect(found).toHaveLength(1);
		expect(found[0]).toMatchObject({ name: "read", start: 0, end: closed.length });
	});

	it("skips a section whose opener sits inside a code fence but reads the next one outside", () => {
		const inside = section("functions.read:0", '{"path":"a"}');
		const outside = section("functions.read:1", '{"path":"b"}');
		const text = `\`\`\`\n${inside}\n\`\`\`\n${outside}`;
		const found = runParser(parseKimi, text);
		expect(found.map((candidate) => candidate.arguments)).toEqual([{ path: "b" }]);
		expect(text.slice(found[0]?.start, found[0]?.end)).toBe(outside);
	});
});

describeFixtures("kimi", "kimi", parseKimi);
describeTruncation("kimi", parseKimi);
describeRoundTrip("kimi", "kimi", parseKimi, renderer);
