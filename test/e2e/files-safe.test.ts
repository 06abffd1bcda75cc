/**
 * The files the layer writes and reads, through the real `pi` CLI: a FIFO at
 * the telemetry path never stalls a tool call or `/repair-stats` (it is
 * skipped with one warning), a tampered telemetry file never puts an escape
 * sequence on the screen, and the telemetry it creates in pi's agent folder is
 * private to the user.
 */
import { execFileSync } from "node:child_process";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runPiCli } from "../helpers/pi-cli.ts";

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
		const forged = [
			{
				ts: "2026-07-20T09:00:00.000Z",
				tool: "\u001b[2J\u001b]0;owned\u0007read\nRules fired:\n  forged: 99",
				model: "\u009b31mglm\r",
				owner: "\u001b[1mmcp",
				outcome: "repaired",
				rules: ["rule\r\n[pi-repair] forged", "\u202eevil"],
			},
			{ ts: "2026-07-20T09:00:01.000Z", outcome: "stripped", channel: "message", rules: ["x"], grammar: "\u001b[5mq" },
		];
		const run = await runPiCli({
			script: [],
			prompt: "/repair-stats",
			prepare: ({ root }) =>
				writeFileSync(join(root, "telemetry.jsonl"), `${forged.map((r) => JSON.stringify(r)).join("\n")}\n`),
		});
		try {
			expect(run.exitCode).toBe(0);
			expect(run.stdout).toContain("?[2J?]0;owned?read?Rules fired:?  forged: 99");
			expect(run.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e]/);
			expect(run.stdout.split("\n").filter((line) => line.trim().startsWith("forged"))).toEqual([]);
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
