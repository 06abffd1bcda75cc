/**
 * Each grammar family's own tokens, for the checks that run over every family
 * the registry knows (`every-family.test.ts`): `units` are repeated without
 * closers for the adversarial run, `tokens` are mixed into token soups. Keyed
 * by grammar name, so a family added to the registry without a row here fails
 * the type check and the coverage test.
 */
import type { GrammarName } from "../../../src/grammar/types.ts";

export interface FamilyTokens {
	/** Markup opened and never closed, repeated to 256 KiB. */
	units: readonly string[];
	/** The family's tokens, mixed with JSON punctuation and short strings. */
	tokens: readonly string[];
}

export const FAMILY_TOKENS: Readonly<Record<GrammarName, FamilyTokens>> = {
	dsml: {
		units: [
			"<\uff5cDSML\uff5ctool_calls>",
			'<\uff5cDSML\uff5cinvoke name="a">',
			'<\uff5cDSML\uff5ctool_calls><\uff5cDSML\uff5cinvoke name="a"><\uff5cDSML\uff5cparameter name="b" string="true">',
			"</\uff5cDSML\uff5cparameter>",
			"<\uff5cDSML\uff5c",
		],
		tokens: [
			"<\uff5cDSML\uff5ctool_calls>",
			"</\uff5cDSML\uff5ctool_calls>",
			'<\uff5cDSML\uff5cinvoke name="read">',
			"</\uff5cDSML\uff5cinvoke>",
			'<\uff5cDSML\uff5cparameter name="path" string="true">',
			'<\uff5cDSML\uff5cparameter name="limit" string="false">',
			"</\uff5cDSML\uff5cparameter>",
			"\uff5cDSML\uff5c",
			"<\uff5cDSML\uff5cdebris>",
			"</\uff5cDSML\uff5cdebris>",
		],
	},
	kimi: {
		units: [
			"<|tool_calls_section_begin|>",
			"<|tool_call_begin|>x<|tool_call_argument_begin|>{",
			"<|tool_calls_section_begin|><|tool_call_begin|>",
		],
		tokens: [
			"<|tool_calls_section_begin|>",
			"<|tool_call_section_end|>",
			"<|tool_calls_section_end|>",
			"<|tool_call_begin|>",
			"<|tool_call_argument_begin|>",
			"<|tool_call_end|>",
			"functions.read:0",
			"call_1",
			'{"path":"a"}',
		],
	},
	mistral: {
		units: [
			'{"name":',
			'[{"name": "x", ',
			"[TOOL_CALLS]",
			"[TOOL_CALLS] [{",
			"[TOOL_CALLS]a[CALL_ID]",
			'[TOOL_CALLS]a[ARGS]{"',
		],
		tokens: [
			"[TOOL_CALLS]",
			"[CALL_ID]",
			"[ARGS]",
			'{"name":"read"',
			'"arguments":',
			'{"path":"a"}',
			"read",
			'[{"name":',
		],
	},
	"minimax-text": {
		units: [
			"<function_call>",
			"<function_call>functions.a(",
			"functions.",
			"<function_call>```typescript\nfunctions.a({",
		],
		tokens: ["<function_call>", "</function_call>", "functions.read(", "functions.", "```typescript\n", '{"path":"a"}'],
	},
	invoke: {
		units: [
			'<invoke name="a">',
			'<invoke name="a"><parameter name="b">',
			"</parameter>",
			'\ninvoke name="a">\nparameter name="b">',
			"<function_calls>",
		],
		tokens: [
			"<function_calls>",
			"</function_calls>",
			'<invoke name="read">',
			"</invoke>",
			'<parameter name="path">',
			'<parameter name="limit" string="false">',
			"</parameter>",
			'invoke name="read">',
			'parameter name="path">',
			" parameter>",
		],
	},
	qwen: {
		units: [
			"<tool_call>",
			"<tool_call><function=a>",
			"<function=a><parameter=b>",
			"</parameter>",
			"<tools><function=a>",
		],
		tokens: [
			"<tool_call>",
			"</tool_call>",
			"<tools>",
			"</tools>",
			"<function=read>",
			"</function>",
			"<parameter=path>",
			"</parameter>",
			'{"name":"read"',
			'"arguments":',
			'{"path":"a"}',
		],
	},
	glm: {
		units: [
			"<tool_call>a",
			"<tool_call>a\n<arg_key>b</arg_key>\n<arg_value>",
			"<arg_key>",
			"</arg_value>",
			"<tools>a<arg_key>b</arg_key>",
		],
		tokens: [
			"<tool_call>",
			"</tool_call>",
			"<tools>",
			"</tools>",
			"read",
			"<arg_key>",
			"</arg_key>",
			"<arg_value>",
			"</arg_value>",
			"path",
		],
	},
	granite: {
		units: [
			"<tool_call>[",
			'<tool_call>[{"name": "a", "arguments": {',
			"<|tool_call|>[",
			"a(\n",
			'<|tool_call|>[{"name": "a"',
		],
		tokens: [
			"<tool_call>",
			"</tool_call>",
			"<|tool_call|>",
			'[{"name":"read"',
			'"arguments":',
			'{"path":"a"}',
			"]",
			'ls(path="a")',
		],
	},
	llama: {
		units: [
			"<|python_tag|>",
			"<|python_tag|>{",
			"<|python_tag|>a(",
			"<|python_tag|>a(\n",
			'{"name": "a", "parameters": {',
			"<|python_start|>[a(",
			"<|python_start|>[a(), ",
			"<|python_start|>{",
		],
		tokens: ["<|python_tag|>", "<|eom_id|>", '{"name":"read"', '"parameters":', '{"path":"a"}', 'ls(path="a")', "x="],
	},
	olmo: {
		units: ["<function_calls>", "<function_calls>\na(\n", "a(\n", '<function_calls>\na(x="'],
		tokens: ["<function_calls>", "</function_calls>", 'ls(path="a")', "read(", "x=True", "None", "\n"],
	},
	harmony: {
		units: [
			"<|channel|>",
			"<|start|>assistant",
			"<|channel|>commentary to=functions.x<|message|>{",
			"<|channel|>commentary to=functions.x ",
			"<|message|>{",
		],
		tokens: [
			"<|start|>",
			"assistant",
			"<|channel|>",
			"commentary",
			"analysis",
			"final",
			" to=functions.read",
			" to=functions.",
			"<|constrain|>",
			"json",
			"<|message|>",
			"<|call|>",
			"<|end|>",
			"<|return|>",
			'{"path":"a"}',
		],
	},
	gemma: {
		units: [
			"<|tool_call>",
			"<|tool_call>call:x{a:",
			'<|tool_call>call:x{a:<|"|>',
			"<|tool_call>call:x{a:[",
			"<tool_call|>",
		],
		tokens: [
			"<|tool_call>",
			"<tool_call|>",
			"call:read",
			'<|"|>',
			"path:",
			"{",
			"}",
			'{"name":"read","arguments":{"path":"a"}}',
			"true",
			"-1.5",
		],
	},
	"kimi-xtml": {
		units: [
			"<|open|>",
			"<|open|>tools<|sep|>",
			'<|open|>tools<|sep|><|open|>call tool="a"<|sep|><|open|>argument key="b" type="string"<|sep|>',
			"<|close|>call<|sep|>",
			"<|open|>think<|sep|>",
		],
		tokens: [
			"<|open|>",
			"<|close|>",
			"<|sep|>",
			"tools",
			"call",
			"argument",
			"json",
			"think",
			' tool="a"',
			' key="k"',
			' type="number"',
			' type="string"',
		],
	},
};
