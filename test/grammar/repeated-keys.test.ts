/**
 * JSON a model wrote that gives one key twice in an object is ambiguous:
 * `JSON.parse` keeps the last value, which is a guess at what the model
 * meant (`{"command": "ls", "command": "rm -rf ~"}` would run the second).
 * A leaked call written so is never promoted, in any JSON-speaking family,
 * whether the key is repeated in the arguments, deeper inside them, or in
 * the call object itself; the same text without the repetition is promoted
 * (the control), so each case shows the repetition is what stops it.
 */
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { recoverGrammarLeaks } from "../../src/grammar/recover.ts";
import type { MinimalAssistantMessage } from "../../src/grammar/types.ts";

/** bash's command is a string: a value that fails to read must not reach it as text. */
const SCHEMAS = new Map<string, unknown>([["bash", Type.Object({ command: Type.String() })]]);

function promoted(text: string): unknown[] {
	const message: MinimalAssistantMessage = { role: "assistant", content: [{ type: "text", text }], stopReason: "stop" };
	const { content } = recoverGrammarLeaks(message, {
		mode: "recover",
		knownTools: new Set(["read", "bash", "edit"]),
		toolSchemas: SCHEMAS,
		now: () => 0,
	}).message;
	return content.flatMap((part) =>
		part.type === "toolCall" ? [{ name: part.name, arguments: (part as { arguments: unknown }).arguments }] : [],
	);
}

/** Each case: the leaked text with a repeated key, and the same text with it given once. */
const CASES: Array<[string, string, string]> = [
	[
		"hermes, a repeated argument",
		'<tool_call>{"name": "bash", "arguments": {"command": "ls", "command": "rm -rf ~"}}</tool_call>',
		'<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>',
	],
	[
		"hermes, the key spelled once with an escape",
		'<tool_call>{"name": "bash", "arguments": {"command": "ls", "\\u0063ommand": "rm -rf ~"}}</tool_call>',
		'<tool_call>{"name": "bash", "arguments": {"command": "ls", "\\u0063wd": "/tmp"}}</tool_call>',
	],
	[
		"hermes, a repeated name in the call object",
		'<tool_call>{"name": "read", "name": "bash", "arguments": {"command": "ls"}}</tool_call>',
		'<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>',
	],
	[
		"hermes, a repeated key inside a nested list item",
		'<tool_call>{"name": "edit", "arguments": {"path": "a", "edits": [{"oldText": "a", "oldText": "b", "newText": "c"}]}}</tool_call>',
		'<tool_call>{"name": "edit", "arguments": {"path": "a", "edits": [{"oldText": "a", "newText": "c"}]}}</tool_call>',
	],
	[
		"hermes, arguments as a JSON string with a repeated key",
		'<tool_call>{"name": "bash", "arguments": "{\\"command\\": \\"ls\\", \\"command\\": \\"rm -rf ~\\"}"}</tool_call>',
		'<tool_call>{"name": "bash", "arguments": "{\\"command\\": \\"ls\\"}"}</tool_call>',
	],
	[
		"kimi",
		'<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command":"ls","command":"rm -rf ~"}<|tool_call_end|><|tool_calls_section_end|>',
		'<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:0<|tool_call_argument_begin|>{"command":"ls"}<|tool_call_end|><|tool_calls_section_end|>',
	],
	[
		"harmony",
		'<|start|>assistant<|channel|>commentary to=functions.bash <|constrain|>json<|message|>{"command":"ls","command":"rm -rf ~"}<|call|>',
		'<|start|>assistant<|channel|>commentary to=functions.bash <|constrain|>json<|message|>{"command":"ls"}<|call|>',
	],
	[
		"mistral",
		'[TOOL_CALLS][{"name": "bash", "arguments": {"command": "ls", "command": "rm -rf ~"}}]',
		'[TOOL_CALLS][{"name": "bash", "arguments": {"command": "ls"}}]',
	],
	[
		"pythonic, a dict value that repeats a key (never read as its text either)",
		'<|python_start|>[bash(command={"a": 1, "a": 2})]<|python_end|>',
		'<|python_start|>[bash(command="ls")]<|python_end|>',
	],
	[
		"llama",
		'<|python_tag|>{"name": "bash", "parameters": {"command": "ls", "command": "rm -rf ~"}}<|eom_id|>',
		'<|python_tag|>{"name": "bash", "parameters": {"command": "ls"}}<|eom_id|>',
	],
];

describe("a leaked call whose JSON repeats a key", () => {
	it.each(CASES)("%s: never promoted; the text with the key once is", (_label, repeated, once) => {
		expect(promoted(once)).toHaveLength(1);
		expect(promoted(repeated)).toEqual([]);
	});

	it("keeps a parameter value that repeats a key as the text it is, never reading it as a list", () => {
		const parameters = (edits: string) =>
			`<tool_call>\n<function=edit>\n<parameter=path>\na\n</parameter>\n<parameter=edits>\n${edits}\n</parameter>\n</function>\n</tool_call>`;
		expect(promoted(parameters('[{"oldText": "a", "newText": "c"}]'))).toEqual([
			{ name: "edit", arguments: { path: "a", edits: [{ oldText: "a", newText: "c" }] } },
		]);
		// Promoted with the text as written: the call is then judged, and a list written as text that repeats a key is refused there.
		const repeated = '[{"oldText": "a", "oldText": "b", "newText": "c"}]';
		expect(promoted(parameters(repeated))).toEqual([{ name: "edit", arguments: { path: "a", edits: repeated } }]);
	});
});
