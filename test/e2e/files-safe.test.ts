/**
 * The files the layer writes and reads, through the real `pi` CLI: a FIFO at
 * the telemetry path never stalls a tool call or `/repair-stats` (it is
 * skipped with one warning), a tampered telemetry file never puts an escape
 * sequence on the screen, a settings file with a JSON typo is kept until the
 * user changes a setting and then kept as a backup, and the telemetry it
 * creates in pi's agent folder is private to the user.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runPiCli } from "../helpers/pi-cli.ts";
import { startPiRpc } from "../helpers/pi-rpc.ts";
import { forgedLines, TAMPERED_RECORDS, TAMPERED_TOOL_SHOWN, UNPRINTABLE } from "../support/tampered-telemetry.ts";

/** A repaired call (alias), then the echo turn that shows the result the model saw. */
const REPAIRED_READ = [
	{ toolCalls: [{ id: "c1", name: "read", arguments: { file_path: "a.txt" } }] },
	{ type: "echo" as const },
];

describe("a FIFO at the telemetry path", () => {
	it("never blocks the tool call: the call runs, nothing is written to the FIFO, one warning", async () => {
		const run = await runPiCli({
			script: REPAIRED_READ,
			files: { "a.txt": "hello from the file\n" },
			// The helper's telemetry path; nobody ever opens it for reading, so a blocking open would wait forever.
			prepare: ({ root }) => execFileSync("mkfifo", [join(root, "telemetry.jsonl")]),
			timeoutMs: 30_000,
		});
		try {
			expect(run.stderr).not.toContain("[pi-cli helper] killed");
			expect(run.exitCode).toBe(0);
			expect(run.stdout).toContain("hello from the file");
			expect(run.stderr.match(/tool-repair telemetry file .*telemetry\.jsonl is not a regular file/g)).toHaveLength(1);
		} finally {
			run.cleanup();
		}
	});

	it("never blocks /repair-stats: it is skipped with one warning", async () => {
		const run = await runPiCli({
			script: [],
			prompt: "/repair-stats",
			prepare: ({ root }) => execFileSync("mkfifo", [join(root, "telemetry.jsonl")]),
			timeoutMs: 30_000,
		});
		try {
			expect(run.stderr).not.toContain("[pi-cli helper] killed");
			expect(run.exitCode).toBe(0);
			expect(run.stderr.match(/telemetry\.jsonl is not a regular file; skipped/g)).toHaveLength(1);
			expect(run.stdout).toContain("nothing has been recorded");
		} finally {
			run.cleanup();
		}
	});
});

describe("/repair-stats of a tampered telemetry file", () => {
	it("prints every name with its escape sequences and line breaks made visible, never raw", async () => {
		const run = await runPiCli({
			script: [],
			prompt: "/repair-stats",
			prepare: ({ root }) =>
				writeFileSync(join(root, "telemetry.jsonl"), `${TAMPERED_RECORDS.map((r) => JSON.stringify(r)).join("\n")}\n`),
		});
		try {
			expect(run.exitCode).toBe(0);
			expect(run.stdout).toContain(TAMPERED_TOOL_SHOWN);
			expect(run.stdout).not.toMatch(UNPRINTABLE);
			expect(forgedLines(run.stdout)).toEqual([]);
		} finally {
			run.cleanup();
		}
	});
});

describe("telemetry created by a real run", () => {
	it("is a 0600 file in a 0700 folder under pi's agent folder", async () => {
		const run = await runPiCli({
			script: REPAIRED_READ,
			files: { "a.txt": "hello\n" },
			// The default location, as a user without PI_TOOL_REPAIR_TELEMETRY gets it.
			env: { PI_TOOL_REPAIR_TELEMETRY: undefined },
		});
		try {
			expect(run.exitCode).toBe(0);
			const folder = join(run.agentDir, "tool-repair");
			expect(statSync(join(folder, "telemetry.jsonl")).mode & 0o777).toBe(0o600);
			expect(statSync(folder).mode & 0o777).toBe(0o700);
		} finally {
			run.cleanup();
		}
	});
});

describe("a settings file with a JSON typo, in pi's RPC mode", () => {
	it("is kept while pi runs on defaults, survives a menu closed without a change, and is backed up when the user saves", async () => {
		const root = mkdtempSync(join(tmpdir(), "pi-repair-typo-"));
		const settingsPath = join(root, "settings.json");
		const typo = '{ "showNotes": true, "myComment": "keep me", }\n';
		writeFileSync(settingsPath, typo);
		const pi = startPiRpc({ root, env: { PI_TOOL_REPAIR_SETTINGS: settingsPath } });
		const summary = (r: { method?: string; message?: string }) =>
			r.method === "notify" && r.message?.startsWith("Tool repair settings:") === true;
		try {
			const warning = await pi.next((r) => r.method === "notify" && r.message?.includes("not valid JSON") === true);
			expect(warning.message).toContain("the file is left as it is");

			// Opened and closed without a change: nothing is written.
			pi.prompt("/repair-settings");
			pi.answer((await pi.next((r) => r.method === "select")).id, { cancelled: true });
			await pi.next(summary);
			expect(readFileSync(settingsPath, "utf8")).toBe(typo);
			expect(existsSync(`${settingsPath}.bak`)).toBe(false);

			// A change: saved, and the broken original kept beside it.
			pi.prompt("/repair-settings");
			const menu = await pi.next((r) => r.method === "select");
			pi.answer(menu.id, { value: menu.options?.find((option) => option.startsWith("Show indicator")) });
			pi.answer((await pi.next((r) => r.method === "select")).id, { value: "false" });
			pi.answer((await pi.next((r) => r.method === "select")).id, { cancelled: true });
			const notice = await pi.next((r) => r.method === "notify" && r.message?.includes(".bak") === true);
			await pi.next(summary);
			expect(notice.message).toContain(`${settingsPath}.bak`);
			expect(readFileSync(`${settingsPath}.bak`, "utf8")).toBe(typo);
			expect(JSON.parse(readFileSync(settingsPath, "utf8"))).toMatchObject({ showIndicator: false });
		} finally {
			pi.stop();
			rmSync(root, { recursive: true, force: true });
		}
	});
});
