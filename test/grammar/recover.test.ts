import { describe, expect, it } from "vitest";
import { recoverGrammarLeaks } from "../../src/grammar/index.ts";
import type { GrammarRecoveryOptions, MinimalAssistantMessage } from "../../src/grammar/types.ts";

const BAR = "\uff5c";
const dsmlBash = (command: string) =>
	[
		`<${BAR}DSML${BAR}tool_calls>`,
		`<${BAR}DSML${BAR}invoke name="bash">`,
		`<${BAR}DSML${BAR}parameter name="command" string="true">${command}</${BAR}DSML${BAR}parameter>`,
		`</${BAR}DSML${BAR}invoke>`,
		`</${BAR}DSML${BAR}tool_calls>`,
	].join("\n");
const qwen = (name: string, key: string, value: string) =>
	`<tool_call>\n<function=${name}>\n<parameter=${key}>${value}</parameter>\n</function>\n</tool_call>`;

function message(
	text: string,
	stopReason = "stop",
	extra: MinimalAssistantMessage["content"] = [],
): MinimalAssistantMessage {
	return { role: "assistant", content: [{ type: "text", text }, ...extra], stopReason };
}

function options(overrides: Partial<GrammarRecoveryOptions> = {}): GrammarRecoveryOptions {
	return {
		mode: "recover",
		knownTools: new Set(["bash", "read", "write"]),
		now: () => 1_700_000_000_000,
		...overrides,
	};
}

const leak = `I'll use the tool.\n${dsmlBash("pwd")}`;

describe("a leaked call is promoted only when every gate holds", () => {
	it("promotes a known DSML call on stop into a real toolCall and turns stopReason into toolUse", () => {
		const result = recoverGrammarLeaks(message(leak), options({ knownTools: new Set(["bash"]) }));
		expect(result.changed).toBe(true);
		expect(result.promoted).toBe(true);
		expect(result.message.stopReason).toBe("toolUse");
		expect(result.message.content).toEqual([
			{ type: "text", text: "I'll use the tool." },
			{
				type: "toolCall",
				id: expect.stringMatching(/^tool_repair_dsml_/),
				name: "bash",
				arguments: { command: "pwd" },
			},
		]);
	});

	it("strips but does not promote when stopReason is length", () => {
		const result = recoverGrammarLeaks(message(leak, "length"), options());
		expect(result).toMatchObject({ changed: true, promoted: false });
		expect(result.message.stopReason).toBe("length");
		expect(result.message.content.some((p) => p.type === "toolCall")).toBe(false);
	});

	it.each(["error", "aborted", "toolUse"])("never promotes or rewrites stopReason %s", (stopReason) => {
		const result = recoverGrammarLeaks(message(leak, stopReason), options());
		expect(result.promoted).toBe(false);
		expect(result.message.stopReason).toBe(stopReason);
	});

	it("strip mode removes the text and keeps stopReason stop without a toolCall", () => {
		const result = recoverGrammarLeaks(message(leak), options({ mode: "strip" }));
		expect(result).toMatchObject({ changed: true, promoted: false });
		expect(result.message.stopReason).toBe("stop");
		expect(result.message.content).toEqual([{ type: "text", text: "I'll use the tool." }]);
	});

	it("off mode changes nothing and detects nothing", () => {
		const input = message(leak);
		const result = recoverGrammarLeaks(input, options({ mode: "off" }));
		expect(result).toMatchObject({ changed: false, observed: false, detectedRanges: 0 });
		expect(result.message).toBe(input);
	});

	it("leaves an unknown tool's text in place and promotes nothing", () => {
		const result = recoverGrammarLeaks(message(qwen("unknown", "x", "1")), options());
		expect(result).toMatchObject({ changed: false, promoted: false, observed: true });
		expect((result.message.content[0] as { text: string }).text).toContain("unknown");
	});

	it("with unknownToolText strip removes an unknown tool's text but still promotes nothing", () => {
		const result = recoverGrammarLeaks(message(qwen("unknown", "x", "1")), options({ unknownToolText: "strip" }));
		expect(result).toMatchObject({ changed: true, promoted: false, recoveredCalls: [] });
		expect((result.message.content[0] as { text: string }).text).not.toContain("unknown");
		expect(result.strippedGrammars).toEqual(["qwen"]);
	});

	it("observe mode reports the detection and returns the same message object", () => {
		const input = message(leak);
		const result = recoverGrammarLeaks(input, options({ mode: "observe" }));
		expect(result).toMatchObject({ changed: false, observed: true, detectedRanges: 1, detectedGrammars: ["dsml"] });
		expect(result.message).toBe(input);
		expect(result.message.stopReason).toBe("stop");
	});

	it("strips a zero-argument glm fragment but never promotes it", () => {
		const result = recoverGrammarLeaks(message("<tool_call>write</tool_call>"), options());
		expect(result).toMatchObject({ changed: true, promoted: false, recoveredCalls: [] });
		expect((result.message.content[0] as { text: string }).text).not.toContain("tool_call");
	});

	it("does not promote when the message already has a real toolCall", () => {
		const real = { type: "toolCall", id: "call_1", name: "read", arguments: { path: "a" } };
		const result = recoverGrammarLeaks(message(qwen("bash", "command", "ls"), "stop", [real]), options());
		expect(result.promoted).toBe(false);
		expect(result.message.content.filter((p) => p.type === "toolCall")).toEqual([real]);
	});

	it("leaves a fenced qwen block alone", () => {
		const result = recoverGrammarLeaks(message(`\`\`\`\n${qwen("bash", "command", "ls")}\n\`\`\``), options());
		expect(result.changed).toBe(false);
	});

	it("allows nothing when the known set is empty", () => {
		const result = recoverGrammarLeaks(message(leak), options({ knownTools: new Set() }));
		expect(result).toMatchObject({ changed: false, promoted: false, observed: true });
	});

	it("allows every name with requireKnownTool false", () => {
		const result = recoverGrammarLeaks(
			message(qwen("custom", "x", "1")),
			options({ knownTools: new Set(), requireKnownTool: false }),
		);
		expect(result.recoveredCalls).toEqual([{ name: "custom", arguments: { x: 1 }, grammar: "qwen" }]);
	});

	it("ignores non-assistant roles and content that is not an array", () => {
		const user = { ...message(leak), role: "user" };
		expect(recoverGrammarLeaks(user, options()).message).toBe(user);
		const odd = { role: "assistant", content: "text" } as unknown as MinimalAssistantMessage;
		expect(recoverGrammarLeaks(odd, options()).changed).toBe(false);
	});
});

describe("promoted call IDs", () => {
	it("uses tool_repair_<grammar>_<base36 time>_<index> with non-alphanumerics as _", () => {
		const text = [
			"<tool_call>read\n<arg_key>path</arg_key>\n<arg_value>a</arg_value>\n</tool_call>",
			'<function_call>```typescript\nfunctions.read({"path": "b"})\n```',
		].join("\n");
		const result = recoverGrammarLeaks(message(text), options({ now: () => 36 ** 3 }));
		expect(result.promotedCallIds).toEqual(["tool_repair_glm_1000_0", "tool_repair_minimax_text_1000_1"]);
		expect(result.recoveredCalls.map((c) => c.arguments)).toEqual([{ path: "a" }, { path: "b" }]);
	});
});

describe("a text read by two families is promoted once", () => {
	it("promotes a bare JSON call once", () => {
		const result = recoverGrammarLeaks(message('{"name": "read", "arguments": {"path": "a"}}'), options());
		expect(result.promotedCallIds).toHaveLength(1);
		expect(result.message.content.filter((p) => p.type === "toolCall")).toHaveLength(1);
	});
});

describe("reasoning is observed, never executed", () => {
	it("does not strip or promote a call in a thinking part", () => {
		const input: MinimalAssistantMessage = {
			role: "assistant",
			content: [
				{ type: "thinking", thinking: qwen("bash", "command", "rm -rf build") },
				{ type: "text", text: "Done thinking." },
			],
			stopReason: "stop",
		};
		const result = recoverGrammarLeaks(input, options());
		expect(result).toMatchObject({ changed: false, promoted: false, observed: true, detectedRanges: 1 });
		expect(result.message).toBe(input);
	});

	it("does not strip or promote a call inside a <think> span of a text part", () => {
		const text = `<think>maybe ${qwen("bash", "command", "ls")}</think>I will not run it.`;
		const result = recoverGrammarLeaks(message(text), options());
		expect(result).toMatchObject({ changed: false, promoted: false, observed: true });
	});

	it("treats everything before a lone </think> as reasoning", () => {
		const text = `${qwen("bash", "command", "ls")}\n</think>\nAnswer.`;
		expect(recoverGrammarLeaks(message(text), options()).promoted).toBe(false);
	});

	it("treats an unclosed <think> as reasoning to the end of the part", () => {
		const text = `Answer.\n<think>${qwen("bash", "command", "ls")}`;
		expect(recoverGrammarLeaks(message(text), options()).promoted).toBe(false);
	});

	it("still promotes a call after a closed <think> span", () => {
		const text = `<think>plan</think>\n${qwen("bash", "command", "ls")}`;
		const result = recoverGrammarLeaks(message(text), options());
		expect(result.promoted).toBe(true);
		expect(result.message.content[0]).toEqual({ type: "text", text: "<think>plan</think>" });
	});

	it("never promotes a harmony analysis-channel call", () => {
		const text =
			'<|start|>assistant<|channel|>analysis to=functions.bash <|constrain|>json<|message|>{"command":"ls"}<|call|>';
		const result = recoverGrammarLeaks(message(text), options());
		expect(result.promoted).toBe(false);
		expect(result.observed).toBe(true);
	});
});

describe("schema typing of promoted values", () => {
	const schemas = new Map<string, unknown>([
		[
			"read",
			{
				type: "object",
				properties: { path: { type: "string" }, limit: { type: "integer" }, offset: { type: "number" } },
			},
		],
	]);

	it("keeps a number-looking value for a string field as its exact text", () => {
		const text = qwen("read", "path", "007");
		const result = recoverGrammarLeaks(message(text), options({ toolSchemas: schemas }));
		expect(result.recoveredCalls[0]?.arguments).toEqual({ path: "007" });
	});

	it("keeps a JSON-looking value for a string field as text", () => {
		const result = recoverGrammarLeaks(message(qwen("read", "path", '{"a": 1}')), options({ toolSchemas: schemas }));
		expect(result.recoveredCalls[0]?.arguments).toEqual({ path: '{"a": 1}' });
	});

	it("turns a raw DSML string into a number for an integer field", () => {
		const text = `<${BAR}DSML${BAR}tool_calls><${BAR}DSML${BAR}invoke name="read"><${BAR}DSML${BAR}parameter name="limit">5</${BAR}DSML${BAR}parameter></${BAR}DSML${BAR}invoke></${BAR}DSML${BAR}tool_calls>`;
		const result = recoverGrammarLeaks(message(text), options({ toolSchemas: schemas }));
		expect(result.recoveredCalls[0]?.arguments).toEqual({ limit: 5 });
	});

	it("leaves a non-numeric string for an integer field to the repair pipeline", () => {
		const result = recoverGrammarLeaks(message(qwen("read", "limit", "five")), options({ toolSchemas: schemas }));
		expect(result.recoveredCalls[0]?.arguments).toEqual({ limit: "five" });
	});
});

describe("text handling", () => {
	it("tidies only parts that had a range removed and keeps emptied parts", () => {
		const input: MinimalAssistantMessage = {
			role: "assistant",
			content: [
				{ type: "text", text: "  untouched  \n\n\n\n" },
				{ type: "text", text: qwen("read", "path", "a") },
			],
			stopReason: "stop",
		};
		const result = recoverGrammarLeaks(input, options({ mode: "strip" }));
		expect(result.message.content).toEqual([
			{ type: "text", text: "  untouched  \n\n\n\n" },
			{ type: "text", text: "" },
		]);
	});

	it("never mutates the caller's message", () => {
		const input = message(leak);
		const snapshot = structuredClone(input);
		recoverGrammarLeaks(input, options());
		expect(input).toEqual(snapshot);
	});

	it("passes parts it cannot scan through untouched", () => {
		const image = { type: "image", data: "xx" };
		const result = recoverGrammarLeaks(message(leak, "stop", [image]), options());
		expect(result.message.content).toContain(image);
	});
});

describe("bad input leaves a message without a complete leak untouched", () => {
	const MB = 1 << 20;
	const cases: ReadonlyArray<readonly [string, string]> = [
		["binary", Array.from({ length: 4096 }, (_, i) => String.fromCharCode((i * 7919) % 65536)).join("")],
		["half-written qwen markup", "<tool_call>\n<function=bash>\n<parameter=command>rm -rf"],
		["half-written bare JSON", '{"name": "bash", "arguments": {"command": "ls"'],
		["half-written pythonic call", 'bash(command="ls"'],
		["deeply nested brackets", `${"[{(".repeat(50_000)}`],
		["unbalanced quotes", `{"name": "bash", "arguments": {"command": "ls}}\n'"'"`],
		["10 MB of prose", "plain words, (asides) and 'quotes' here.\n".repeat((10 * MB) / 41)],
	];

	it.each(cases)("%s", (_label, text) => {
		const input = message(text);
		const result = recoverGrammarLeaks(input, options({ knownTools: new Set(["bash", "read", "write", "ls"]) }));
		expect(result.changed).toBe(false);
		expect(result.promoted).toBe(false);
		expect(result.message).toBe(input);
	});

	it("survives content parts that are not objects", () => {
		const input = { role: "assistant", content: [null, 5, "x", { type: "text" }], stopReason: "stop" };
		const result = recoverGrammarLeaks(input as unknown as MinimalAssistantMessage, options());
		expect(result.changed).toBe(false);
	});
});

describe("think spans at scale", () => {
	it("handles many think spans and many leaks in one part", () => {
		const unit = `<think>x</think>\n${qwen("read", "path", "a")}\n`;
		const input = message(unit.repeat(5000));
		const result = recoverGrammarLeaks(input, options({ mode: "strip" }));
		expect(result.strippedRanges).toBe(5000);
		expect((result.message.content[0] as { text: string }).text).not.toContain("tool_call");
	});
});
