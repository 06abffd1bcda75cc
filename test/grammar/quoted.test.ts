/**
 * Quoted text and reasoning are never promoted, and strip removes markup,
 * never prose. Each case here was a way to get a call the model only quoted
 * (or only thought about) executed, or to get the assistant's own words
 * deleted; the counter-cases are real leaks that must still run.
 */
import { describe, expect, it } from "vitest";
import { MAX_PROMOTED_CALLS_PER_MESSAGE, recoverGrammarLeaks } from "../../src/grammar/recover.ts";
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
const qwen = (command: string) =>
	`<tool_call>\n<function=bash>\n<parameter=command>${command}</parameter>\n</function>\n</tool_call>`;
const bareJson = (command: string) => `{"name": "bash", "arguments": {"command": "${command}"}}`;

function message(text: string): MinimalAssistantMessage {
	return { role: "assistant", content: [{ type: "text", text }], stopReason: "stop" };
}

function options(overrides: Partial<GrammarRecoveryOptions> = {}): GrammarRecoveryOptions {
	return { mode: "recover", knownTools: new Set(["bash", "read"]), now: () => 0, ...overrides };
}

function promotedCommands(text: string, overrides: Partial<GrammarRecoveryOptions> = {}): unknown[] {
	return recoverGrammarLeaks(message(text), options(overrides)).recoveredCalls.map((call) => call.arguments.command);
}

function textAfter(text: string, overrides: Partial<GrammarRecoveryOptions> = {}): string {
	const part = recoverGrammarLeaks(message(text), options(overrides)).message.content[0] as { text: string };
	return part.text;
}

describe("quoted code is never a call", () => {
	const quoted: Record<string, string> = {
		"a tilde fence": `~~~\n${dsmlBash("rm -rf x")}\n~~~`,
		"a longer tilde fence around a shorter one": `~~~~\n~~~\n${dsmlBash("rm -rf x")}\n~~~~`,
		"a four-backtick fence around a three-backtick one": `\`\`\`\`md\n\`\`\`\n${dsmlBash("rm -rf x")}\n\`\`\`\n\`\`\`\``,
		"a backtick fence a tilde line cannot close": `\`\`\`\n~~~\n${qwen("rm -rf x")}\n\`\`\``,
		"an unclosed fence": `Look:\n\`\`\`\n${qwen("rm -rf x")}`,
		"an indented code block": `Look:\n\n    ${qwen("rm -rf x").split("\n").join("\n    ")}`,
		"an inline code span": `Write \`${bareJson("rm -rf x")}\` to call it.`,
		"a double-backtick code span holding a backtick": `Try \`\` \` ${qwen("rm -rf x")} \`\` here.`,
		"a blockquote": `> ${dsmlBash("rm -rf x").split("\n").join("\n> ")}`,
		"a lazy blockquote continuation": `> The file says:\n${qwen("rm -rf x")}`,
		"a <pre> block": `<pre>\n${dsmlBash("rm -rf x")}\n</pre>`,
		"an inline <PRE> element": `See <PRE>${qwen("rm -rf x")}</PRE> for the form.`,
		"a fence inside a list item": `1. The file:\n   - says:\n     \`\`\`\n     ${qwen("rm -rf x").split("\n").join("\n     ")}\n     \`\`\``,
		"a fence whose closer is indented four spaces (content, not a closer)": `\`\`\`\n    \`\`\`\n${qwen("rm -rf x")}\n\`\`\``,
	};
	for (const [form, text] of Object.entries(quoted)) {
		it(`does not promote or strip a call in ${form}`, () => {
			const result = recoverGrammarLeaks(message(text), options());
			expect(result.promoted).toBe(false);
			expect(result.changed).toBe(false);
			expect(result.message.content[0]).toEqual({ type: "text", text });
		});
	}

	it("a fence mark in the middle of a line opens nothing", () => {
		const text = `The markdown fence mark is \`\`\` in prose.\n${qwen("ls")}`;
		expect(promotedCommands(text)).toEqual(["ls"]);
	});
});

describe("reasoning in any spelling is never acted on", () => {
	const reasoning: Record<string, string> = {
		"<think …> with attributes": `Done.\n<think mode="deep">${qwen("rm -rf x")}`,
		"<thinking>": `<thinking>${qwen("rm -rf x")}</thinking>\nDone.`,
		"upper case": `<THINK>${qwen("rm -rf x")}</THINK>\nDone.`,
		"mixed spellings": `<Thinking>${qwen("rm -rf x")}</think>\nDone.`,
		"nested spans": `<think>a <think>b</think> ${qwen("rm -rf x")} </think>\nDone.`,
		"an unclosed <thinking>": `Answer.\n<thinking>${qwen("rm -rf x")}`,
		"a lone </thinking>": `${qwen("rm -rf x")}\n</thinking>\nAnswer.`,
		"a lone closer after a closed span": `<think>a</think>${qwen("rm -rf x")}</think>Answer.`,
	};
	for (const [form, text] of Object.entries(reasoning)) {
		it(`does not promote or strip a call in ${form}`, () => {
			const result = recoverGrammarLeaks(message(text), options());
			expect(result.promoted).toBe(false);
			expect(result.changed).toBe(false);
		});
	}
});

describe("bare JSON inside a sentence is prose", () => {
	it("does not promote or strip a call object with prose before and after it on the line", () => {
		const text = `The API takes ${bareJson("rm -rf x")} as its body, for example.`;
		const result = recoverGrammarLeaks(message(text), options());
		expect(result.promoted).toBe(false);
		expect(result.message.content[0]).toEqual({ type: "text", text });
	});
});

describe("one message never runs the same call twice", () => {
	it("promotes identical leaked calls once, whatever their key order", () => {
		const a = `{"name": "bash", "arguments": {"command": "ls", "timeout": 5}}`;
		const b = `{"arguments": {"timeout": 5, "command": "ls"}, "name": "bash"}`;
		expect(promotedCommands(`${qwen("ls")}\n${qwen("ls")}`)).toEqual(["ls"]);
		expect(promotedCommands(`${a}\n${b}`)).toEqual(["ls"]);
	});

	it(`caps promoted calls per message at ${MAX_PROMOTED_CALLS_PER_MESSAGE} and strips the rest without running them`, () => {
		const calls = Array.from({ length: MAX_PROMOTED_CALLS_PER_MESSAGE + 4 }, (_, i) => qwen(`echo ${i}`));
		const result = recoverGrammarLeaks(message(`Running.\n${calls.join("\n")}`), options());
		expect(MAX_PROMOTED_CALLS_PER_MESSAGE).toBe(16);
		expect(result.recoveredCalls).toHaveLength(MAX_PROMOTED_CALLS_PER_MESSAGE);
		expect(result.message.content.filter((p) => p.type === "toolCall")).toHaveLength(MAX_PROMOTED_CALLS_PER_MESSAGE);
		expect(result.message.content[0]).toEqual({ type: "text", text: "Running." });
	});
});

describe("real leaks still run", () => {
	it.each([
		["a bare leak", `I'll look.\n${qwen("ls")}`],
		["a leak after a closed backtick fence", `\`\`\`\nexample\n\`\`\`\n${qwen("ls")}`],
		["a leak after a closed tilde fence", `~~~~\n~~~\n~~~~\n${qwen("ls")}`],
		["a leak after a closed <think> span", `<thinking>plan</thinking>\n${qwen("ls")}`],
		["a leak after inline code", `I'll run \`ls\` now.\n${qwen("ls")}`],
		["a bare JSON call on its own line", `Listing.\n${bareJson("ls")}\n`],
		["a bare JSON call after a label", `Call: ${bareJson("ls")}`],
	])("promotes %s", (_form, text) => {
		expect(promotedCommands(text)).toEqual(["ls"]);
	});
});

describe("strip removes markup, never prose", () => {
	it("strips sentinel-framed leaks (DSML, <tool_call>, harmony)", () => {
		const harmony = `<|start|>assistant<|channel|>commentary to=functions.bash <|constrain|>json<|message|>{"command":"ls"}<|call|>`;
		for (const leak of [dsmlBash("ls"), qwen("ls"), harmony]) {
			expect(textAfter(`Before.\n${leak}\nAfter.`, { mode: "strip" })).toBe("Before.\n\nAfter.");
		}
	});

	it.each([
		["a name(arg=…) line", 'Run this:\nbash(command="ls")\nand see.'],
		["bare JSON on its own line", `Send this:\n${bareJson("ls")}\nto the API.`],
		["bare JSON in a sentence", `The body ${bareJson("ls")} is sent.`],
		["a leak inside quoted code", `\`\`\`\`\n\`\`\`\n${qwen("ls")}\n\`\`\`\``],
	])("keeps %s in strip mode", (_form, text) => {
		expect(textAfter(text, { mode: "strip" })).toBe(text);
	});

	it("keeps unframed text of unknown tools under unknownToolText strip, and strips framed markup", () => {
		const prose = 'Like this:\nfrobnicate(level="max")\nok?';
		expect(textAfter(prose, { unknownToolText: "strip" })).toBe(prose);
		expect(
			textAfter(`A.\n<tool_call>\n<function=frob>\n<parameter=x>1</parameter>\n</function>\n</tool_call>`, {
				unknownToolText: "strip",
			}),
		).toBe("A.");
	});

	it("in recover mode removes a bare JSON call's text only when it is promoted", () => {
		expect(textAfter(`Listing.\n${bareJson("ls")}`)).toBe("Listing.");
		const notRun = recoverGrammarLeaks(
			{ role: "assistant", content: [{ type: "text", text: `Listing.\n${bareJson("ls")}` }], stopReason: "length" },
			options(),
		);
		expect(notRun.message.content[0]).toEqual({ type: "text", text: `Listing.\n${bareJson("ls")}` });
	});
});
