/**
 * The late-2026 leak dialects end to end through pi's real agent loop
 * (in-process `createAgentSession` with the repair extension loaded by
 * `DefaultResourceLoader`, pi-ai's faux provider as the model), under
 * `grammarRecovery: "recover"`:
 *
 * - DeepSeek V4.1 prints its `write` as DSML with doubled bars, spaced tag
 *   names and a `calls` envelope (CommandCodeAI/command-code#909, from a pi
 *   user); the extension promotes it, pi runs the real `write`, the file holds
 *   the exact content, and the model reads the recovery note;
 * - Kimi K3 prints its calls in the XTML tool channel; a typed `read` and a
 *   `write` run the same way, while a block in K3's think channel and a block
 *   whose typed argument does not decode are never run.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { grammarRecoveryNote } from "../../src/extension/leaks/grammar-leaks.ts";
import { type PiSessionHarness, type PiSessionOptions, startPiSession } from "../helpers/pi-session.ts";

const BARS = "\uff5c\uff5c";
const V41 = `${BARS}DSML${BARS} `;
const CONTENT = "first line\n  second line, indented\n\ttabbed <b>&amp;</b>\n";

function dsmlV41Write(path: string, content: string): string {
	return [
		`<${V41}calls>`,
		`<${V41}invoke name="write">`,
		`<${V41}parameter name="path" string="true">${path}</${V41}parameter>`,
		`<${V41}parameter name="content" string="true">${content}</${V41}parameter>`,
		`</${V41}invoke>`,
		`</${V41}calls>`,
	].join("\n");
}

function xtmlArgument(key: string, type: string, value: string): string {
	return `<|open|>argument key="${key}" type="${type}"<|sep|>${value}<|close|>argument<|sep|>`;
}

function xtmlBlock(tool: string, ...args: string[]): string {
	return `<|open|>tools<|sep|><|open|>call tool="${tool}" index="1"<|sep|>${args.join("")}<|close|>call<|sep|><|close|>tools<|sep|>`;
}

function settingsFile(settings: Record<string, unknown>): string {
	const path = join(mkdtempSync(join(tmpdir(), "pi-repair-dialects-")), "settings.json");
	writeFileSync(path, JSON.stringify(settings));
	return path;
}

function promotedText(run: PiSessionHarness): string {
	const promoted = run.session.messages.find(
		(m) => m.role === "assistant" && m.content.some((part) => part.type === "toolCall"),
	);
	return promoted?.role === "assistant"
		? promoted.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("")
		: "";
}

describe("late-2026 leak dialects in pi's real agent loop", () => {
	let run: PiSessionHarness | undefined;
	afterEach(async () => {
		await run?.dispose();
		run = undefined;
	});

	async function session(model: string, options: PiSessionOptions = {}): Promise<PiSessionHarness> {
		run = await startPiSession({
			model,
			...options,
			env: {
				PI_TOOL_REPAIR_SETTINGS: settingsFile({ grammarRecovery: "recover" }),
				PI_TOOL_REPAIR_TELEMETRY: "off",
				...options.env,
			},
		});
		return run;
	}

	it("runs a DeepSeek V4.1 DSML write and writes the content byte for byte", async () => {
		const r = await session("deepseek-v4.1-flash");
		await r.play([{ text: `I'll save the notes.\n\n${dsmlV41Write("out/notes.txt", CONTENT)}` }, { type: "echo" }]);

		expect(r.readFile("out/notes.txt")).toBe(CONTENT);
		const [result] = r.toolResults();
		expect(result?.toolName).toBe("write");
		expect(result?.toolCallId).toMatch(/^tool_repair_dsml_[0-9a-z]+_0$/);
		expect(result?.isError).toBe(false);
		expect(r.resultText(result?.toolCallId ?? "")).toContain(grammarRecoveryNote("dsml", "write"));
		expect(promotedText(r)).toBe("I'll save the notes.");
	});

	it("runs a Kimi K3 XTML write and a typed read", async () => {
		const r = await session("kimi-k3", { files: { "notes.md": "one\ntwo\nthree\n" } });
		const text = [
			"Writing, then reading back.",
			xtmlBlock("write", xtmlArgument("path", "string", "k3.txt"), xtmlArgument("content", "string", CONTENT)),
		].join("\n");
		await r.play([
			{ text },
			{
				text: `Now the notes.\n${xtmlBlock("read", xtmlArgument("path", "string", "notes.md"), xtmlArgument("limit", "number", "1"))}`,
			},
			{ type: "echo" },
		]);

		expect(r.readFile("k3.txt")).toBe(CONTENT);
		const [write, read] = r.toolResults();
		expect(write?.toolName).toBe("write");
		expect(write?.toolCallId).toMatch(/^tool_repair_kimi_xtml_[0-9a-z]+_0$/);
		expect(write?.isError).toBe(false);
		expect(r.resultText(write?.toolCallId ?? "")).toContain(grammarRecoveryNote("kimi-xtml", "write"));
		expect(read?.toolName).toBe("read");
		expect(read?.isError).toBe(false);
		const readText = r.resultText(read?.toolCallId ?? "");
		expect(readText).toContain("one");
		expect(readText).not.toContain("three");
		expect(promotedText(r)).toBe("Writing, then reading back.");
	});

	it("never runs a K3 block from the think channel", async () => {
		const r = await session("kimi-k3");
		const block = xtmlBlock(
			"write",
			xtmlArgument("path", "string", "thought.txt"),
			xtmlArgument("content", "string", "x"),
		);
		await r.play([{ text: `<|open|>think<|sep|>Maybe ${block}<|close|>think<|sep|>Nothing to do.` }]);
		expect(r.readFile("thought.txt")).toBeUndefined();
		expect(r.toolResults()).toEqual([]);
	});

	it("never runs a K3 block whose typed argument does not decode", async () => {
		const r = await session("kimi-k3", { files: { "notes.md": "one\n" } });
		const block = xtmlBlock("read", xtmlArgument("path", "string", "notes.md"), xtmlArgument("limit", "number", "all"));
		await r.play([{ text: `Reading.\n${block}` }]);
		expect(r.toolResults()).toEqual([]);
	});
});
