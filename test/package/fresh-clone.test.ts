/**
 * A fresh clone, as a newcomer gets it: `git clone` of this repository into a
 * temporary folder, no `npm ci`, no build, loaded by the real pi CLI from this
 * project's node_modules, once with `pi -e <clone>` and once after
 * `pi install <clone>`. pi compiles the TypeScript and supplies its own
 * packages, so the manifest's entry must load without `dist/` or
 * `node_modules/` in the clone.
 *
 * The clone holds what is committed: run it after committing a change.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { node22, PI_BIN, type PiCliResult, REPO_ROOT, runPiCli } from "../helpers/pi-cli.ts";

const isGitCheckout = existsSync(join(REPO_ROOT, ".git"));
const temporary: string[] = [];
afterAll(() => {
	for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

function freshClone(): string {
	const parent = mkdtempSync(join(tmpdir(), "pi-repair-clone-"));
	temporary.push(parent);
	const clone = join(parent, "pi-repair-layer");
	const cloned = spawnSync("git", ["clone", "--quiet", "--no-hardlinks", REPO_ROOT, clone], { encoding: "utf8" });
	if (cloned.status !== 0) throw new Error(`git clone failed: ${cloned.stderr}`);
	return clone;
}

const readThroughAlias = [
	{ toolCalls: [{ id: "r1", name: "read", arguments: { file_path: "a.txt" } }] },
	{ type: "echo" as const },
];

function expectRepairedRead(run: PiCliResult, marker: string): void {
	expect(run.stderr).not.toContain("Failed to load extension");
	expect(run.exitCode, run.stderr).toBe(0);
	expect(run.stdout).toContain("--- tool result r1 (read, ok) ---");
	expect(run.stdout).toContain(marker);
	expect(run.stdout).toContain("<repair_note>");
}

describe.skipIf(!isGitCheckout)("a fresh clone with no install and no build", () => {
	const clone = isGitCheckout ? freshClone() : "";

	it("has neither dist/ nor node_modules/", () => {
		expect(existsSync(join(clone, "package.json"))).toBe(true);
		expect(existsSync(join(clone, "dist"))).toBe(false);
		expect(existsSync(join(clone, "node_modules"))).toBe(false);
	});

	it("loads with `pi -e <clone>` and repairs a call", { timeout: 180_000 }, async () => {
		const run = await runPiCli({ extension: clone, files: { "a.txt": "cloned\n" }, script: readThroughAlias });
		try {
			expectRepairedRead(run, "cloned");
		} finally {
			run.cleanup();
		}
	});

	it("loads after `pi install <clone>` and repairs a call", { timeout: 180_000 }, async () => {
		let installed: ReturnType<typeof spawnSync> | undefined;
		const run = await runPiCli({
			extension: false,
			noExtensions: false,
			files: { "a.txt": "installed from a clone\n" },
			script: readThroughAlias,
			prepare: ({ agentDir, workspace }) => {
				installed = spawnSync(node22(), [PI_BIN, "install", clone], {
					cwd: workspace,
					env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" },
					encoding: "utf8",
				});
			},
		});
		try {
			expect(installed?.status, String(installed?.stderr)).toBe(0);
			expectRepairedRead(run, "installed from a clone");
		} finally {
			run.cleanup();
		}
	});
});
