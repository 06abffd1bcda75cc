/**
 * The real `pi` TUI in a real 80×24 terminal: tmux runs pi (Node 22, this
 * checkout's index.ts as the extension, the scripted provider for a model, an
 * isolated PI_CODING_AGENT_DIR, offline), keys are sent with `tmux send-keys`,
 * and the screen is read back with `tmux capture-pane`. It checks that
 * `/repair-settings` is pi's settings list, that repeated Enter changes the
 * item under the cursor (and only it) and saves it, that the list closes with
 * a summary, and that `/repair-stats` scrolls with PgDn/End/Home in pi's
 * fullscreen mode and closes on a key.
 *
 * Skipped, with the reason printed, when tmux is not installed. The tmux
 * server runs on its own socket (`-L`) and only that server is stopped.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SETTING_ROWS, SETTINGS_MENU_TITLE } from "../../src/extension/commands/commands.ts";
import { node22, PI_BIN, REPO_ROOT, SCRIPTED_PROVIDER_PATH } from "../helpers/pi-cli.ts";

const tmuxVersion = spawnSync("tmux", ["-V"], { encoding: "utf8" });
const hasTmux = tmuxVersion.status === 0;
if (!hasTmux) console.warn("settings-menu.tmux.test.ts skipped: tmux is not installed (Debian package `tmux`).");

const SOCKET = `pi-repair-${process.pid}`;
const SESSION = "repair";
const tmuxEnv = { ...process.env, LANG: "C.UTF-8", LC_ALL: "C.UTF-8" };

function tmux(...args: string[]): string {
	return execFileSync("tmux", ["-u", "-L", SOCKET, ...args], { encoding: "utf8", env: tmuxEnv });
}

function screen(): string {
	return tmux("capture-pane", "-p", "-t", SESSION);
}

async function waitFor(predicate: (text: string) => boolean, what: string, timeoutMs = 30_000): Promise<string> {
	const end = Date.now() + timeoutMs;
	let last = "";
	while (Date.now() < end) {
		last = screen();
		if (predicate(last)) return last;
		await new Promise((resolve) => setTimeout(resolve, 150));
	}
	throw new Error(`Timed out waiting for ${what}. Screen:\n${last}`);
}

function type(text: string): void {
	tmux("send-keys", "-t", SESSION, "-l", text);
}

function press(...keys: string[]): void {
	for (const key of keys) tmux("send-keys", "-t", SESSION, key);
}

let root: string;
let settingsPath: string;

describe.skipIf(!hasTmux)("pi's TUI under tmux", () => {
	beforeAll(async () => {
		root = mkdtempSync(join(tmpdir(), "pi-repair-tmux-"));
		const agentDir = join(root, "agent");
		const workspace = join(root, "workspace");
		mkdirSync(agentDir, { recursive: true });
		mkdirSync(workspace, { recursive: true });
		settingsPath = join(root, "settings.json");
		const telemetryPath = join(root, "telemetry.jsonl");
		writeFileSync(join(root, "script.json"), "[]");
		// Thirty tools: a report taller than a 24-row terminal, so the view has to scroll.
		writeFileSync(
			telemetryPath,
			[
				...Array.from(
					{ length: 30 },
					(_, i) =>
						`{"ts":"2026-07-20T09:14:03.120Z","tool":"tool_${i}","model":"glm-4.6","outcome":"repaired","rules":["rule.${i}"],"profile":"adaptive","stages":["preprocess"]}`,
				),
				'{"ts":"2026-07-20T09:15:41.902Z","tool":"write","model":"glm-4.6","outcome":"unrepairable","rules":[],"profile":"adaptive","stages":[]}',
				"",
			].join("\n"),
		);
		const env: Record<string, string> = {
			PI_CODING_AGENT_DIR: agentDir,
			PI_OFFLINE: "1",
			PI_SCRIPTED_SCRIPT: join(root, "script.json"),
			PI_TOOL_REPAIR_SETTINGS: settingsPath,
			PI_TOOL_REPAIR_TELEMETRY: telemetryPath,
			LANG: "C.UTF-8",
		};
		const command = [
			`cd ${JSON.stringify(workspace)}`,
			...Object.entries(env).map(([key, value]) => `export ${key}=${JSON.stringify(value)}`),
			[
				node22(),
				PI_BIN,
				"--no-session",
				"-ne",
				"-e",
				SCRIPTED_PROVIDER_PATH,
				"-e",
				join(REPO_ROOT, "index.ts"),
				"--provider",
				"scripted",
				"--model",
				"scripted-1",
			]
				.map((part) => JSON.stringify(part))
				.join(" "),
		].join("\n");
		const script = join(root, "run.sh");
		writeFileSync(script, `${command}\n`);
		tmux("new-session", "-d", "-s", SESSION, "-x", "80", "-y", "24", `bash ${JSON.stringify(script)}`);
		await waitFor((text) => text.includes("scripted-1"), "pi to start");
	});

	afterAll(() => {
		try {
			tmux("kill-server");
		} catch {
			// The server already exited with pi.
		}
		if (root && existsSync(root)) rmSync(root, { recursive: true, force: true });
	});

	it("opens /repair-settings as a settings list with every item", async () => {
		type("/repair-settings");
		press("Enter");
		const menu = await waitFor((text) => text.includes(SETTINGS_MENU_TITLE), "the settings list");
		for (const row of SETTING_ROWS) expect(menu, menu).toContain(row.label);
		expect(menu).toMatch(/→ Policy profile +adaptive/);
		expect(menu).toMatch(/Show indicator +true/);
	});

	it("keeps the cursor on the item it changes: Down, then Enter three times, changes only the indicator", async () => {
		press("Down", "Enter");
		await waitFor((text) => /→ Show indicator +false/.test(text), "the indicator to turn off");
		press("Enter");
		await waitFor((text) => /→ Show indicator +true/.test(text), "the indicator to turn on");
		press("Enter");
		const menu = await waitFor((text) => /→ Show indicator +false/.test(text), "the indicator to turn off again");
		expect(menu).toMatch(/Policy profile +adaptive/);
		expect(menu).toMatch(/Show notes +false/);
		expect(JSON.parse(readFileSync(settingsPath, "utf8"))).toMatchObject({
			showIndicator: false,
			showNotes: false,
			policyProfile: "adaptive",
		});
	});

	it("closes on Escape with a summary", async () => {
		press("Escape");
		const after = await waitFor((text) => text.includes("Tool repair settings:"), "the summary");
		expect(after).not.toMatch(/→ Show indicator/);
		expect(after).toContain("showIndicator false");
	});

	it("scrolls /repair-stats with PgDn, End and Home in fullscreen, then closes it with q", async () => {
		type("/repair-stats");
		press("Enter");
		const view = await waitFor((text) => /lines 1–\d+ of \d+/.test(text), "the stats view");
		expect(view).toMatch(/31 records/);
		expect(view).toContain("PgUp PgDn Home End");
		const height = Number(/lines 1–(\d+) of/.exec(view)?.[1]);
		const total = Number(/lines 1–\d+ of (\d+)/.exec(view)?.[1]);
		press("PageDown");
		await waitFor((text) => text.includes(`lines ${height + 1}–`), "the view to page down");
		press("End");
		await waitFor((text) => new RegExp(`lines \\d+–${total} of ${total}`).test(text), "the view to jump to the end");
		press("Home");
		await waitFor((text) => /lines 1–\d+ of/.test(text), "the view to jump back to the top");
		type("q");
		await waitFor((text) => !text.includes("Enter or Esc closes"), "the stats view to close");
	});
});
