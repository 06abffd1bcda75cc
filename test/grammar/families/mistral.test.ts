import { describe, expect, it } from "vitest";
import { parseLlama } from "../../../src/grammar/families/llama.ts";
import { parseBareJsonCalls, parseMistral } from "../../../src/grammar/families/mistral.ts";
import { createScanContext } from "../../../src/grammar/fences.ts";
import { selectCandidates } from "../../../src/grammar/select.ts";
import * as renderer from "../render/mistral.ts";
import { describeFixtures, describeRoundTrip, describeTruncation, runParser } from "./family-fixtures.ts";

describe("bare JSON seen by mistral and llama", () => {
	const call = '{"name": "read", "arguments": {"path": "README.md"}}';
	const text = `Let me read it.\n${call}`;

	it("reports the same call with the identical range under both labels, so selection can promote it once", () => {
		const start = text.indexOf(call);
		const expected = { name: "read", arguments: { path: "README.md" }, start, end: start + call.length };
		expect(runParser(parseMistral, text)).toEqual([{ ...expected, grammar: "mistral" }]);
		expect(runParser(parseLlama, text)).toEqual([{ ...expected, grammar: "llama" }]);
	});

	it("leaves one call after selection over both families' candidates", () => {
		const context = createScanContext(text);
		const selected = selectCandidates([...parseMistral(context), ...parseLlama(context)]);
		expect(selected.map((candidate) => [candidate.name, candidate.grammar])).toEqual([["read", "mistral"]]);
	});

	it("labels the shared scan with the grammar it is asked for", () => {
		const context = createScanContext(text);
		expect(parseBareJsonCalls(context, "llama").map((candidate) => candidate.grammar)).toEqual(["llama"]);
		expect(parseBareJsonCalls(context, "mistral").map((candidate) => candidate.grammar)).toEqual(["mistral"]);
	});

	it("reports an array of calls once per element, all with the array's range", () => {
		const array = '[{"name": "read", "arguments": {"path": "a"}}, {"name": "read", "arguments": {"path": "b"}}]';
		const found = runParser(parseMistral, array);
		expect(found.map((candidate) => [candidate.start, candidate.end])).toEqual([
			[0, array.length],
			[0, array.length],
		]);
	});

	it("does not report call objects nested in a balanced JSON value on their own", () => {
		const text = '{"name": "outer", "arguments": {"inner": {"name": "read", "arguments": {"path": "a"}}}}';
		expect(runParser(parseMistral, text).map((candidate) => candidate.name)).toEqual(["outer"]);
	});

	it("finds a later call after an unbalanced one", () => {
		const later = '{"name": "ls", "arguments": {"path": "."}}';
		const text = `{"name": "read", "arguments": {"path": "a"\nthen ${later}`;
		expect(runParser(parseMistral, text).map((candidate) => candidate.name)).toEqual(["ls"]);
	});
});

describe("[TOOL_CALLS] marker forms", () => {
	it("covers the marker through the end of the array", () => {
		const text = 'ok [TOOL_CALLS] [{"name": "find", "arguments": {"pattern": "*.md"}}] done';
		const [marker] = runParser(parseMistral, text);
		expect(text.slice(marker?.start, marker?.end)).toBe(
			'[TOOL_CALLS] [{"name": "find", "arguments": {"pattern": "*.md"}}]',
		);
	});

	it("reads the V11 form with a call id and normalizes stringified arguments", () => {
		const text = '[TOOL_CALLS]bash[CALL_ID]x1[ARGS]"{\\"command\\": \\"ls\\"}"';
		expect(runParser(parseMistral, text)).toEqual([]);
		const object = '[TOOL_CALLS]bash[CALL_ID]x1[ARGS]{"arguments": "{\\"command\\": \\"ls\\"}"}';
		expect(runParser(parseMistral, object)).toMatchObject([{ name: "bash", arguments: { command: "ls" } }]);
	});

	it("never borrows JSON from text after a bare marker", () => {
		expect(runParser(parseMistral, '[TOOL_CALLS] then prose {"path": "a"}')).toEqual([]);
	});
});

describeFixtures("mistral", "mistral", parseMistral);
describeTruncation("mistral", parseMistral);
describeRoundTrip("mistral", "mistral", parseMistral, renderer);
