/**
 * `npm run demo` is also a smoke test: it must end every step as expected
 * with the layer loaded, print plain text when stdout is not a terminal, and
 * exit non-zero when steps go wrong, which running the same script through pi
 * alone (`--without-layer`) shows.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/pi-cli.ts";

function runDemo(args: readonly string[]): Promise<{ code: number | null; output: string }> {
	// Without NO_COLOR, so plain output proves the demo checks for a terminal itself.
	const env = { ...process.env };
	delete env.NO_COLOR;
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [join(REPO_ROOT, "scripts", "demo", "run.ts"), ...args], {
			cwd: REPO_ROOT,
			env,
			stdio: ["ignore", "pipe", "pipe"],
		});
		let output = "";
		child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
			output += chunk;
		});
		child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
			output += chunk;
		});
		child.on("error", reject);
		child.on("close", (code) => resolve({ code, output }));
	});
}

describe("npm run demo", () => {
	it("ends every step as expected through the real pi CLI and prints plain text to a pipe", async () => {
		const { code, output } = await runDemo([]);
		expect(output, output).toMatch(/All \d+ steps ended as expected/);
		expect(code, output).toBe(0);
		expect(output).not.toContain("\x1b[");
		for (const verdict of ["repaired", "rescued", "refused", "valid"]) expect(output).toContain(verdict);
		expect(output).toContain("Workspace after the run");
		expect(output).toContain("/repair-stats for this run");
	}, 180_000);

	it("exits non-zero when steps do not end as expected (pi without the layer)", async () => {
		const { code, output } = await runDemo(["--without-layer"]);
		expect(output).toMatch(/\d+ of \d+ steps did not end as expected/);
		expect(output).toContain("unexpected: expected repaired, got refused");
		expect(code).toBe(1);
	}, 180_000);
});
