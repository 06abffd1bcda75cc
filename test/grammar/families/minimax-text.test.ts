import { describe, expect, it } from "vitest";
import { parseMinimaxText } from "../../../src/grammar/families/minimax-text.ts";
import * as renderer from "../render/minimax-text.ts";
import { describeFixtures, describeRoundTrip, describeTruncation, runParser } from "./family-fixtures.ts";

describe("minimax-text <function_call> blocks", () => {
	it("reads the documented fenced form and covers it through the closing fence", () => {
		const block = '<function_call>```typescript\nfunctions.read({"path": "CHANGELOG.md"})\n```';
		const text = `Fetching.\n${block}\nMore text.`;
		const found = runParser(parseMinimaxText, text);
		expect(found).toEqual([
			{
				name: "read",
				arguments: { path: "CHANGELOG.md" },
				grammar: "minimax-text",
				start: text.indexOf(block),
				end: text.indexOf(block) + block.length,
			},
		]);
	});

	it("does not reach for a later, unrelated fence when the call itself was not fenced", () => {
		const call = '<function_call>functions.ls({"path": "."})';
		const text = `${call}\n\nprose\n\`\`\`sh\necho hi\n\`\`\``;
		const [found] = runParser(parseMinimaxText, text);
		expect(text.slice(found?.start, found?.end)).toBe(call);
	});

	it("reads a paren inside a JSON string without ending the call early", () => {
		const text = '<function_call>functions.bash({"command": "echo \\"(x\\""})';
		expect(runParser(parseMinimaxText, text)).toMatchObject([{ name: "bash", arguments: { command: 'echo "(x"' } }]);
	});

	it("ties a functions call to the nearest opener before it", () => {
		const text = '<function_call> mentioned\n<function_call>functions.ls({"path": "a"})';
		const [found] = runParser(parseMinimaxText, text);
		expect(found?.start).toBe(text.lastIndexOf("<function_call>"));
	});
});

describeFixtures("minimax-text", "minimax-text", parseMinimaxText);
describeTruncation("minimax-text", parseMinimaxText);
describeRoundTrip("minimax-text", "minimax-text", parseMinimaxText, renderer);
