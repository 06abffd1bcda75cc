import { describe, expect, it } from "vitest";
import { GRAMMAR_NAMES, parseToolGrammarLeaks } from "../../src/grammar/index.ts";

const BAR = "\uff5c";

describe("parseToolGrammarLeaks reads each family's canonical call and nothing quoted or truncated", () => {
	it("reads a double-bar and a single-bar DSML block in order", () => {
		const b2 = `${BAR}${BAR}`;
		const text = [
			`<${b2}DSML${b2}tool_calls>`,
			`<${b2}DSML${b2}invoke name="code_exec">`,
			`<${b2}DSML${b2}parameter name="language" string="true">python</${b2}DSML${b2}parameter>`,
			`</${b2}DSML${b2}invoke>`,
			`</${b2}DSML${b2}tool_calls>`,
			`<${BAR}DSML${BAR}tool_calls>`,
			`<${BAR}DSML${BAR}invoke name="fetch">`,
			`<${BAR}DSML${BAR}parameter name="url" string="false">["x"]</${BAR}DSML${BAR}parameter>`,
			`</${BAR}DSML${BAR}invoke>`,
			`</${BAR}DSML${BAR}tool_calls>`,
		].join("\n");
		expect(parseToolGrammarLeaks(text)).toEqual([
			{ name: "code_exec", arguments: { language: "python" }, grammar: "dsml" },
			{ name: "fetch", arguments: { url: ["x"] }, grammar: "dsml" },
		]);
	});

	it("reads a qwen function in a tool_call wrapper", () => {
		const text =
			"<tool_call>\n<function=get_weather>\n<parameter=location>\nParis\n</parameter>\n</function>\n</tool_call>";
		expect(parseToolGrammarLeaks(text)).toEqual([
			{ name: "get_weather", arguments: { location: "Paris" }, grammar: "qwen" },
		]);
	});

	it("reads a kimi section", () => {
		const text =
			'<|tool_calls_section_begin|><|tool_call_begin|>functions.web_search:0<|tool_call_argument_begin|>{"query":"pi"}<|tool_call_end|><|tool_calls_section_end|>';
		expect(parseToolGrammarLeaks(text)).toEqual([{ name: "web_search", arguments: { query: "pi" }, grammar: "kimi" }]);
	});

	it("reads a glm arg_key/arg_value body", () => {
		const text = "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n</tool_call>";
		expect(parseToolGrammarLeaks(text)).toEqual([
			{ name: "get_weather", arguments: { city: "Beijing" }, grammar: "glm" },
		]);
	});

	it("reads a llama python_tag call with the inner object as arguments", () => {
		const text = '<|python_tag|>{"name":"write_file","arguments":{"path":"/tmp/a","content":"hi"}}';
		expect(parseToolGrammarLeaks(text)).toEqual([
			{ name: "write_file", arguments: { path: "/tmp/a", content: "hi" }, grammar: "llama" },
		]);
	});

	it("reads an olmo function_calls block with True as true", () => {
		const text = '<function_calls>\nwrite_file(path="/tmp/a", content="hello", overwrite=True)\n</function_calls>';
		expect(parseToolGrammarLeaks(text)).toEqual([
			{ name: "write_file", arguments: { path: "/tmp/a", content: "hello", overwrite: true }, grammar: "olmo" },
		]);
	});

	it("finds nothing in a tool_call JSON block inside an xml fence", () => {
		const text = '```xml\n<tool_call>{"name": "read", "arguments": {"path": "a"}}</tool_call>\n```';
		expect(parseToolGrammarLeaks(text)).toEqual([]);
	});

	it("finds nothing in a truncated DSML opener", () => {
		expect(parseToolGrammarLeaks(`I'll read.\n<${BAR}DSML${BAR}tool_calls`)).toEqual([]);
	});
});

describe("a text read by two families gives one call", () => {
	it("reports a bare JSON call once although mistral and llama both read it", () => {
		const text = 'Sure.\n{"name": "read", "arguments": {"path": "a"}}';
		expect(parseToolGrammarLeaks(text)).toEqual([{ name: "read", arguments: { path: "a" }, grammar: "mistral" }]);
	});

	it("reports a bare JSON array of two calls as two calls, not four", () => {
		const text = '[{"name": "read", "arguments": {"path": "a"}}, {"name": "read", "arguments": {"path": "a"}}]';
		expect(parseToolGrammarLeaks(text).map((c) => c.grammar)).toEqual(["mistral", "mistral"]);
	});

	it("labels bare JSON llama when mistral is disabled", () => {
		const text = '{"name": "read", "arguments": {"path": "a"}}';
		const grammars = GRAMMAR_NAMES.filter((g) => g !== "mistral");
		expect(parseToolGrammarLeaks(text, grammars).map((c) => c.grammar)).toEqual(["llama"]);
	});
});

describe("enabled families", () => {
	it("runs only the families it is given", () => {
		const text = "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Rome</arg_value>\n</tool_call>";
		expect(parseToolGrammarLeaks(text, ["qwen"])).toEqual([]);
		expect(parseToolGrammarLeaks(text, ["glm"])).toHaveLength(1);
	});

	it("ignores names that are not families", () => {
		expect(parseToolGrammarLeaks("<tool_call>x</tool_call>", ["nope" as never])).toEqual([]);
	});
});

describe("bad input", () => {
	it.each([
		["empty text", ""],
		["binary", "\u0000\u0001\uffff\ud800<tool_call>\u0000"],
		["half-written markup", "<tool_call><function=read><parameter=path>a"],
		["unbalanced quotes", `{"name": "read", "arguments": {"path": "a}`],
	])("returns no calls for %s without throwing", (_label, text) => {
		expect(parseToolGrammarLeaks(text)).toEqual([]);
	});

	it("returns [] for a non-string", () => {
		expect(parseToolGrammarLeaks(42 as unknown as string)).toEqual([]);
	});
});
