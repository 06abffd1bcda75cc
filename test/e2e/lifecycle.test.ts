/**
 * How repair feedback travels through pi's real agent loop: notes bound to
 * the right call among parallel and duplicate ones, codemode's nested calls,
 * repeat-failure escalation, a promoted grammar leak that also needs input
 * repair, model-family gates and policy profiles, resume from persisted
 * entries, and the stop reasons the rescue must leave alone.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ExtensionAPI, SessionManager } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { REPAIR_ENTRY_TYPE } from "../../src/extension/repair/feedback.ts";
import repairExtension from "../../src/index.ts";
import { type PiSessionHarness, type PiSessionOptions, startPiSession } from "../helpers/pi-session.ts";

const NOTE = "<repair_note>";
const countNotes = (text: string) => text.split(NOTE).length - 1;

let run: PiSessionHarness | undefined;
const temps: string[] = [];
afterEach(async () => {
	await run?.dispose();
	run = undefined;
	for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function session(options: PiSessionOptions = {}): Promise<PiSessionHarness> {
	run = await startPiSession(options);
	return run;
}

function settingsFile(content: Record<string, unknown>): string {
	const dir = mkdtempSync(join(tmpdir(), "pi-repair-settings-"));
	temps.push(dir);
	const path = join(dir, "settings.json");
	writeFileSync(path, JSON.stringify(content));
	return path;
}

describe("notes stay with their own call", () => {
	it("gives each of several parallel repaired calls exactly its own note, and none to the valid one", async () => {
		const r = await session({ files: { "a.txt": "A\n", "b.txt": "B\n" } });
		await r.play([
			{
				toolCalls: [
					{ id: "p1", name: "read", arguments: { file_path: "a.txt" } },
					{ id: "p2", name: "read", arguments: { path: "b.txt" } },
					{ id: "p3", name: "bash", arguments: { cmd: "echo third" } },
				],
			},
			{ type: "echo" },
		]);
		expect(countNotes(r.resultText("p1"))).toBe(1);
		expect(r.resultText("p1")).toContain("file_path");
		expect(r.resultText("p2")).not.toContain(NOTE);
		expect(countNotes(r.resultText("p3"))).toBe(1);
		expect(r.resultText("p3")).toContain("cmd");
		expect(r.resultText("p3")).toContain("third");
	});

	it("gives duplicate identical repaired calls one note each", async () => {
		const r = await session({ files: { "a.txt": "same\n" } });
		await r.play([
			{
				toolCalls: [
					{ id: "d1", name: "read", arguments: { file_path: "a.txt" } },
					{ id: "d2", name: "read", arguments: { file_path: "a.txt" } },
				],
			},
			{ type: "echo" },
		]);
		for (const id of ["d1", "d2"]) {
			expect(r.toolResult(id)?.isError).toBe(false);
			expect(countNotes(r.resultText(id))).toBe(1);
		}
	});

	it("does not hand an earlier repair's note to a later identical valid call", async () => {
		const r = await session({ files: { "a.txt": "x\n" } });
		await r.play([
			{ toolCalls: [{ id: "first", name: "read", arguments: { file_path: "a.txt" } }] },
			{ toolCalls: [{ id: "second", name: "read", arguments: { path: "a.txt" } }] },
			{ type: "echo" },
		]);
		expect(countNotes(r.resultText("first"))).toBe(1);
		expect(r.resultText("second")).not.toContain(NOTE);
	});
});

describe("repairs of calls that never ran", () => {
	it("do not leak their note to a later identical call when another extension blocked the first", async () => {
		let blocked = false;
		// Loaded before the repair layer, so its tool_call handler runs first and ours never sees the call.
		const gate = (pi: ExtensionAPI) => {
			pi.on("tool_call", () => {
				if (blocked) return undefined;
				blocked = true;
				return { block: true, reason: "blocked once by a permission gate" };
			});
		};
		const r = await session({ extensions: [gate, repairExtension], files: { "a.txt": "x\n" } });
		await r.play([
			{ toolCalls: [{ id: "blocked", name: "read", arguments: { file_path: "a.txt" } }] },
			{ toolCalls: [{ id: "later", name: "read", arguments: { path: "a.txt" } }] },
			{ type: "echo" },
		]);
		expect(r.resultText("blocked")).toContain("blocked once");
		expect(r.toolResult("later")?.isError).toBe(false);
		expect(r.resultText("later")).not.toContain(NOTE);
	});
});

describe("codemode", () => {
	const code = [
		'const text = await tools.read({ file_path: "in.txt" });',
		'await tools.write({ file_path: "out.txt", content: "from codemode\\n" });',
		'return "read: " + text;',
	].join("\n");

	// Nested calls never pass message_end: codemodeRepair's codemode judges them with the built-in tables.
	it("repairs nested built-in calls under codemodeRepair, leaves nested results alone and notes the parent once", async () => {
		const r = await session({
			codemode: true,
			files: { "in.txt": "nested input\n" },
			env: { PI_TOOL_REPAIR_SETTINGS: settingsFile({ codemodeRepair: true }) },
		});
		await r.play([{ toolCalls: [{ id: "cm", name: "codemode", arguments: { code } }] }, { type: "echo" }]);
		expect(r.readFile("out.txt")).toBe("from codemode\n");
		const parent = r.resultText("cm");
		expect(parent).toContain("Script completed");
		// The script saw the plain file text, not a note.
		expect(parent).toContain("read: nested input");
		expect(parent).not.toMatch(/read: <repair_note>/);
		expect(countNotes(parent)).toBe(2);
		expect(parent).toContain("file_path");
	});

	it("leaves nested calls to pi by default: they run (or fail) as pi alone runs them, with no note", async () => {
		const r = await session({ codemode: true, files: { "in.txt": "nested input\n" } });
		await r.play([{ toolCalls: [{ id: "cm", name: "codemode", arguments: { code } }] }, { type: "echo" }]);
		expect(r.readFile("out.txt")).toBeUndefined();
		expect(countNotes(r.resultText("cm"))).toBe(0);
	});
});

describe("repeat-failure escalation", () => {
	it("adds the expected argument shape on the third identical failure only", async () => {
		const r = await session();
		const garbage = (id: string) => ({ toolCalls: [{ id, name: "read", arguments: { nothing: id } }] });
		await r.play([garbage("f1"), garbage("f2"), garbage("f3"), { type: "echo" }]);
		for (const id of ["f1", "f2"]) {
			expect(r.toolResult(id)?.isError).toBe(true);
			expect(r.resultText(id)).not.toContain("- path: string (required)");
		}
		const third = r.resultText("f3");
		expect(r.toolResult("f3")?.isError).toBe(true);
		expect(third).toContain("Received:");
		expect(third).toContain("- path: string (required)");
		expect(third).toContain("- offset: number (optional)");
	});
});

describe("grammar leaks and input repair together", () => {
	it("keeps both the recovery note and the repair note of a promoted call, so the model learns both", async () => {
		const r = await session({
			model: "glm-4.6",
			files: { "a.txt": "promoted\n" },
			env: { PI_TOOL_REPAIR_SETTINGS: settingsFile({ grammarRecovery: "recover" }) },
		});
		await r.play([
			{
				text: "Let me read it.\n<tool_call>read\n<arg_key>file_path</arg_key>\n<arg_value>a.txt</arg_value>\n</tool_call>",
			},
			{ type: "echo" },
		]);
		const result = r.toolResults()[0];
		expect(result?.isError).toBe(false);
		const text = r.resultText(result?.toolCallId ?? "");
		expect(text).toContain("promoted");
		expect(countNotes(text)).toBe(2);
		expect(text).toContain("glm");
		expect(text).toContain("file_path");
	});
});

describe("model gates and policy profiles", () => {
	it("strips leaked anchors from a path only for a gated model family", async () => {
		const gated = await session({ model: "glm-4.6", files: { "f.txt": "anchored\n" } });
		await gated.play([{ toolCalls: [{ id: "g", name: "read", arguments: { path: "^f.txt$" } }] }, { type: "echo" }]);
		expect(gated.resultText("g")).toContain("anchored");
		expect(countNotes(gated.resultText("g"))).toBe(1);
		await gated.dispose();

		const plain = await session({ model: "claude-opus-4-8", files: { "f.txt": "anchored\n" } });
		await plain.play([{ toolCalls: [{ id: "p", name: "read", arguments: { path: "^f.txt$" } }] }, { type: "echo" }]);
		expect(plain.toolResult("p")?.isError).toBe(true);
		expect(plain.resultText("p")).not.toContain(NOTE);
	});

	it("follows a model switch: the gate opens once pi selects a gated model", async () => {
		const r = await session({ model: "claude-opus-4-8", otherModels: ["glm-4.6"], files: { "f.txt": "switched\n" } });
		await r.play([{ toolCalls: [{ id: "before", name: "read", arguments: { path: "^f.txt$" } }] }, { type: "echo" }]);
		expect(r.toolResult("before")?.isError).toBe(true);
		await r.switchModel("glm-4.6");
		await r.play([{ toolCalls: [{ id: "after", name: "read", arguments: { path: "^f.txt$" } }] }, { type: "echo" }]);
		expect(r.toolResult("after")?.isError).toBe(false);
		expect(r.resultText("after")).toContain("switched");
		expect(r.telemetry().at(-1)).toMatchObject({ tool: "read", model: "glm-4.6", rules: ["stripAnchorBleed"] });
	});

	it("does not complete a truncated object under the conservative profile", async () => {
		const r = await session({ env: { PI_TOOL_REPAIR_SETTINGS: settingsFile({ policyProfile: "conservative" }) } });
		await r.play([
			{ toolCalls: [{ id: "t", name: "write", rawArguments: '{"path":"t.txt","content":"abc"' }] },
			{ type: "echo" },
		]);
		expect(r.readFile("t.txt")).toBeUndefined();
		expect(r.toolResult("t")?.isError).toBe(true);
	});
});

describe("stop reasons the rescue leaves alone", () => {
	it("does not rescue a malformed call from a message cut off by the output limit", async () => {
		const r = await session();
		await r.play([
			{
				toolCalls: [{ id: "len", name: "write", rawArguments: '{"path":"len.txt","content":"abc"' }],
				stopReason: "length",
			},
			{ type: "echo" },
		]);
		expect(r.readFile("len.txt")).toBeUndefined();
		expect(r.toolResult("len")?.isError).toBe(true);
		expect(r.resultText("len")).not.toContain(NOTE);
		expect(r.telemetry()).toEqual([]);
	});
});

describe("persisted entries and resume", () => {
	it("persists a value-free tool-repair entry and restores the indicator from it on resume", async () => {
		const secret = "pl4nted-secret";
		const first = await session({ files: { [`${secret}.txt`]: "x\n" } });
		await first.play([
			{ toolCalls: [{ id: "keep", name: "read", arguments: { file_path: `${secret}.txt` } }] },
			{ type: "echo" },
		]);
		const entries = first.sessionManager
			.getEntries()
			.filter((e) => e.type === "custom" && e.customType === REPAIR_ENTRY_TYPE);
		expect(entries).toHaveLength(1);
		const data = (entries[0] as { data?: Record<string, unknown> }).data;
		expect(data).toMatchObject({
			toolCallId: "keep",
			tool: "read",
			rules: ["preprocess.exact-alias"],
			outcome: "repaired",
		});
		expect(data).not.toHaveProperty("notes");
		expect(JSON.stringify(entries)).not.toContain(secret);

		// A new session over the same entries (what /resume does) shows the indicator again, without notes.
		const resumed = SessionManager.inMemory(first.workspace);
		for (const entry of entries) {
			const custom = entry as { customType: string; data?: unknown };
			resumed.appendCustomEntry(custom.customType, custom.data);
		}
		const second = await startPiSession({ sessionManager: resumed });
		try {
			// What the TUI draws: the renderers pi resolves through every extension's resolver, then the tool's own.
			const read = second.session.extensionRunner.resolveToolRenderers("read", () =>
				second.session.getToolDefinition("read"),
			);
			const render = (toolCallId: string) =>
				read
					?.renderResult?.(
						{ content: [{ type: "text", text: "x" }], details: undefined },
						{ expanded: false, isPartial: false },
						{ fg: (_color: string, text: string) => text } as never,
						{ toolCallId, lastComponent: undefined, args: {}, isError: false } as never,
					)
					.render(80)
					.join("\n") ?? "";
			expect(render("keep")).toContain("🔨 ✓ input repaired (preprocess.exact-alias)");
			expect(render("other")).not.toContain("🔨");
		} finally {
			await second.dispose();
		}
	});
});
