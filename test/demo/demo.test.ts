/**
 * `npm run demo` is also a smoke test: it must end every step as expected
 * with the layer loaded, print plain text that fits 80 columns when stdout is
 * not a terminal, compare against pi alone with `--without-layer` (exit 0,
 * pi's own errors readable), and print its usage for `--help` or an unknown
 * flag instead of running.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { visibleWidth } from "@earendil-works/pi-tui";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/pi-cli.ts";

interface DemoRun {
	code: number | null;
	stdout: string;
	stderr: string;
}

function runDemo(args: readonly string[], columns?: string): Promise<DemoRun> {
	// Without NO_COLOR, so plain output proves the demo checks for a terminal itself.
	const env = { ...process.env };
	delete env.NO_COLOR;
	delete env.COLUMNS;
	if (columns !== undefined) env.COLUMNS = columns;
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [join(REPO_ROOT, "scripts", "demo", "run.ts"), ...args], {
			cwd: REPO_ROOT,
			env,
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stdout = "";
		let stderr = "";
		child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
			stdout += chunk;
		});
		child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
			stderr += chunk;
		});
		child.on("error", reject);
		child.on("close", (code) => resolve({ code, stdout, stderr }));
	});
}

function widest(text: string): { width: number; line: string } {
	let best = { width: 0, line: "" };
	for (const line of text.split("\n")) {
		const width = visibleWidth(line);
		if (width > best.width) best = { width, line };
	}
	return best;
}

describe("npm run demo", () => {
	it("ends every step as expected through the real pi CLI, in plain text that fits 80 columns", async () => {
		const { code, stdout, stderr } = await runDemo([]);
		const output = stdout + stderr;
		expect(output, output).toMatch(/All \d+ steps ended as expected/);
		expect(code, output).toBe(0);
		expect(output).not.toContain("\x1b[");
		for (const verdict of ["repaired", "rescued", "refused", "valid"]) expect(stdout).toContain(verdict);
		expect(stdout).toContain("note        ");
		expect(stdout).toContain("Workspace after the run");
		expect(stdout).toContain("/repair-stats for this run");
		// Print mode gives the stats report once, as text: the same tallies never appear again as charts.
		expect(stdout.match(/Tool-repair telemetry:/g)).toHaveLength(1);
		const { width, line } = widest(stdout);
		expect(width, line).toBeLessThanOrEqual(80);
		expect(width).toBeGreaterThan(60);
	}, 180_000);

	it("compares with pi alone: says pi refused, keeps pi's error readable, fits COLUMNS and exits 0", async () => {
		const { code, stdout, stderr } = await runDemo(["--without-layer"], "60");
		expect(code, stdout + stderr).toBe(0);
		expect(stdout).toContain("pi refused");
		expect(stdout).toContain('Validation failed for tool "read":');
		expect(stdout).toContain("- path: missing");
		expect(stdout).toContain("with layer  repaired");
		expect(stdout).toMatch(/pi alone: refused \d+ of \d+ calls/);
		expect(stdout).not.toContain("unexpected:");
		const { width, line } = widest(stdout);
		expect(width, line).toBeLessThanOrEqual(60);
	}, 180_000);

	it("proves its step checker can fail: pi alone's run, checked against the steps, exits 1", async () => {
		const { code, stdout, stderr } = await runDemo(["--without-layer", "--check"], "80");
		expect(code, stdout + stderr).toBe(1);
		expect(stdout).toMatch(/\d+ of \d+ steps did not end as expected/);
		expect(stdout).not.toContain("All ");
		// pi alone refuses the classic mistakes, so the checked steps name what they expected instead.
		expect(stdout).toContain("expected");
	}, 180_000);

	it("refuses --check without --without-layer (the layer's run is always checked)", async () => {
		const { code, stderr } = await runDemo(["--check"]);
		expect(code).toBe(2);
		expect(stderr).toContain("--check only applies with --without-layer");
	});

	it("prints its usage for --help and runs nothing", async () => {
		const { code, stdout } = await runDemo(["--help"]);
		expect(code).toBe(0);
		expect(stdout).toContain("Usage: npm run demo");
		expect(stdout).toContain("--without-layer");
		expect(stdout).not.toContain("pi-repair-layer demo:");
	});

	it("prints its usage for an unknown flag and exits 2", async () => {
		const { code, stdout, stderr } = await runDemo(["--bogus"]);
		expect(code).toBe(2);
		expect(stderr).toContain("--bogus");
		expect(stderr).toContain("Usage: npm run demo");
		expect(stdout).toBe("");
	});
});
