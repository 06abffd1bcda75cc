/**
 * A promoted value is the model's bytes, and a value that is not clearly
 * delimited is never cut or spliced into a call.
 */
import { describe, expect, it } from "vitest";
import { recoverGrammarLeaks } from "../../src/grammar/index.ts";
import type { MinimalAssistantMessage } from "../../src/grammar/types.ts";

const writeSchema = {
	type: "object",
	properties: { path: { type: "string" }, content: { type: "string" } },
	required: ["path", "content"],
};
const versionSchema = { type: "object", properties: { version: { type: "string" } } };

function recover(text: string) {
	const message: MinimalAssistantMessage = { role: "assistant", content: [{ type: "text", text }], stopReason: "stop" };
	return recoverGrammarLeaks(message, {
		mode: "recover",
		knownTools: new Set(["write", "tag"]),
		toolSchemas: new Map<string, unknown>([
			["write", writeSchema],
			["tag", versionSchema],
		]),
		now: () => 0,
	});
}

const qwen = (name: string, params: string) => `<tool_call>\n<function=${name}>\n${params}\n</function>\n</tool_call>`;

describe("a promoted value is the model's bytes", () => {
	it("keeps indentation and trailing newlines beyond the one newline the element form adds", () => {
		const content = "    indented first line\n\tsecond\n\n";
		const result = recover(
			qwen("write", `<parameter=path>\na.py\n</parameter>\n<parameter=content>\n${content}\n</parameter>`),
		);
		expect(result.recoveredCalls).toEqual([{ name: "write", arguments: { path: "a.py", content }, grammar: "qwen" }]);
	});

	it("keeps a JSON string literal written for a string field as written", () => {
		const result = recover(qwen("tag", '<parameter=version>\n"1.2.3"\n</parameter>'));
		expect(result.recoveredCalls[0]?.arguments).toEqual({ version: '"1.2.3"' });
	});

	it("keeps an invoke value's bytes", () => {
		const content = "  x = 1\n";
		const text = `<invoke name="write">\n<parameter name="path">a.py</parameter>\n<parameter name="content">\n${content}\n</parameter>\n</invoke>`;
		expect(recover(text).recoveredCalls[0]?.arguments).toEqual({ path: "a.py", content });
	});
});

describe("an ambiguous value is stripped or observed, never cut or spliced", () => {
	it.each([
		[
			"a value holding its own family's closing tag",
			qwen(
				"write",
				"<parameter=path>\nnotes.xml\n</parameter>\n<parameter=content>\n<a></parameter>\nrm -rf ~\n</parameter>",
			),
		],
		[
			"text after the last parameter",
			qwen("write", "<parameter=path>\na.txt\n</parameter>\n<parameter=content>\nhi\n</parameter>\nand more"),
		],
		[
			"a closer with no opener",
			qwen("write", "<parameter=path>\na.txt\n</parameter>\n</parameter>\n<parameter=content>\nhi\n</parameter>"),
		],
		[
			"a nested parameter opener inside a value",
			qwen("write", "<parameter=path>\na.txt\n<parameter=content>\nhi\n</parameter>"),
		],
	])("%s", (_label, text) => {
		const result = recover(text);
		expect(result.promoted).toBe(false);
		expect(result.message.content.some((part) => part.type === "toolCall")).toBe(false);
	});

	it("does not run an invoke whose value holds a stray parameter closer", () => {
		const text = `<invoke name="write">\n<parameter name="path">a.xml</parameter>\n<parameter name="content"><a></parameter>rm -rf ~</parameter>\n</invoke>`;
		expect(recover(text).promoted).toBe(false);
	});
});

describe("DSML values", () => {
	const BAR = "\uff5c";
	it("does not run a DSML invoke whose value holds its own parameter closer", () => {
		const text = [
			`<${BAR}DSML${BAR}tool_calls>`,
			`<${BAR}DSML${BAR}invoke name="write">`,
			`<${BAR}DSML${BAR}parameter name="path" string="true">a.xml</${BAR}DSML${BAR}parameter>`,
			`<${BAR}DSML${BAR}parameter name="content" string="true"><a></${BAR}DSML${BAR}parameter>rm -rf ~</${BAR}DSML${BAR}parameter>`,
			`</${BAR}DSML${BAR}invoke>`,
			`</${BAR}DSML${BAR}tool_calls>`,
		].join("\n");
		expect(recover(text).promoted).toBe(false);
	});
});

const glm = (name: string, pairs: string) => `<tool_call>${name}\n${pairs}\n</tool_call>`;
const glmPair = (key: string, value: string) => `<arg_key>${key}</arg_key>\n<arg_value>${value}</arg_value>`;

describe("GLM values", () => {
	it("keeps indentation and trailing newlines beyond the one newline the element form adds", () => {
		const content = "    indented first line\n\tsecond\n\n";
		const result = recover(glm("write", `${glmPair("path", "a.py")}\n${glmPair("content", `\n${content}\n`)}`));
		expect(result.recoveredCalls).toEqual([{ name: "write", arguments: { path: "a.py", content }, grammar: "glm" }]);
	});

	it("keeps surrounding spaces of an inline value", () => {
		const result = recover(glm("write", `${glmPair("path", "a.py")}\n${glmPair("content", "  x = 1  ")}`));
		expect(result.recoveredCalls[0]?.arguments).toEqual({ path: "a.py", content: "  x = 1  " });
	});

	it("keeps a JSON string literal written for a string field as written", () => {
		const result = recover(glm("tag", glmPair("version", '"1.2.3"')));
		expect(result.recoveredCalls[0]?.arguments).toEqual({ version: '"1.2.3"' });
	});

	it.each([
		[
			"a value holding its own family's closing tag",
			glm("write", `${glmPair("path", "notes.xml")}\n${glmPair("content", "<a></arg_value>\nrm -rf ~\n")}`),
		],
		[
			"text after the last parameter",
			glm("write", `${glmPair("path", "a.txt")}\n${glmPair("content", "hi")}\nand more`),
		],
		["a closer with no opener", glm("write", `${glmPair("path", "a.txt")}\n</arg_value>\n${glmPair("content", "hi")}`)],
		[
			"a key closer with no opener",
			glm("write", `${glmPair("path", "a.txt")}\n</arg_key>\n${glmPair("content", "hi")}`),
		],
		[
			"a nested value opener inside a value",
			glm("write", `<arg_key>path</arg_key>\n<arg_value>a.txt\n${glmPair("content", "hi")}`),
		],
		["text between parameters", glm("write", `${glmPair("path", "a.txt")}\nso\n${glmPair("content", "hi")}`)],
		["a value never closed", glm("write", `${glmPair("path", "a.txt")}\n<arg_key>content</arg_key>\n<arg_value>hi`)],
	])("does not run %s", (_label, text) => {
		const result = recover(text);
		expect(result.promoted).toBe(false);
		expect(result.message.content.some((part) => part.type === "toolCall")).toBe(false);
	});
});

const xtmlCall = (name: string, args: string) =>
	`<|open|>tools<|sep|><|open|>call tool="${name}" index="1"<|sep|>${args}<|close|>call<|sep|><|close|>tools<|sep|>`;
const xtmlArg = (key: string, value: string, type?: string) =>
	`<|open|>argument key="${key}"${type === undefined ? "" : ` type="${type}"`}<|sep|>${value}<|close|>argument<|sep|>`;

describe("Kimi XTML values", () => {
	it("keeps an untyped value's indentation and trailing newlines", () => {
		const content = "    indented first line\n\tsecond\n\n";
		const result = recover(xtmlCall("write", `${xtmlArg("path", "a.py")}${xtmlArg("content", content)}`));
		expect(result.recoveredCalls).toEqual([
			{ name: "write", arguments: { path: "a.py", content }, grammar: "kimi-xtml" },
		]);
	});

	it("keeps an untyped JSON string literal written for a string field as written", () => {
		const result = recover(xtmlCall("tag", xtmlArg("version", '"1.2.3"')));
		expect(result.recoveredCalls[0]?.arguments).toEqual({ version: '"1.2.3"' });
	});

	it.each([
		[
			"a value holding its own family's closing tag",
			xtmlCall(
				"write",
				`${xtmlArg("path", "a.xml")}${xtmlArg("content", "<a><|close|>argument<|sep|>rm -rf ~", "string")}`,
			),
		],
		[
			"text after the last parameter",
			xtmlCall("write", `${xtmlArg("path", "a.txt")}${xtmlArg("content", "hi")}and more`),
		],
		[
			"a closer with no opener",
			xtmlCall("write", `${xtmlArg("path", "a.txt")}<|close|>argument<|sep|>${xtmlArg("content", "hi")}`),
		],
	])("does not run %s", (_label, text) => {
		const result = recover(text);
		expect(result.promoted).toBe(false);
		expect(result.message.content.some((part) => part.type === "toolCall")).toBe(false);
	});
});

describe("a value that spells further parameters of its own family", () => {
	// A written file that holds its family's closer followed by well-formed parameters tiles the body
	// exactly; only the key written twice shows that a value's end is not where it seems.
	it.each([
		[
			"qwen",
			qwen(
				"write",
				"<parameter=path>\na.txt\n</parameter>\n<parameter=content>\nx\n</parameter>\n<parameter=path>\n.bashrc\n</parameter>",
			),
		],
		["glm", glm("write", `${glmPair("path", "a.txt")}\n${glmPair("content", "x")}\n${glmPair("path", ".bashrc")}`)],
		["gemma", '<|tool_call>call:write{path:<|"|>a.txt<|"|>,content:<|"|>x<|"|>,path:<|"|>.bashrc<|"|>}<tool_call|>'],
		[
			"invoke",
			`<invoke name="write">\n<parameter name="path">a.txt</parameter>\n<parameter name="content">x</parameter>\n<parameter name="path">.bashrc</parameter>\n</invoke>`,
		],
		// Python keeps the last of two keyword arguments of one name; the model's own call is ambiguous.
		["llama (python_start)", '<|python_start|>write(path="a.txt", content="x", path=".bashrc")<|python_end|>'],
		["llama (pythonic list)", '<|python_start|>[write(path="a.txt", content="x", path=".bashrc")]<|python_end|>'],
		["llama (python_tag)", '<|python_tag|>write(path="a.txt", content="x", path=".bashrc")'],
		["olmo", '<function_calls>\nwrite(path="a.txt", content="x", path=".bashrc")\n</function_calls>'],
		["granite", 'write(path="a.txt", content="x", path=".bashrc")'],
	])("%s: a key written twice never runs", (_family, text) => {
		const result = recover(text);
		expect(result.promoted).toBe(false);
		expect(result.message.content.some((part) => part.type === "toolCall")).toBe(false);
	});
});

describe("bracket-less invoke values (the angle brackets were lost)", () => {
	it("keeps a value's indentation and newlines; only the lost closer's residue goes", () => {
		const content = "    def f():\n        pass\n";
		const text = `invoke name="write">\nparameter name="path">a.py parameter>\nparameter name="content">\n${content}\n/parameter>\n/invoke>`;
		expect(recover(text).recoveredCalls[0]?.arguments).toEqual({ path: "a.py", content });
	});

	it("does not run a call whose key comes twice", () => {
		const text = `invoke name="write">\nparameter name="path">a.txt parameter>\nparameter name="content">x parameter>\nparameter name="path">.bashrc parameter>\n/invoke>`;
		expect(recover(text).promoted).toBe(false);
	});
});

describe("a value that held its call's own closer", () => {
	// The call seems to end early; the rest of the value and the real closers follow it as stray text.
	it.each([
		[
			"qwen in a wrapper",
			"<tool_call>\n<function=write>\n<parameter=path>\na.txt\n</parameter>\n<parameter=content>\na\n</parameter>\n</function>\nrm -rf\n</parameter>\n</function>\n</tool_call>",
		],
		[
			"bare qwen",
			"<function=write>\n<parameter=path>\na.txt\n</parameter>\n<parameter=content>\na\n</parameter>\n</function>\nrm -rf\n</parameter>\n</function>",
		],
		[
			"glm",
			`${glm("write", `${glmPair("path", "a.txt")}\n${glmPair("content", "a")}`)}\nrm -rf</arg_value>\n</tool_call>`,
		],
	])("%s never runs a cut value", (_label, text) => {
		const result = recover(text);
		expect(result.promoted).toBe(false);
		expect(result.message.content.some((part) => part.type === "toolCall")).toBe(false);
	});
});

describe("an invoke whose value held its own closer", () => {
	it.each([
		[
			"wrapped",
			`<function_calls>\n<invoke name="write">\n<parameter name="path">a.txt</parameter>\n<parameter name="content">a</parameter>\n</invoke>\nrm -rf</parameter>\n</invoke>\n</function_calls>`,
		],
		[
			"standalone",
			`<invoke name="write">\n<parameter name="path">a.txt</parameter>\n<parameter name="content">a</parameter>\n</invoke>\nrm -rf</parameter>\n</invoke>`,
		],
	])("%s never runs a cut value", (_label, text) => {
		const result = recover(text);
		expect(result.promoted).toBe(false);
		expect(result.message.content.some((part) => part.type === "toolCall")).toBe(false);
	});
});
