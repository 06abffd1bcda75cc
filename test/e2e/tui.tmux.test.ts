/**
 * What a person sees in pi's interactive TUI: the real `pi` (no -p) runs under
 * tmux with the scripted provider and this extension; we type a prompt, wait
 * for the scripted turn to finish and read the screen. A repaired call shows
 * the muted `🔨 ✓ input repaired (...)` line under its result and the footer
 * counts the repair; a clean call shows neither; leaked call text that is
 * stripped instead of run is counted in the footer.
 *
 * Skipped, with a message, where tmux is not installed (.ci/run installs it).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SANDBOX_PREFIX } from "../fixtures/composing-extension.ts";
import type { ScriptStep } from "../fixtures/scripted-provider.ts";
import { dsmlWrite } from "../helpers/dsml.ts";
import { EXTENSION_ENTRY, node22, PI_BIN, REPO_ROOT, SCRIPTED_PROVIDER_PATH } from "../helpers/pi-cli.ts";

const COMPOSING_EXTENSION = join(REPO_ROOT, "test", "fixtures", "composing-extension.ts");

const hasTmux = spawnSync("tmux", ["-V"], { stdio: "ignore" }).status === 0;
if (!hasTmux) console.warn("tui.tmux.test: tmux is not installed; skipping the interactive TUI checks");

/** One tmux server per run (its own socket), so closing one run's server never races the next run's start. */
const sockets: string[] = [];
const roots: string[] = [];
let runs = 0;
afterEach(() => {
	for (const socket of sockets.splice(0)) spawnSync("tmux", ["-L", socket, "kill-server"], { stdio: "ignore" });
	for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function shellQuote(value: string): string {
	return `'${value.replaceAll("'", "'\\''")}'`;
}

/** Starts pi's TUI in a detached tmux session and returns a screen reader. */
function startTui(
	script: readonly ScriptStep[],
	files: Record<string, string>,
	model = "scripted-1",
	options: {
		extensionsAfter?: readonly string[];
		env?: Record<string, string>;
		settings?: unknown;
		rows?: number;
	} = {},
) {
	const root = mkdtempSync(join(tmpdir(), "pi-repair-tui-"));
	roots.push(root);
	const workspace = join(root, "workspace");
	mkdirSync(join(root, "agent"), { recursive: true });
	mkdirSync(workspace, { recursive: true });
	for (const [name, content] of Object.entries(files)) writeFileSync(join(workspace, name), content);
	writeFileSync(join(root, "script.json"), JSON.stringify(script));
	if (options.settings !== undefined) writeFileSync(join(root, "settings.json"), JSON.stringify(options.settings));
	const env = {
		...options.env,
		PATH: `${dirname(node22())}:${process.env.PATH ?? ""}`,
		PI_CODING_AGENT_DIR: join(root, "agent"),
		PI_OFFLINE: "1",
		PI_SCRIPTED_SCRIPT: join(root, "script.json"),
		PI_SCRIPTED_MODEL: model,
		PI_TOOL_REPAIR_TELEMETRY: "off",
		PI_TOOL_REPAIR_SETTINGS: join(root, "settings.json"),
	};
	const exports = Object.entries(env)
		.map(([key, value]) => `${key}=${shellQuote(value)}`)
		.join(" ");
	const pi = [node22(), PI_BIN, "--no-session", "-ne", "-e", SCRIPTED_PROVIDER_PATH, "-e", EXTENSION_ENTRY]
		.concat((options.extensionsAfter ?? []).flatMap((path) => ["-e", path]))
		.concat(["--provider", "scripted", "--model", model])
		.map(shellQuote)
		.join(" ");
	runs += 1;
	const name = `pi-repair-tui-${process.pid}-${runs}`;
	sockets.push(name);
	const tmux = (args: readonly string[]) => execFileSync("tmux", ["-L", name, ...args], { encoding: "utf8" });
	tmux([
		"new-session",
		"-d",
		"-s",
		name,
		"-x",
		"80",
		"-y",
		String(options.rows ?? 24),
		`cd ${shellQuote(workspace)} && env ${exports} ${pi}`,
	]);
	const screen = () => tmux(["capture-pane", "-t", name, "-p"]);
	const waitFor = async (text: string, timeoutMs = 45_000): Promise<string> => {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const current = screen();
			if (current.includes(text)) return current;
			if (Date.now() > deadline) throw new Error(`timed out waiting for ${JSON.stringify(text)}; screen:\n${current}`);
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
	};
	const type = (text: string) => {
		tmux(["send-keys", "-t", name, "-l", text]);
		tmux(["send-keys", "-t", name, "Enter"]);
	};
	const press = (key: string) => tmux(["send-keys", "-t", name, key]);
	return { screen, waitFor, type, press };
}

describe.skipIf(!hasTmux)("pi's interactive TUI with the repair layer", () => {
	it("shows the repair indicator under a repaired call and the tally in the footer", { timeout: 90_000 }, async () => {
		const tui = startTui(
			[
				{ toolCalls: [{ id: "r1", name: "read", arguments: { file_path: "a.txt" } }] },
				{ text: "finished the repaired read" },
			],
			{ "a.txt": "hello\n" },
		);
		await tui.waitFor("scripted-1");
		tui.type("go");
		const screen = await tui.waitFor("finished the repaired read");
		expect(screen).toContain("🔨 ✓ input repaired (preprocess.exact-alias)");
		expect(screen).toContain("🔨 1 repaired");
		expect(screen).not.toContain("<repair_note>");
	});

	it("never shows the model's <repair_note> text, on a failed result or expanded with Ctrl+O", {
		timeout: 90_000,
	}, async () => {
		const tui = startTui(
			[
				{ toolCalls: [{ id: "r1", name: "read", arguments: { file_path: "missing.txt" } }] },
				{ text: "finished the failed read" },
			],
			{},
		);
		await tui.waitFor("scripted-1");
		tui.type("go");
		const collapsed = await tui.waitFor("finished the failed read");
		expect(collapsed).toContain("🔨 ✓ input repaired (preprocess.exact-alias)");
		expect(collapsed).not.toContain("repair_note");
		tui.press("C-o");
		await new Promise((resolve) => setTimeout(resolve, 1000));
		const expanded = tui.screen();
		expect(expanded).toContain("🔨 ✓ input repaired");
		expect(expanded).not.toContain("repair_note");
	});

	it("keeps the indicator when Ctrl+O expands a long result, and the expanded view shows the lines the collapsed one hid", {
		timeout: 90_000,
	}, async () => {
		const lines = Array.from({ length: 40 }, (_, index) => `line ${String(index + 1).padStart(2, "0")} of the file`);
		const tui = startTui(
			[
				{ toolCalls: [{ id: "r1", name: "read", arguments: { file_path: "long.txt" } }] },
				{ text: "finished the long read" },
			],
			{ "long.txt": `${lines.join("\n")}\n` },
		);
		await tui.waitFor("scripted-1");
		tui.type("go");
		const collapsed = await tui.waitFor("finished the long read");
		expect(collapsed).toContain("🔨 ✓ input repaired (preprocess.exact-alias)");
		// pi shows the head of a long read collapsed; the tail is what expanding adds.
		expect(collapsed).not.toContain("line 40 of the file");
		tui.press("C-o");
		const expanded = await tui.waitFor("line 40 of the file", 10_000);
		expect(expanded).toContain("🔨 ✓ input repaired");
		expect(expanded).not.toContain("repair_note");
	});

	it("counts leaked call text it stripped in the footer, so the user knows a call did not run", {
		timeout: 90_000,
	}, async () => {
		const dsml = dsmlWrite("leak.txt", "x");
		const tui = startTui(
			[{ text: `Saving the notes.\n${dsml}` }, { text: "finished after the leak" }],
			{},
			"deepseek-v4",
		);
		await tui.waitFor("deepseek-v4");
		tui.type("go");
		const screen = await tui.waitFor("finished after the leak");
		expect(screen).toContain("🔨 1 leak stripped");
		expect(screen).not.toContain("DSML");
	});

	it("draws a rescued call under its real header, live and expanded with Ctrl+O", { timeout: 90_000 }, async () => {
		const tui = startTui(
			[
				{
					toolCalls: [
						{
							id: "w1",
							name: "write",
							rawArguments: JSON.stringify(JSON.stringify({ path: "notes.md", content: "hi\n" })),
						},
						{ id: "b1", name: "bash", rawArguments: JSON.stringify(JSON.stringify({ command: "ls -la" })) },
					],
				},
				{ text: "finished the rescued calls" },
			],
			{},
			"scripted-1",
			{ rows: 60 },
		);
		await tui.waitFor("scripted-1");
		tui.type("go");
		const collapsed = await tui.waitFor("finished the rescued calls");
		// What pi renders is the repaired call: the write names its file, the bash its command.
		expect(collapsed).toContain("write notes.md");
		expect(collapsed).toContain("$ ls -la");
		expect(collapsed).toContain("🔨 2 repaired");
		tui.press("C-o");
		await new Promise((resolve) => setTimeout(resolve, 1000));
		const expanded = tui.screen();
		expect(expanded).toContain("$ ls -la");
		expect(expanded).toContain("🔨 ✓ input repaired");
	});

	it("leaves a sandboxed bash registered late by another extension in place and repairs its calls", {
		timeout: 90_000,
	}, async () => {
		const tui = startTui(
			[
				{ toolCalls: [{ id: "b1", name: "bash", arguments: { cmd: "echo sandboxed" } }] },
				{ text: "finished the sandboxed call" },
			],
			{},
			"scripted-1",
			{
				extensionsAfter: [COMPOSING_EXTENSION],
				env: { PI_FIXTURE_LATE_BASH: "1" },
				settings: { toolAliases: { bash: { command: ["cmd"] } } },
			},
		);
		await tui.waitFor("scripted-1");
		tui.type("go");
		const screen = await tui.waitFor("finished the sandboxed call");
		expect(screen).toContain(`${SANDBOX_PREFIX}echo sandboxed`);
		expect(screen).toContain("$ echo sandboxed");
		expect(screen).toContain("🔨 ✓ input repaired");
	});

	it("shows no indicator for a clean call", { timeout: 90_000 }, async () => {
		const tui = startTui(
			[{ toolCalls: [{ id: "r1", name: "read", arguments: { path: "a.txt" } }] }, { text: "finished the clean read" }],
			{ "a.txt": "hello\n" },
		);
		await tui.waitFor("scripted-1");
		tui.type("go");
		const screen = await tui.waitFor("finished the clean read");
		expect(screen).not.toContain("🔨");
	});
});
