import { describe, expect, it } from "vitest";
import { parseToolCallWrappers } from "../../../src/grammar/families/tool-call-wrapper.ts";
import { createScanContext } from "../../../src/grammar/fences.ts";
import * as renderer from "../render/qwen.ts";
import { describeFixtures, describeRoundTrip, describeTruncation } from "./family-fixtures.ts";
import { qwenParser } from "./selected-parsers.ts";

describeFixtures("qwen", "qwen", qwenParser);
describeTruncation("qwen", qwenParser);
describeRoundTrip("qwen", "qwen", qwenParser, renderer);

describe("qwen JSON bodies in tool_call", () => {
	const text = '<tool_call>{"name": "read", "arguments": {"path": "a"}}</tool_call>';

	it("labels a JSON object body qwen (Qwen/Hermes), with every family enabled", () => {
		expect(parseToolCallWrappers(createScanContext(text)).map((c) => c.grammar)).toEqual(["qwen"]);
	});

	it("labels a JSON array body granite (Granite's call list)", () => {
		const list = '<tool_call>[{"name": "read", "arguments": {"path": "a"}}]</tool_call>';
		expect(parseToolCallWrappers(createScanContext(list)).map((c) => c.grammar)).toEqual(["granite"]);
	});

	it("labels them qwen when granite is disabled", () => {
		const found = parseToolCallWrappers(createScanContext(text, ["qwen", "glm"]));
		expect(found).toMatchObject([{ grammar: "qwen", name: "read", arguments: { path: "a" } }]);
	});
});
