/**
 * The real pi CLI in print mode (-p --no-session, offline, isolated agent dir)
 * with the scripted provider and this extension: what a user of `pi -e` gets.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dsmlWrite } from "../helpers/dsml.ts";
import { node22, REPO_ROOT } from "../helpers/pi-cli.ts";
import { piCliPerTest } from "../helpers/pi-cli-per-test.ts";

const copies: string[] = [];
afterAll(() => {
	for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

/** Copies this checkout as a user would have it: package.json (with its `pi` manifest), its entries, src/. */
function copyCheckout(dir: string): string {
	for (const entry of ["package.json", "index.ts", "extension.ts", "src"])
		cpSync(join(REPO_ROOT, entry), join(dir, entry), { recursive: true });
	return dir;
}

/**
 * A checkout copy with a dist/ freshly compiled from the current sources, so
 * the test never depends on whatever (possibly stale) dist/ the tree holds.
 * Emit only (`--noCheck`): type checking is `npm run check`'s job.
 */
function builtCheckout(): string {
	const dir = copyCheckout(mkdtempSync(join(tmpdir(), "pi-repair-checkout-")));
	copies.push(dir);
	const tsc = join(REPO_ROOT, "node_modules/typescript/bin/tsc");
	const args = [tsc, "-p", join(REPO_ROOT, "tsconfig.build.json"), "--outDir", join(dir, "dist"), "--noCheck"];
	try {
		execFileSync(node22(), args, { cwd: REPO_ROOT, stdio: "pipe" });
	} catch {
		// Diagnostics do not stop the emit; the existence check below is what matters.
	}
	if (!existsSync(join(dir, "dist/index.js"))) throw new Error("the build emitted no dist/index.js");
	return dir;
}

describe("the real pi CLI with the repair layer loaded", () => {
	const cli = piCliPerTest();

	it("repairs an edit with an aliased path and flat old/new fields, and the model sees the note", async () => {
		const r = await cli({
			files: { "fixture.txt": "alpha beta gamma\n" },
			script: [
				{
					toolCalls: [
						{
							id: "e1",
							name: "edit",
							arguments: { file_path: "fixture.txt", old_string: "beta", new_string: "delta" },
						},
					],
				},
				{ type: "echo" },
			],
		});
		expect(r.exitCode).toBe(0);
		expect(r.readFile("fixture.txt")).toBe("alpha delta gamma\n");
		expect(r.stdout).toContain("--- tool result e1 (edit, ok) ---");
		expect(r.stdout).toContain("<repair_note>");
		expect(r.stdout).toContain("file_path");
	});

	it("rescues a write whose whole argument text is a JSON-stringified object", async () => {
		const r = await cli({
			script: [
				{
					toolCalls: [
						{
							id: "w1",
							name: "write",
							rawArguments: JSON.stringify(JSON.stringify({ path: "out.txt", content: "rescued\n" })),
						},
					],
				},
				{ type: "echo" },
			],
		});
		expect(r.exitCode).toBe(0);
		expect(r.readFile("out.txt")).toBe("rescued\n");
		expect(r.stdout).toContain("--- tool result w1 (write, ok) ---");
		expect(r.stdout).toContain("<repair_note>");
	});

	it("fails a garbage call closed: the retry message reaches the model and nothing is written", async () => {
		const r = await cli({
			script: [
				{ toolCalls: [{ id: "g1", name: "write", arguments: { path: "null.txt", content: null } }] },
				{ type: "echo" },
			],
		});
		expect(r.exitCode).toBe(0);
		expect(r.readFile("null.txt")).toBeUndefined();
		expect(r.stdout).toContain("--- tool result g1 (write, error) ---");
		expect(r.stdout).toContain("write");
		expect(r.stdout).toContain("Received:");
		expect(r.stdout).not.toContain("<repair_note>");
	});

	it("prints one value-free diagnostics line per repair with PI_TOOL_REPAIR_LOG", async () => {
		const secret = "s3cret-value-4417";
		const r = await cli({
			env: { PI_TOOL_REPAIR_LOG: "1" },
			script: [
				{
					toolCalls: [
						{ id: "b1", name: "bash", arguments: { cmd: `echo ${secret}` } },
						{ id: "b2", name: "bash", arguments: { command: "echo valid-call" } },
						{ id: "r1", name: "read", arguments: { nothing: secret } },
					],
				},
				{ type: "echo" },
			],
		});
		expect(r.exitCode).toBe(0);
		const lines = r.stderr.split("\n").filter((line) => line.startsWith("[pi-repair]"));
		expect(lines).toEqual([
			"[pi-repair] tool=bash outcome=repaired rules=preprocess.exact-alias",
			"[pi-repair] tool=read outcome=unrepairable rules=none issues=(root)|required|path",
		]);
		expect(r.stderr).not.toContain(secret);
		expect(r.stdout).toContain(secret);
	});

	it("logs leaked call text it strips instead of running: families, setting and count, never the text", async () => {
		const secret = "s3cret-leak-5521";
		const dsml = dsmlWrite(`${secret}.txt`, secret);
		const r = await cli({
			model: "deepseek-v4",
			env: { PI_TOOL_REPAIR_LOG: "1" },
			script: [{ text: `Saving the notes.\n${dsml}` }, { text: "done" }],
		});
		expect(r.exitCode).toBe(0);
		const lines = r.stderr.split("\n").filter((line) => line.startsWith("[pi-repair] leak="));
		expect(lines).toEqual(["[pi-repair] leak=stripped grammars=dsml mode=strip count=1"]);
		expect(r.stderr).not.toContain(secret);
		expect(existsSync(join(r.workspace, `${secret}.txt`))).toBe(false);
	});

	it("hands unrepairable input to pi's own validation with PI_TOOL_REPAIR_PASSTHROUGH", async () => {
		const r = await cli({
			env: { PI_TOOL_REPAIR_PASSTHROUGH: "1" },
			script: [{ toolCalls: [{ id: "r1", name: "read", arguments: { nothing: "useful" } }] }, { type: "echo" }],
		});
		expect(r.exitCode).toBe(0);
		expect(r.stdout).toContain("--- tool result r1 (read, error) ---");
		expect(r.stdout).toContain('Validation failed for tool "read"');
	});

	const readThroughAlias = [
		{ toolCalls: [{ id: "r1", name: "read", arguments: { file_path: "a.txt" } }] },
		{ type: "echo" as const },
	];

	it("loads a checkout with `pi -e <checkout>` through its package.json pi manifest (built dist)", {
		timeout: 180_000,
	}, async () => {
		const r = await cli({
			extension: builtCheckout(),
			files: { "a.txt": "from the manifest\n" },
			script: readThroughAlias,
		});
		expect(r.exitCode).toBe(0);
		expect(r.stdout).toContain("from the manifest");
		expect(r.stdout).toContain("<repair_note>");
	});

	it("is auto-discovered from the agent's extensions folder through the root index.ts (no build)", async () => {
		const r = await cli({
			extension: false,
			noExtensions: false,
			prepare: ({ agentDir }) => {
				copyCheckout(join(agentDir, "extensions", "pi-repair-layer"));
			},
			files: { "a.txt": "discovered\n" },
			script: readThroughAlias,
		});
		expect(r.exitCode).toBe(0);
		expect(r.stdout).toContain("discovered");
		expect(r.stdout).toContain("<repair_note>");
	});
});
