/**
 * A grammar leak end to end through pi's real agent loop (in-process
 * `createAgentSession` with the repair extension loaded by
 * `DefaultResourceLoader`, pi-ai's faux provider as the model): a
 * `deepseek-v4` model prints its `write` call as DSML text instead of a tool
 * call; with `grammarRecovery: "recover"` the extension promotes it, pi runs
 * the real `write`, the file appears, and the tool result the model reads
 * carries the recovery note. Counter-cases: a fenced example and a call in
 * the model's thinking are never run.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { grammarRecoveryNote } from "../../src/extension/leaks/grammar-leaks.ts";
import { dsmlWrite } from "../helpers/dsml.ts";
import { type PiSessionHarness, type PiSessionOptions, startPiSession } from "../helpers/pi-session.ts";

const CONTENT = "first line\n  second line, indented\n";

function settingsFile(settings: Record<string, unknown>): string {
	const path = join(mkdtempSync(join(tmpdir(), "pi-repair-grammar-")), "settings.json");
	writeFileSync(path, JSON.stringify(settings));
	return path;
}

describe("a DSML write leak in pi's real agent loop", () => {
	let run: PiSessionHarness | undefined;
	afterEach(async () => {
		await run?.dispose();
		run = undefined;
	});

	async function session(options: PiSessionOptions = {}): Promise<PiSessionHarness> {
		run = await startPiSession({
			model: "deepseek-v4",
			...options,
			env: {
				PI_TOOL_REPAIR_SETTINGS: settingsFile({ grammarRecovery: "recover" }),
				PI_TOOL_REPAIR_TELEMETRY: "off",
				...options.env,
			},
		});
		return run;
	}

	it("runs the leaked write, writes the exact content and shows the recovery note to the model", async () => {
		const r = await session();
		await r.play([{ text: `I'll save the notes now.\n${dsmlWrite("out/notes.txt", CONTENT)}` }, { type: "echo" }]);

		expect(r.readFile("out/notes.txt")).toBe(CONTENT);
		const [result] = r.toolResults();
		expect(result?.toolName).toBe("write");
		expect(result?.toolCallId).toMatch(/^tool_repair_dsml_[0-9a-z]+_0$/);
		expect(result?.isError).toBe(false);
		const text = r.resultText(result?.toolCallId ?? "");
		expect(text).toContain("<repair_note>");
		expect(text).toContain(grammarRecoveryNote("dsml", "write"));

		const promoted = r.session.messages.find(
			(m) => m.role === "assistant" && m.content.some((part) => part.type === "toolCall"),
		);
		expect(promoted?.role === "assistant" && promoted.stopReason).toBe("toolUse");
		const visibleText =
			promoted?.role === "assistant"
				? promoted.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("")
				: "";
		expect(visibleText).toBe("I'll save the notes now.");
		expect(r.lastAssistantText()).toContain("<repair_note>");
	});

	it("does not run a DSML example inside a code fence", async () => {
		const r = await session();
		await r.play([{ text: `The format looks like this:\n\`\`\`\n${dsmlWrite("fenced.txt", "x")}\n\`\`\`` }]);
		expect(r.readFile("fenced.txt")).toBeUndefined();
		expect(r.toolResults()).toEqual([]);
	});

	it("does not run a call the model only wrote in its thinking", async () => {
		const r = await session();
		await r.play([{ thinking: dsmlWrite("thought.txt", "x"), text: "Nothing to do." }]);
		expect(r.readFile("thought.txt")).toBeUndefined();
		expect(r.toolResults()).toEqual([]);
	});

	it("strips the leak from the reply, runs nothing, and continues once with a note", async () => {
		const r = await session({ env: { PI_TOOL_REPAIR_SETTINGS: settingsFile({ grammarRecovery: "strip" }) } });
		await r.play([{ text: `Saving.\n${dsmlWrite("stripped.txt", "x")}` }, { text: "Understood." }]);
		expect(r.readFile("stripped.txt")).toBeUndefined();
		const replies = r.session.messages.filter((message) => message.role === "assistant");
		expect(replies).toHaveLength(2);
		expect(JSON.stringify(replies[0]?.content)).not.toContain("DSML");
		expect(JSON.stringify(replies[0]?.content)).toContain("Saving.");
		expect(r.lastAssistantText()).toBe("Understood.");
	});

	it("runs a glm read leak as read, notes glm and read, and records a recovered outcome", async () => {
		const telemetryPath = join(mkdtempSync(join(tmpdir(), "pi-repair-grammar-")), "telemetry.jsonl");
		const r = await session({
			model: "glm-4.6",
			tools: ["read"],
			files: { "notes.md": "# Notes\n" },
			env: { PI_TOOL_REPAIR_TELEMETRY: telemetryPath },
		});
		await r.play([
			{
				text: "Let me read that file.\n<tool_call>read\n<arg_key>path</arg_key>\n<arg_value>notes.md</arg_value>\n</tool_call>",
			},
			{ type: "echo" },
		]);
		const [result] = r.toolResults();
		const text = r.resultText(result?.toolCallId ?? "");
		expect(text).toContain("# Notes");
		expect(text).toContain("<repair_note>");
		expect(text).toContain(grammarRecoveryNote("glm", "read"));
		const records = readFileSync(telemetryPath, "utf8")
			.split("\n")
			.filter((line) => line.trim() !== "")
			.map((line) => JSON.parse(line) as unknown);
		expect(records).toContainEqual(expect.objectContaining({ outcome: "recovered", tool: "read", grammar: "glm" }));
	});
});
