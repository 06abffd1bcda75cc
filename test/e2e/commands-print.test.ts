/**
 * Both commands through the real `pi` CLI in print mode (and json mode), with
 * this checkout loaded as the extension: the text must reach the user on the
 * real stdout (pi sends `process.stdout` to stderr in these modes), json
 * mode's stdout must stay pure JSON lines, and bad settings files must never
 * stop pi or be rewritten.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EMPTY_STATS_NOTICE } from "../../src/extension/commands/stats-report.ts";
import { runPiCli } from "../helpers/pi-cli.ts";

describe("/repair-stats in print mode", () => {
	it("prints the report of telemetry written by a real repair run", async () => {
		const repair = await runPiCli({
			script: [{ toolCalls: [{ id: "c1", name: "read", arguments: { file_path: "a.txt" } }] }, { type: "echo" }],
			files: { "a.txt": "hello\n" },
			keep: true,
		});
		try {
			expect(repair.exitCode).toBe(0);
			expect(repair.telemetry().length).toBeGreaterThan(0);
			const stats = await runPiCli({
				script: [],
				prompt: "/repair-stats",
				env: { PI_TOOL_REPAIR_TELEMETRY: repair.telemetryPath },
			});
			try {
				expect(stats.exitCode).toBe(0);
				expect(stats.stdout).toMatch(/Tool-repair telemetry: \d+ records? \(/);
				expect(stats.stdout).toContain("By tool:\n  read: 1 repaired, 0 recovered, 0 unrepairable");
				expect(stats.stdout).toContain("preprocess.exact-alias");
				// Print mode prints the report once; the charts belong to the TUI view.
				expect(stats.stdout).not.toContain("Outcomes by tool");
			} finally {
				stats.cleanup();
			}
		} finally {
			repair.cleanup();
		}
	});

	it("prints the empty notice when telemetry is off", async () => {
		const run = await runPiCli({ script: [], prompt: "/repair-stats", env: { PI_TOOL_REPAIR_TELEMETRY: "off" } });
		try {
			expect(run.exitCode).toBe(0);
			expect(run.stdout.trim()).toBe(EMPTY_STATS_NOTICE);
		} finally {
			run.cleanup();
		}
	});

	it("keeps json mode's stdout pure JSON lines and puts the report on stderr", async () => {
		const run = await runPiCli({
			script: [],
			prompt: "/repair-stats",
			args: ["--mode", "json"],
			prepare: ({ root }) => {
				writeFileSync(
					join(root, "telemetry.jsonl"),
					'{"ts":"2026-07-20T09:14:03.120Z","tool":"read","model":"m","outcome":"repaired","rules":["x"],"profile":"adaptive","stages":[]}\n',
				);
			},
		});
		try {
			expect(run.exitCode).toBe(0);
			for (const line of run.stdout.split("\n").filter((l) => l.trim() !== "")) {
				expect(() => JSON.parse(line)).not.toThrow();
			}
			expect(run.stderr).toContain("By tool:");
		} finally {
			run.cleanup();
		}
	});
});

describe("/repair-settings in print mode", () => {
	it("prints the settings in effect and how to change them", async () => {
		const run = await runPiCli({
			script: [],
			prompt: "/repair-settings",
			prepare: ({ root }) => {
				writeFileSync(join(root, "settings.json"), JSON.stringify({ policyProfile: "conservative" }));
			},
		});
		try {
			expect(run.exitCode).toBe(0);
			expect(run.stdout).toMatch(/policyProfile: +conservative/);
			expect(run.stdout).toMatch(/grammarRecovery: +observe/);
			expect(run.stdout).toContain(run.settingsPath);
			expect(readFileSync(run.settingsPath, "utf8")).toBe(JSON.stringify({ policyProfile: "conservative" }));
		} finally {
			run.cleanup();
		}
	});

	for (const [name, content] of [
		["truncated JSON", '{"showIndicator": fal'],
		["JSON null", "null"],
		["wrong types", '{"showIndicator":"yes","policyProfile":7}'],
	] as const) {
		it(`starts normally with ${name} in the settings file, warns once and leaves the file alone`, async () => {
			const run = await runPiCli({
				script: [],
				prompt: "/repair-settings",
				prepare: ({ root }) => writeFileSync(join(root, "settings.json"), content),
			});
			try {
				expect(run.exitCode).toBe(0);
				expect(run.stdout).toMatch(/policyProfile: +adaptive/);
				expect(run.stderr.match(/tool-repair settings file/g) ?? []).toHaveLength(1);
				expect(readFileSync(run.settingsPath, "utf8")).toBe(content);
			} finally {
				run.cleanup();
			}
		});
	}
});
