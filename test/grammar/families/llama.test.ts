import { describe, expect, it } from "vitest";
import { parseLlama, parsePythonTagCalls } from "../../../src/grammar/families/llama.ts";
import { createScanContext } from "../../../src/grammar/fences.ts";
import { parseToolGrammarLeaks, recoverGrammarLeaks } from "../../../src/grammar/index.ts";
import * as renderer from "../render/llama.ts";
import { describeFixtures, describeRoundTrip, describeTruncation, runParser } from "./family-fixtures.ts";

describe("<|python_tag|> JSON calls", () => {
	it("reads write_file with the inner object as its arguments", () => {
		const args = { path: "/tmp/a.txt", content: "hello\nworld", overwrite: true };
		const text = `<|python_tag|>${JSON.stringify({ name: "write_file", arguments: args })}`;
		expect(parsePythonTagCalls(createScanContext(text))).toEqual([
			{ name: "write_file", arguments: args, grammar: "llama", start: 0, end: text.length },
		]);
	});

	it("starts the range at the tag, so it wins over the bare-JSON candidate inside it", () => {
		const json = '{"name": "read", "parameters": {"path": "a"}}';
		const text = `<|python_tag|>${json}`;
		const found = runParser(parseLlama, text);
		expect(found.map((candidate) => [candidate.start, candidate.end])).toEqual([
			[0, text.length],
			[text.indexOf(json), text.length],
		]);
	});
});

describe("<|python_tag|> pythonic calls", () => {
	it("reads keyword arguments with Python literals", () => {
		const text = '<|python_tag|>grep(pattern="x", ignore_case=True, limit=5, path=None)';
		expect(runParser(parseLlama, text)).toMatchObject([
			{ name: "grep", arguments: { pattern: "x", ignore_case: true, limit: 5, path: null } },
		]);
	});

	it("ends the range at the end of the line when only whitespace follows the call", () => {
		const text = '<|python_tag|>ls(path=".")   \nNext line.';
		const [call] = runParser(parseLlama, text);
		expect(text.slice(call?.start, call?.end)).toBe('<|python_tag|>ls(path=".")   ');
	});

	it("reads nothing from a call that is not closed on its line", () => {
		expect(runParser(parseLlama, '<|python_tag|>ls(path="."\n)')).toEqual([]);
	});
});

describe("bare JSON labelled llama", () => {
	it("reports a bare call object under the llama label", () => {
		const text = 'Reading: {"name": "read", "arguments": {"path": "a"}}';
		expect(runParser(parseLlama, text)).toMatchObject([{ name: "read", grammar: "llama" }]);
	});
});

describe("Llama 4 <|python_start|> blocks", () => {
	it("labels the call llama, not mistral, with every family enabled", () => {
		const text = 'Reading.\n<|python_start|>{"name": "read", "parameters": {"path": "a"}}<|python_end|>';
		expect(parseToolGrammarLeaks(text)).toEqual([{ name: "read", arguments: { path: "a" }, grammar: "llama" }]);
	});

	it("strips the whole block, tokens included, when the call is promoted", () => {
		const text = 'Listing.\n<|python_start|>[ls(path=".")]<|python_end|>';
		const result = recoverGrammarLeaks(
			{ role: "assistant", content: [{ type: "text", text }], stopReason: "stop" },
			{ mode: "recover", knownTools: new Set(["ls"]) },
		);
		expect(result.recoveredCalls).toEqual([{ name: "ls", arguments: { path: "." }, grammar: "llama" }]);
		expect(result.message.content[0]).toEqual({ type: "text", text: "Listing." });
	});
});

describeFixtures("llama", "llama", parseLlama);
describeTruncation("llama", parseLlama);
describeRoundTrip("llama", "llama", parseLlama, renderer);
