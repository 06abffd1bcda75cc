import { describe, expect, it } from "vitest";
import { parseGemma } from "../../../src/grammar/families/gemma.ts";
import { recoverGrammarLeaks } from "../../../src/grammar/index.ts";
import type { MinimalAssistantMessage } from "../../../src/grammar/types.ts";
import * as renderer from "../render/gemma.ts";
import { describeFixtures, describeRoundTrip, describeTruncation, runParser } from "./family-fixtures.ts";

const block = (body: string) => `<|tool_call>${body}<tool_call|>`;

describe("gemma argument objects", () => {
	it("reads the documented call", () => {
		const text = block('call:read{path:<|"|>src/index.ts<|"|>,limit:20}');
		expect(runParser(parseGemma, text)).toEqual([
			{ name: "read", arguments: { path: "src/index.ts", limit: 20 }, grammar: "gemma", start: 0, end: text.length },
		]);
	});

	it("keeps string content verbatim, markup-like text included", () => {
		const content = 'a "quoted", {braced} [listed] <tool_call|> line\n  two';
		expect(runParser(parseGemma, block(`call:write{content:<|"|>${content}<|"|>}`))).toMatchObject([
			{ name: "write", arguments: { content } },
		]);
	});

	it.each([
		["bare words", "call:read{path:src}"],
		["a missing colon", 'call:read{path <|"|>a<|"|>}'],
		["an unclosed object", 'call:read{path:<|"|>a<|"|>'],
		["a missing call: prefix", 'read{path:<|"|>a<|"|>}'],
		["a number with a trailing dot word", "call:read{limit:5x}"],
		["a JSON body that is not a call", '{"path":"a"}'],
	])("reads no call from a body with %s", (_label, body) => {
		expect(runParser(parseGemma, block(body))).toEqual([]);
	});

	it("rejects nesting deeper than the cap instead of recursing without bound", () => {
		const deep = `call:x{a:${"[".repeat(200)}${"]".repeat(200)}}`;
		expect(runParser(parseGemma, block(deep))).toEqual([]);
		const shallow = `call:x{a:${"[".repeat(10)}${"]".repeat(10)}}`;
		expect(runParser(parseGemma, block(shallow))).toHaveLength(1);
	});
});

describe("gemma openers and closers", () => {
	it("marks an opener without a closer as a strip-only marker over the opener", () => {
		const text = 'Reading.\n<|tool_call>call:read{path:<|"|>a';
		expect(runParser(parseGemma, text)).toEqual([
			{ name: "", arguments: {}, grammar: "gemma", start: 9, end: 9 + "<|tool_call>".length, stripOnly: true },
		]);
	});

	it("reads several blocks in a row, each with its own range", () => {
		const a = block('call:read{path:<|"|>a<|"|>}');
		const b = block('call:read{path:<|"|>b<|"|>}');
		const found = runParser(parseGemma, `${a}\n${b}`);
		expect(found.map((candidate) => [candidate.start, candidate.end])).toEqual([
			[0, a.length],
			[a.length + 1, a.length + 1 + b.length],
		]);
	});

	it("reads a plain JSON array body as one call per element", () => {
		const text = block('[{"name":"read","arguments":{"path":"a"}},{"name":"ls","arguments":{"path":"b"}}]');
		expect(runParser(parseGemma, text).map((candidate) => candidate.name)).toEqual(["read", "ls"]);
	});
});

describeFixtures("gemma", "gemma", parseGemma);
describeTruncation("gemma", parseGemma);
describeRoundTrip("gemma", "gemma", parseGemma, renderer);

describe("gemma through the recovery driver", () => {
	const message = (text: string): MinimalAssistantMessage => ({
		role: "assistant",
		content: [{ type: "text", text }],
		stopReason: "stop",
	});
	const options = { mode: "recover" as const, knownTools: new Set(["read"]), now: () => 0 };

	it("promotes a native call to a real tool call", () => {
		const result = recoverGrammarLeaks(message(`On it.\n${block('call:read{path:<|"|>a.md<|"|>,limit:3}')}`), options);
		expect(result.promoted).toBe(true);
		expect(result.message.content).toEqual([
			{ type: "text", text: "On it." },
			{
				type: "toolCall",
				id: expect.stringMatching(/^tool_repair_gemma_/),
				name: "read",
				arguments: { path: "a.md", limit: 3 },
			},
		]);
	});

	it("removes a dangling opener but never turns it into a call", () => {
		const result = recoverGrammarLeaks(message('On it.\n<|tool_call>call:read{path:<|"|>a.m'), options);
		expect(result).toMatchObject({ changed: true, promoted: false });
		expect(result.message.content).toEqual([{ type: "text", text: 'On it.\ncall:read{path:<|"|>a.m' }]);
	});
});
