import { describe, expect, it } from "vitest";
import {
	asciiLowerCase,
	attributeValue,
	BracketMatcher,
	callFromJsonObject,
	callsFromJson,
	defineOwn,
	extractFirstBalancedJson,
	findMatchingParen,
	isIdentifier,
	lineStarts,
	maybeParseJsonValue,
	normalizeArgumentsObject,
	parseJsonValueOrString,
	parsePythonicArgs,
	parsePythonicCalls,
	readIdentifier,
	unwrapMarkdownFence,
} from "../../src/grammar/scan.ts";

describe("identifiers", () => {
	it.each(["read", "_x", "mcp.search", "a-b", "A1"])("accepts %j", (name) => {
		expect(isIdentifier(name)).toBe(true);
	});

	it.each(["", "1a", ".a", "-a", "a b", "a(", "é"])("rejects %j", (name) => {
		expect(isIdentifier(name)).toBe(false);
	});

	it("reads an identifier at an offset and reports where it ends", () => {
		expect(readIdentifier("  ls(x)", 2)).toEqual({ name: "ls", end: 4 });
		expect(readIdentifier("  ls(x)", 0)).toBeUndefined();
	});
});

describe("extractFirstBalancedJson", () => {
	it("takes the first opener and its matching closer, skipping quoted brackets", () => {
		const json = '{"a": "}{", "b": [1, {"c": 2}]}';
		const text = `say ${json} and {"d": 1}`;
		expect(extractFirstBalancedJson(text)).toEqual({ start: 4, end: 4 + json.length, text: json });
	});

	it("counts only the chosen bracket kind", () => {
		expect(extractFirstBalancedJson("[ { ]")?.text).toBe("[ { ]");
	});

	it("treats single quotes as quoted runs and honours backslash escapes", () => {
		expect(extractFirstBalancedJson(`{'}' "\\"}" }`)?.text).toBe(`{'}' "\\"}" }`);
	});

	it("starts at `from` and stops at `limit`", () => {
		const text = '{"a":1} {"b":2}';
		expect(extractFirstBalancedJson(text, 1)?.text).toBe('{"b":2}');
		expect(extractFirstBalancedJson(text, 8, 12)).toBeUndefined();
	});

	it("returns undefined when the first opener never closes, even if a later one does", () => {
		expect(extractFirstBalancedJson('{"a": [1, 2] {"b": 1}')).toBeUndefined();
	});
});

describe("BracketMatcher", () => {
	it("answers later queries from what earlier walks learned", () => {
		const text = `${"{".repeat(1000)}x`;
		const matcher = new BracketMatcher(text);
		for (let i = 0; i < 1000; i++) expect(matcher.closeOf("{", i)).toBe(-1);
	});

	it("remembers matches of every kind seen outside quotes", () => {
		const text = '{"a": [1, (2)], "b": "["}';
		const matcher = new BracketMatcher(text);
		expect(matcher.closeOf("{", 0)).toBe(text.length);
		expect(matcher.closeOf("[", 6)).toBe(14);
		expect(matcher.closeOf("(", 10)).toBe(13);
	});

	it("does not report a remembered match that ends past the limit", () => {
		const matcher = new BracketMatcher("(abc)");
		expect(matcher.closeOf("(", 0)).toBe(5);
		expect(matcher.closeOf("(", 0, 4)).toBe(-1);
	});

	it("gives up, answering unbalanced, once its work budget is spent", () => {
		const text = `${"'(".repeat(40_000)}`;
		const matcher = new BracketMatcher(text);
		let unknownQueries = 0;
		for (let i = 1; i < text.length; i += 2) if (matcher.closeOf("(", i) === -1) unknownQueries++;
		expect(unknownQueries).toBe(40_000);
	});
});

describe("findMatchingParen", () => {
	it("is quote-aware", () => {
		const text = `f(a=")", b='(')`;
		expect(findMatchingParen(text, 1)).toBe(text.length);
	});

	it("reads an apostrophe after a letter as text, not as a quote", () => {
		const text = "note(it's fine) and more ' text";
		expect(findMatchingParen(text, 4)).toBe("note(it's fine)".length);
	});

	it("still opens a single-quoted run after punctuation or space", () => {
		const text = "f(a=')', b=1)";
		expect(findMatchingParen(text, 1)).toBe(text.length);
	});
});

describe("maybeParseJsonValue reads a value as JSON only when it starts like one and parses", () => {
	it.each([
		["5", 5],
		["-2.5", -2.5],
		["true", true],
		["null", null],
		["[1]", [1]],
		['{"a":1}', { a: 1 }],
		['"q"', "q"],
		["pwd", "pwd"],
		["truex", "truex"],
		["", ""],
		["-x", "-x"],
		["{broken", "{broken"],
	])("reads %j as %j", (input, expected) => {
		expect(maybeParseJsonValue(input)).toEqual(expected);
	});
});

describe("parseJsonValueOrString", () => {
	it("parses JSON and keeps anything else as the original string", () => {
		expect(parseJsonValueOrString('["x"]')).toEqual(["x"]);
		expect(parseJsonValueOrString("plain")).toBe("plain");
	});
});

describe("normalizeArgumentsObject", () => {
	it("parses JSON text and unwraps a nested arguments key", () => {
		expect(normalizeArgumentsObject('{"arguments": "{\\"a\\": 1}"}')).toEqual({ a: 1 });
		expect(normalizeArgumentsObject({ arguments: { b: 2 } })).toEqual({ b: 2 });
	});

	it("keeps an object whose arguments key does not unwrap to an object", () => {
		expect(normalizeArgumentsObject({ arguments: "text", x: 1 })).toEqual({ arguments: "text", x: 1 });
	});

	it.each([["[1]"], [42], [null], ["not json"], [[1]]])("gives undefined for %j", (value) => {
		expect(normalizeArgumentsObject(value)).toBeUndefined();
	});
});

describe("callFromJsonObject and callsFromJson", () => {
	it("reads the name from name, function_name or function.name", () => {
		expect(callFromJsonObject({ name: " read ", arguments: { p: 1 } })).toEqual({ name: "read", arguments: { p: 1 } });
		expect(callFromJsonObject({ function_name: "ls", args: { p: 2 } })).toEqual({ name: "ls", arguments: { p: 2 } });
		expect(callFromJsonObject({ function: { name: "f", arguments: '{"p":3}' } })).toEqual({
			name: "f",
			arguments: { p: 3 },
		});
		expect(callFromJsonObject({ name: "g", parameters: { p: 4 } })).toEqual({ name: "g", arguments: { p: 4 } });
	});

	it("defaults missing or unusable arguments to {}", () => {
		expect(callFromJsonObject({ name: "x", arguments: 5 })).toEqual({ name: "x", arguments: {} });
	});

	it("rejects blank and non-string names", () => {
		expect(callFromJsonObject({ name: "  " })).toBeUndefined();
		expect(callFromJsonObject({ name: 5 })).toBeUndefined();
		expect(callFromJsonObject({ function: "read" })).toBeUndefined();
	});

	it("makes one call per object of an array and skips the rest", () => {
		expect(callsFromJson([{ name: "a" }, 3, { name: "b" }]).map((c) => c.name)).toEqual(["a", "b"]);
	});
});

describe("pythonic calls", () => {
	it("converts True/False/None, decimals and quoted strings", () => {
		expect(parsePythonicArgs(`a=True, b=False, c=None, d=-3.5, e='it\\'s', f="say \\"hi\\"", g=[1, None]`)).toEqual({
			a: true,
			b: false,
			c: null,
			d: -3.5,
			e: "it's",
			f: 'say "hi"',
			g: [1, null],
		});
	});

	it("ignores positional pieces and non-identifier keys", () => {
		expect(parsePythonicArgs(`x, 'y', 1a=2, ok=1`)).toEqual({ ok: 1 });
	});

	it("keeps raw text it cannot read as JSON", () => {
		expect(parsePythonicArgs("path=some_var")).toEqual({ path: "some_var" });
	});

	it("splits only on top-level commas", () => {
		expect(parsePythonicArgs(`a={"x": 1, "y": 2}, b="c,d"`)).toEqual({ a: { x: 1, y: 2 }, b: "c,d" });
	});

	it("finds line-leading calls, with leading whitespace, and skips the rest", () => {
		const calls = parsePythonicCalls('ls(path="a")\nnot a call\n   read (path="b")\nx = f(1)');
		expect(calls.map((c) => [c.name, c.arguments])).toEqual([
			["ls", { path: "a" }],
			["read", { path: "b" }],
		]);
	});
});

describe("markup helpers", () => {
	it("reads a quoted attribute case-insensitively by name", () => {
		const tag = `invoke NAME='ls' string="false"`;
		expect(attributeValue(tag, 0, tag.length, "name")).toBe("ls");
		expect(attributeValue(tag, 0, tag.length, "string")).toBe("false");
		expect(attributeValue(tag, 0, tag.length, "missing")).toBeUndefined();
	});

	it("does not take an attribute name from the end of a longer word", () => {
		const tag = `xname="a" name="b"`;
		expect(attributeValue(tag, 0, tag.length, "name")).toBe("b");
	});

	it("unwraps one markdown fence", () => {
		expect(unwrapMarkdownFence('```json\n{"a":1}\n```')).toBe('{"a":1}');
		expect(unwrapMarkdownFence("plain")).toBe("plain");
	});

	it("lists line starts", () => {
		expect(lineStarts("a\nbb\n")).toEqual([0, 2, 5]);
	});

	it("lower-cases without moving offsets, even around characters that grow", () => {
		const text = "\u0130ABC<TOOL_CALL>";
		const lower = asciiLowerCase(text);
		expect(lower.length).toBe(text.length);
		expect(lower.indexOf("<tool_call>")).toBe(text.indexOf("<TOOL_CALL>"));
	});

	it("sets __proto__ as an own data key", () => {
		const target: Record<string, unknown> = {};
		defineOwn(target, "__proto__", 1);
		expect(Object.keys(target)).toEqual(["__proto__"]);
		expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
	});
});
