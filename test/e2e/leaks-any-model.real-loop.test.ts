/**
 * Through pi's real agent loop in-process (pi-ai's faux provider plays the
 * script), with `grammarRecovery: "recover"`: a DSML leak from a model id of
 * no known family runs, a `<tool_call>` JSON answer from it stays text unless
 * `leakModels` names it, and a MiniMax M3 edit with its nested edits list is
 * typed by pi's edit schema and applied.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dsmlWrite } from "../helpers/dsml.ts";
import { type PiSessionHarness, startPiSession } from "../helpers/pi-session.ts";

function settingsFile(settings: Record<string, unknown>): string {
	const path = join(mkdtempSync(join(tmpdir(), "pi-repair-reach-")), "settings.json");
	writeFileSync(path, JSON.stringify(settings));
	return path;
}

const NS = "]<]minimax[>[";
const el = (key: string, value: string) => `${NS}<${key}>${value}${NS}</${key}>`;
const QWEN_READ = '<tool_call>\n{"name": "read", "arguments": {"path": "notes.md"}}\n</tool_call>';

describe("leaks from any model id and MiniMax M3 nested parameters, in pi's real agent loop", () => {
	let run: PiSessionHarness | undefined;
	afterEach(async () => {
		await run?.dispose();
		run = undefined;
	});

	async function session(model: string, settings: Record<string, unknown> = {}, files?: Record<string, string>) {
		run = await startPiSession({
			model,
			...(files === undefined ? {} : { files }),
			env: {
				PI_TOOL_REPAIR_SETTINGS: settingsFile({ grammarRecovery: "recover", ...settings }),
				PI_TOOL_REPAIR_TELEMETRY: "off",
			},
		});
		return run;
	}

	it("runs a DSML write leaked by local-model", async () => {
		const r = await session("local-model");
		await r.play([{ text: `Saving.\n${dsmlWrite("out.txt", "from a local model")}` }, { type: "echo" }]);
		expect(r.readFile("out.txt")).toBe("from a local model");
		expect(r.toolResults()[0]?.toolCallId).toMatch(/^tool_repair_dsml_/);
	});

	it("leaves <tool_call> JSON from local-model as its answer", async () => {
		const r = await session("local-model", {}, { "notes.md": "hi\n" });
		await r.play([{ text: `Here is the format:\n${QWEN_READ}` }]);
		expect(r.toolResults()).toEqual([]);
		expect(r.lastAssistantText()).toContain(QWEN_READ);
	});

	it("runs the same <tool_call> JSON when leakModels names the model", async () => {
		const r = await session("local-model", { leakModels: ["LOCAL-"] }, { "notes.md": "hi\n" });
		await r.play([{ text: `Reading.\n${QWEN_READ}` }, { type: "echo" }]);
		expect(r.toolResults()[0]?.toolName).toBe("read");
		expect(r.toolResults()[0]?.isError).toBe(false);
	});

	it("applies a MiniMax M3 edit whose edits list is nested elements", async () => {
		const r = await session("MiniMax-M3", {}, { "a.ts": "let a = 1;\nlet b = 2;\n" });
		const edits = el("item", el("oldText", "let a = 1;") + el("newText", "let a = <number>1;"));
		const text = `Editing.${NS}<tool_call>\n${NS}<invoke name="edit">${el("path", "a.ts")}${el("edits", edits)}${NS}</invoke>\n${NS}</tool_call>`;
		await r.play([{ text }, { type: "echo" }]);
		expect(r.toolResults()[0]?.isError).toBe(false);
		expect(r.readFile("a.ts")).toBe("let a = <number>1;\nlet b = 2;\n");
	});

	it("does not run a MiniMax M3 edit whose nested element pi's edit schema does not declare", async () => {
		const r = await session("MiniMax-M3", {}, { "a.ts": "let a = 1;\n" });
		// `note` is no field of an edit: dropping it or guessing its meaning would change the call.
		const edits = el("item", el("oldText", "let a = 1;") + el("newText", "let a = 2;") + el("note", "bump"));
		const text = `Editing.${NS}<tool_call>\n${NS}<invoke name="edit">${el("path", "a.ts")}${el("edits", edits)}${NS}</invoke>\n${NS}</tool_call>`;
		await r.play([{ text }, { text: "Stopped." }]);
		expect(r.toolResults()).toEqual([]);
		expect(r.readFile("a.ts")).toBe("let a = 1;\n");
	});
});
