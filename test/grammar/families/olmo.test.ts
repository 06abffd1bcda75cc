import { describe, expect, it } from "vitest";
import { parseOlmo } from "../../../src/grammar/families/olmo.ts";
import * as renderer from "../render/olmo.ts";
import { describeFixtures, describeRoundTrip, describeTruncation, runParser } from "./family-fixtures.ts";

describe("olmo <function_calls> blocks", () => {
	it("reads overwrite=True as true", () => {
		const text = '<function_calls>\nwrite_file(path="/tmp/a", content="hello", overwrite=True)\n</function_calls>';
		expect(runParser(parseOlmo, text)).toEqual([
			{
				name: "write_file",
				arguments: { path: "/tmp/a", content: "hello", overwrite: true },
				grammar: "olmo",
				start: 0,
				end: text.length,
			},
		]);
	});

	it("gives every call of one block the block's range", () => {
		const text = 'x\n<function_calls>\nls(path="a")\nls(path="b")\n</function_calls>\ny';
		const found = runParser(parseOlmo, text);
		const start = text.indexOf("<function_calls>");
		const end = text.indexOf("</function_calls>") + "</function_calls>".length;
		expect(found.map((candidate) => [candidate.start, candidate.end])).toEqual([
			[start, end],
			[start, end],
		]);
	});

	it("reads only line-leading calls, not calls in the middle of a line", () => {
		const text = '<function_calls>\nnote: ls(path="a")\nread(path="b")\n</function_calls>';
		expect(runParser(parseOlmo, text).map((candidate) => candidate.arguments)).toEqual([{ path: "b" }]);
	});
});

describeFixtures("olmo", "olmo", parseOlmo);
describeTruncation("olmo", parseOlmo);
describeRoundTrip("olmo", "olmo", parseOlmo, renderer);
