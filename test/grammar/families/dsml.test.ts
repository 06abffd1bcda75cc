import { describe, expect, it } from "vitest";
import { parseDsmlBlocks, parseDsmlMarkers } from "../../../src/grammar/families/dsml.ts";
import * as renderer from "../render/dsml.ts";
import { describeFixtures, describeRoundTrip, describeTruncation, runParser } from "./family-fixtures.ts";
import { dsmlParser } from "./selected-parsers.ts";

const BAR = "\uff5c";
const open = (name: string, attrs = "") => `<${BAR}DSML${BAR}${name}${attrs}>`;
const close = (name: string) => `</${BAR}DSML${BAR}${name}>`;

describeFixtures("dsml", "dsml", dsmlParser);
describeTruncation("dsml", dsmlParser);
describeRoundTrip("dsml", "dsml", dsmlParser, renderer);

describe("dsml tag prefixes", () => {
	it.each([
		["one bar each side", `${BAR}DSML${BAR}`],
		["two bars each side", `${BAR}${BAR}DSML${BAR}${BAR}`],
		["no leading bar", `DSML${BAR}`],
		["ASCII pipes with spaces", " | DSML | "],
		["lower-case word", `${BAR}dsml${BAR}`],
		["U+2016 bars", "\u2016DSML\u2016"],
		["V4.1 doubled bars and a space before the name", `${BAR}${BAR}DSML${BAR}${BAR} `],
	])("accepts %s", (_label, prefix) => {
		const text = `<${prefix}tool_calls><${prefix}invoke name="ls"></${prefix}invoke></${prefix}tool_calls>`;
		expect(runParser(parseDsmlBlocks, text)).toMatchObject([{ name: "ls", arguments: {}, start: 0, end: text.length }]);
	});

	it("rejects a prefix with no bar after the word", () => {
		expect(runParser(parseDsmlBlocks, "<DSMLtool_calls><DSMLinvoke name='ls'></DSMLinvoke></DSMLtool_calls>")).toEqual(
			[],
		);
	});
});

describe("dsml closers", () => {
	it("prefers a tool_calls closer even after a function_calls opener", () => {
		const body = `${open("invoke", ' name="a"')}${close("invoke")}`;
		const text = `${open("function_calls")}${body}${close("function_calls")} tail ${close("tool_calls")}`;
		const [found] = runParser(parseDsmlBlocks, text);
		expect(found?.end).toBe(text.length);
	});
});

describe("dsml dangling markers", () => {
	it("needs the case-sensitive word DSML somewhere in the text", () => {
		expect(runParser(parseDsmlMarkers, `<${BAR}dsml${BAR}tool_calls>`)).toEqual([]);
		expect(runParser(parseDsmlMarkers, `<${BAR}DSML${BAR}tool_calls>`)).toHaveLength(1);
	});

	it("ends a marker without > at the end of its line, leaving the next line alone", () => {
		const text = `<${BAR}DSML${BAR}invoke name="x"\nnext line`;
		const [marker] = runParser(parseDsmlMarkers, text);
		expect(text.slice(marker?.start, marker?.end)).toBe(`<${BAR}DSML${BAR}invoke name="x"`);
	});
});

describe("dsml envelopes", () => {
	it.each(["calls", "tool_use", "tool_call", "tool_calls", "function_calls"])("reads a %s envelope", (envelope) => {
		const text = `${open(envelope)}${open("invoke", ' name="ls"')}${open("parameter", ' name="path"')}a${close("parameter")}${close("invoke")}${close(envelope)}`;
		expect(runParser(parseDsmlBlocks, text)).toMatchObject([
			{ name: "ls", arguments: { path: "a" }, start: 0, end: text.length },
		]);
	});

	it("closes a newer envelope only at its own kind, so a later block keeps its own range", () => {
		const first = `${open("calls")}${open("invoke", ' name="a"')}{"x": 1}${close("invoke")}${close("calls")}`;
		const second = `${open("tool_calls")}${open("invoke", ' name="b"')}{"y": 2}${close("invoke")}${close("tool_calls")}`;
		const text = `${first}\nprose\n${second}`;
		expect(runParser(parseDsmlBlocks, text).map((c) => [c.name, text.slice(c.start, c.end)])).toEqual([
			["a", first],
			["b", second],
		]);
	});

	it("reads no call from a tag name that only starts like an envelope", () => {
		expect(runParser(parseDsmlBlocks, `${open("callsx")}${open("invoke", ' name="a"')}`)).toEqual([]);
	});
});
