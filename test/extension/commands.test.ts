/**
 * `/repair-settings` and `/repair-stats` run through pi's real command
 * dispatch: a real agent session (`startPiSession`) with an extension that
 * calls `registerRepairCommands`, and `session.prompt("/repair-…")`.
 *
 * The one stand-in is the UI context. pi's interactive mode builds it around a
 * live terminal, so this test supplies its own `ExtensionUIContext` whose
 * `select` and `input` drive pi's own dialog components
 * (`ExtensionSelectorComponent`, `ExtensionInputComponent`) with scripted key
 * presses, and whose `custom` runs our component with pi-tui's real
 * keybindings. What the user would see is captured from those components'
 * `render()`. The real terminal is covered by test/e2e/settings-menu.tmux.test.ts.
 *
 * The settings host below is a plain live object saved on every change, the
 * behaviour `SettingsHost` promises.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	type ExtensionAPI,
	ExtensionInputComponent,
	ExtensionSelectorComponent,
	type ExtensionUIContext,
	initTheme,
} from "@earendil-works/pi-coding-agent";
import { getKeybindings } from "@earendil-works/pi-tui";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
	applySetting,
	CLOSE_ITEM,
	parseAllowedToolsInput,
	registerRepairCommands,
	SETTING_ROWS,
	SETTINGS_MENU_TITLE,
	settingsMenuItems,
	settingsSummary,
	showSettingsWarning,
	unsavedWarning,
} from "../../src/extension/commands/commands.ts";
import { EMPTY_STATS_NOTICE } from "../../src/extension/commands/stats-report.ts";
import {
	defaultRepairSettings,
	loadRepairSettings,
	SETTINGS_KEYS,
	saveRepairSettings,
} from "../../src/extension/files/settings.ts";
import { createTelemetryRecorder } from "../../src/extension/files/telemetry.ts";
import type { RepairSettings, SettingsHost } from "../../src/extension/host/types.ts";
import { type PiSessionHarness, startPiSession } from "../helpers/pi-session.ts";

const KEY = {
	up: "\u001b[A",
	down: "\u001b[B",
	enter: "\r",
	escape: "\u001b",
	pageDown: "\u001b[6~",
	home: "\u001b[H",
	end: "\u001b[F",
} as const;

beforeAll(() => {
	// pi's dialog components style text with the global theme.
	initTheme("dark", false);
});

class FileSettingsHost implements SettingsHost {
	private settings: RepairSettings;
	private readonly path: string;
	readonly updates: RepairSettings[] = [];
	constructor(path: string) {
		this.path = path;
		this.settings = loadRepairSettings(path);
	}
	current(): RepairSettings {
		return this.settings;
	}
	update(next: RepairSettings): void {
		this.settings = next;
		this.updates.push(next);
		saveRepairSettings(next, this.path);
	}
}

interface Dialog {
	kind: "select" | "input";
	title: string;
	options?: string[];
	screen: string[];
}

/** Answers dialogs with scripted key presses, through pi's own dialog components. */
class ScriptedTerminalUi {
	readonly dialogs: Dialog[] = [];
	readonly notifications: { message: string; type: string | undefined }[] = [];
	readonly customScreens: string[][] = [];
	readonly customComponents: { capturesViewportInput?: boolean }[] = [];
	readonly customOptions: unknown[] = [];
	private readonly keys: string[][] = [];

	/** Key presses for the next dialogs, one list per dialog. */
	press(...perDialog: string[][]): this {
		this.keys.push(...perDialog);
		return this;
	}

	private nextKeys(): string[] {
		return this.keys.shift() ?? [KEY.escape];
	}

	context(): ExtensionUIContext {
		const ui = {
			select: (title: string, options: string[]) =>
				new Promise<string | undefined>((resolve) => {
					const selector = new ExtensionSelectorComponent(title, options, resolve, () => resolve(undefined));
					this.dialogs.push({ kind: "select", title, options, screen: strip(selector.render(120)) });
					for (const key of this.nextKeys()) selector.handleInput(key);
				}),
			input: (title: string) =>
				new Promise<string | undefined>((resolve) => {
					const input = new ExtensionInputComponent(title, undefined, resolve, () => resolve(undefined));
					this.dialogs.push({ kind: "input", title, screen: strip(input.render(120)) });
					for (const key of this.nextKeys()) input.handleInput(key);
				}),
			notify: (message: string, type?: "info" | "warning" | "error") => {
				this.notifications.push({ message, type });
			},
			custom: (factory: (...args: unknown[]) => unknown, options?: unknown) =>
				new Promise((resolve) => {
					this.customOptions.push(options);
					const tui = { requestRender: () => {}, terminal: { rows: 20 } };
					const theme = { fg: (_c: string, t: string) => t, bold: (t: string) => t };
					const component = factory(tui, theme, getKeybindings(), resolve) as {
						render(width: number): string[];
						handleInput(data: string): void;
						capturesViewportInput?: boolean;
					};
					this.customComponents.push(component);
					this.customScreens.push(strip(component.render(80)));
					for (const key of this.nextKeys()) {
						component.handleInput(key);
						this.customScreens.push(strip(component.render(80)));
					}
				}),
		};
		return ui as unknown as ExtensionUIContext;
	}
}

function strip(lines: readonly string[]): string[] {
	return lines.map((line) => line.replace(/\u001b\[[0-9;?]*[A-Za-z]|\u001b\]8;;[^\u0007]*\u0007/g, ""));
}

let dir: string;
let settingsFile: string;
let telemetryFile: string;
let run: PiSessionHarness | undefined;
let host: FileSettingsHost;
let written: { text: string; stream: "stdout" | "stderr" }[];

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "repair-commands-"));
	settingsFile = join(dir, "settings.json");
	telemetryFile = join(dir, "telemetry.jsonl");
	host = new FileSettingsHost(settingsFile);
	written = [];
});

afterEach(async () => {
	await run?.dispose();
	run = undefined;
	rmSync(dir, { recursive: true, force: true });
});

async function startWith(
	mode: "tui" | "rpc" | "json" | "print",
	ui?: ScriptedTerminalUi,
	telemetry: (() => string | undefined) | "env" = () => telemetryFile,
) {
	const extension = (pi: ExtensionAPI) =>
		registerRepairCommands(pi, host, {
			...(telemetry === "env" ? {} : { telemetryPath: telemetry }),
			settingsPath: () => settingsFile,
			now: () => Date.parse("2026-07-20T12:00:00.000Z"),
			write: (text, stream) => written.push({ text, stream }),
			knownTools: () => ["read", "bash", "edit", "write"],
		});
	run = await startPiSession({ extensions: [extension], tools: [] });
	await run.session.bindExtensions(ui ? { mode, uiContext: ui.context() } : { mode });
	return run;
}

function fileSettings(): RepairSettings {
	return JSON.parse(readFileSync(settingsFile, "utf8"));
}

/** The last screen the settings list drew, as one text. */
function lastScreen(ui: ScriptedTerminalUi): string {
	return ui.customScreens.at(-1)?.join("\n") ?? "";
}

describe("/repair-settings in the TUI: pi's settings list", () => {
	it("shows every setting with its value, and the description of the item under the cursor", async () => {
		const ui = new ScriptedTerminalUi().press([KEY.escape]);
		const session = await startWith("tui", ui);
		await session.session.prompt("/repair-settings");
		const screen = ui.customScreens[0]?.join("\n") ?? "";
		expect(screen).toContain(SETTINGS_MENU_TITLE);
		for (const row of SETTING_ROWS) expect(screen).toContain(row.label);
		expect(screen).toMatch(/Policy profile +adaptive/);
		expect(screen).toMatch(/Show indicator +true/);
		expect(screen).toMatch(/Grammar recovery +strip/);
		expect(screen).toMatch(/Grammar allowed tools +\(active tools\)/);
		expect(screen).toContain(SETTING_ROWS[0]?.description.slice(0, 30));
	});

	it("changes the value under the cursor in place and keeps the cursor on that item", async () => {
		// Down to "Show indicator", then Enter three times: the same item changes each time.
		const ui = new ScriptedTerminalUi().press([KEY.down, KEY.enter, KEY.enter, KEY.enter, KEY.escape]);
		const session = await startWith("tui", ui);
		await session.session.prompt("/repair-settings");
		expect(host.updates.map((s) => s.showIndicator)).toEqual([false, true, false]);
		expect(host.updates.every((s) => s.policyProfile === "adaptive" && s.showNotes === false)).toBe(true);
		expect(fileSettings()).toMatchObject({ showIndicator: false, policyProfile: "adaptive" });
		expect(ui.customScreens[2]?.join("\n")).toMatch(/→ Show indicator +false/);
	});

	it("shows the grammar recovery a new profile brings, at once", async () => {
		const ui = new ScriptedTerminalUi().press([KEY.enter, KEY.escape]);
		const session = await startWith("tui", ui);
		await session.session.prompt("/repair-settings");
		expect(host.updates).toEqual([expect.objectContaining({ policyProfile: "recover", grammarRecovery: "recover" })]);
		expect(ui.customScreens[1]?.join("\n")).toMatch(/Grammar recovery +recover/);
	});

	it("closes on Escape and always ends with a one-line summary naming every setting by its key", async () => {
		const ui = new ScriptedTerminalUi().press([KEY.escape]);
		const session = await startWith("tui", ui);
		await session.session.prompt("/repair-settings");
		expect(host.updates).toHaveLength(0);
		expect(ui.notifications).toEqual([{ message: settingsSummary(defaultRepairSettings()), type: "info" }]);
		const summary = ui.notifications[0]?.message ?? "";
		expect(summary.split("\n")).toHaveLength(1);
		for (const row of SETTING_ROWS) expect(summary).toContain(row.key);
		expect(summary).toContain("grammarRecovery strip");
	});

	it("edits the allowed tools in a one-line input and warns about names pi does not know", async () => {
		const toAllowed = [...Array(5).fill(KEY.down), KEY.enter];
		const ui = new ScriptedTerminalUi().press([...toAllowed, ..."read, bsah ,read", KEY.enter, KEY.escape]);
		const session = await startWith("tui", ui);
		await session.session.prompt("/repair-settings");
		expect(host.updates.map((s) => s.grammarAllowedTools)).toEqual([["read", "bsah"]]);
		expect(fileSettings().grammarAllowedTools).toEqual(["read", "bsah"]);
		expect(ui.notifications.filter((n) => n.type === "warning")).toEqual([
			{ message: expect.stringContaining("does not know: bsah"), type: "warning" },
		]);
		expect(lastScreen(ui)).toMatch(/Grammar allowed tools +read, bsah/);
	});

	it("refuses a bad tool name with a warning and keeps the list", async () => {
		const toAllowed = [...Array(5).fill(KEY.down), KEY.enter];
		const ui = new ScriptedTerminalUi().press([...toAllowed, ..."rm;", KEY.enter, KEY.escape]);
		const session = await startWith("tui", ui);
		await session.session.prompt("/repair-settings");
		expect(host.updates).toHaveLength(0);
		expect(ui.notifications.filter((n) => n.type === "warning")).toHaveLength(1);
	});
});

describe("/repair-settings in RPC mode: dialogs the client draws", () => {
	it("offers each setting, then its values, and applies the choice", async () => {
		// Main menu: down to "Show indicator", Enter; its values: down to "false", Enter; main menu again: Escape.
		const ui = new ScriptedTerminalUi().press([KEY.down, KEY.enter], [KEY.down, KEY.enter], [KEY.escape]);
		const session = await startWith("rpc", ui);
		await session.session.prompt("/repair-settings");
		expect(ui.dialogs.map((d) => d.kind)).toEqual(["select", "select", "select"]);
		expect(ui.dialogs[0]?.options).toEqual(settingsMenuItems(defaultRepairSettings()));
		expect(ui.dialogs[0]?.options?.at(-1)).toBe(CLOSE_ITEM);
		expect(ui.dialogs[1]?.options).toEqual(["true", "false"]);
		expect(ui.dialogs[2]?.options?.[1]).toBe("Show indicator: false");
		expect(host.updates).toEqual([expect.objectContaining({ showIndicator: false })]);
		expect(written).toHaveLength(0);
		expect(ui.notifications.at(-1)?.message).toContain("showIndicator false");
	});

	it("edits the allowed tools through an input dialog", async () => {
		const toAllowed = [...Array(5).fill(KEY.down), KEY.enter];
		const ui = new ScriptedTerminalUi().press(toAllowed, [..."read", KEY.enter], [KEY.escape]);
		const session = await startWith("rpc", ui);
		await session.session.prompt("/repair-settings");
		expect(ui.dialogs.map((d) => d.kind)).toEqual(["select", "input", "select"]);
		expect(host.updates.map((s) => s.grammarAllowedTools)).toEqual([["read"]]);
	});
});

describe("/repair-settings when the file cannot be saved", () => {
	it("applies the change, warns once that it was not saved, and keeps going", async () => {
		writeFileSync(join(dir, "blocker"), "x");
		settingsFile = join(dir, "blocker", "settings.json");
		host = new FileSettingsHost(settingsFile);
		const ui = new ScriptedTerminalUi().press([KEY.enter, KEY.enter, KEY.escape]);
		const session = await startWith("tui", ui);
		await session.session.prompt("/repair-settings");
		expect(host.updates.map((s) => s.policyProfile)).toEqual(["recover", "conservative"]);
		expect(ui.notifications.filter((n) => n.type === "warning")).toEqual([
			{ message: unsavedWarning(settingsFile), type: "warning" },
		]);
		expect(ui.notifications.at(-1)?.message).toContain("policyProfile conservative");
	});

	it("does not warn when the change was saved", async () => {
		const ui = new ScriptedTerminalUi().press([KEY.enter, KEY.escape]);
		const session = await startWith("tui", ui);
		await session.session.prompt("/repair-settings");
		expect(ui.notifications.filter((n) => n.type === "warning")).toEqual([]);
	});
});

describe("showSettingsWarning", () => {
	it("notifies in the UI when there is one, else writes one stderr line, and ignores no warning", () => {
		const notes: string[] = [];
		const lines: string[] = [];
		const ui = { notify: (message: string) => notes.push(message) } as unknown as ExtensionUIContext;
		showSettingsWarning({ hasUI: true, ui }, "bad file", (text) => lines.push(text));
		showSettingsWarning({ hasUI: false, ui }, "bad file", (text) => lines.push(text));
		showSettingsWarning({ hasUI: true, ui }, undefined, (text) => lines.push(text));
		expect(notes).toEqual(["bad file"]);
		expect(lines).toEqual(["bad file\n"]);
	});
});

describe("text from files on the screen", () => {
	it("shows a warning quoting a file's names or a path with its control characters as ?", () => {
		const notes: string[] = [];
		const lines: string[] = [];
		const ui = { notify: (message: string) => notes.push(message) } as unknown as ExtensionUIContext;
		const warning = "tool-repair grammarAllowedTools names tools pi does not know: \u001b[2Jx\nforged.";
		showSettingsWarning({ hasUI: true, ui }, warning, (text) => lines.push(text));
		showSettingsWarning({ hasUI: false, ui }, warning, (text) => lines.push(text));
		expect(notes).toEqual(["tool-repair grammarAllowedTools names tools pi does not know: ?[2Jx?forged."]);
		expect(lines).toEqual(["tool-repair grammarAllowedTools names tools pi does not know: ?[2Jx?forged.\n"]);
	});

	it("lists allowed tool names from the file with their control characters as ?", () => {
		const settings = { ...defaultRepairSettings(), grammarAllowedTools: ["read", "\u001b]0;owned\u0007"] };
		expect(settingsMenuItems(settings).join("\n")).toContain("Grammar allowed tools: read, ?]0;owned?");
		expect(settingsSummary(settings)).toContain("grammarAllowedTools read, ?]0;owned?");
	});
});

describe("menu transitions", () => {
	const base = defaultRepairSettings();

	it("sets the profile and resets grammar recovery to the new profile's default", () => {
		const conservative = { ...base, policyProfile: "conservative" as const, grammarRecovery: "off" as const };
		expect(applySetting(conservative, "policyProfile", "adaptive")).toMatchObject({
			policyProfile: "adaptive",
			grammarRecovery: "strip",
		});
		expect(applySetting(base, "policyProfile", "conservative")).toMatchObject({ grammarRecovery: "observe" });
	});

	it("sets grammar recovery without touching the profile", () => {
		expect(applySetting(base, "grammarRecovery", "off")).toMatchObject({
			grammarRecovery: "off",
			policyProfile: "adaptive",
		});
	});

	it("sets the switches from their file spelling and the unknown-text policy", () => {
		expect(applySetting(base, "showIndicator", "false").showIndicator).toBe(false);
		expect(applySetting(base, "showNotes", "true").showNotes).toBe(true);
		expect(applySetting(base, "unknownGrammarText", "strip").unknownGrammarText).toBe("strip");
	});

	it("ignores a value the setting does not have", () => {
		expect(applySetting(base, "policyProfile", "reckless")).toBe(base);
		expect(applySetting(base, "showNotes", "yes")).toBe(base);
	});

	it("never changes the settings object it was given", () => {
		const frozen = Object.freeze({ ...base, grammarAllowedTools: Object.freeze([]) as unknown as string[] });
		expect(() => applySetting(frozen, "policyProfile", "recover")).not.toThrow();
		expect(frozen.policyProfile).toBe("adaptive");
	});

	it("names one row per settings key, in the file's key set", () => {
		expect(SETTING_ROWS.map((row) => row.key).sort()).toEqual([...SETTINGS_KEYS].sort());
	});

	it("parses the allowed-tools answer: empty keeps, '-' empties, names deduplicated, bad names refused", () => {
		expect(parseAllowedToolsInput("", ["read"])).toEqual({ tools: ["read"] });
		expect(parseAllowedToolsInput(" - ", ["read"])).toEqual({ tools: [] });
		expect(parseAllowedToolsInput("read,bash read", [])).toEqual({ tools: ["read", "bash"] });
		expect(parseAllowedToolsInput("mcp:search_docs", [])).toEqual({ tools: ["mcp:search_docs"] });
		expect(parseAllowedToolsInput("rm;ls", [])).toHaveProperty("error");
	});
});

describe("/repair-settings without a TUI", () => {
	it("prints the settings and how to change them to stdout in print mode", async () => {
		saveRepairSettings({ ...defaultRepairSettings(), showNotes: true, grammarAllowedTools: ["read"] }, settingsFile);
		host = new FileSettingsHost(settingsFile);
		const session = await startWith("print");
		await session.session.prompt("/repair-settings");
		expect(written).toHaveLength(1);
		expect(written[0]?.stream).toBe("stdout");
		const text = written[0]?.text ?? "";
		expect(text).toMatch(/showNotes: +true/);
		expect(text).toMatch(/grammarAllowedTools: +\["read"\]/);
		expect(text).toMatch(/policyProfile: +adaptive/);
		expect(text).toContain(settingsFile);
		expect(text).toContain("/repair-settings");
		expect(host.updates).toHaveLength(0);
	});

	it("writes to stderr in json mode so the event stream on stdout stays JSON", async () => {
		const session = await startWith("json");
		await session.session.prompt("/repair-settings");
		expect(written.map((w) => w.stream)).toEqual(["stderr"]);
	});
});

function writeTelemetry(path: string): void {
	const recorder = createTelemetryRecorder({ path: () => path, now: () => new Date("2026-07-20T11:00:00.000Z") });
	recorder.toolOutcome({
		tool: "read",
		model: "glm-4.6",
		outcome: "repaired",
		rules: ["preprocess.exact-alias"],
		profile: "adaptive",
		stages: ["preprocess"],
	});
	recorder.toolOutcome({
		tool: "write",
		model: "qwen3-coder",
		outcome: "unrepairable",
		rules: [],
		profile: "adaptive",
		stages: [],
	});
	recorder.grammarStripped({ model: "glm-4.6", grammars: ["dsml"], profile: "adaptive" });
}

describe("/repair-stats in the TUI", () => {
	it("shows charts and the report in a view that Enter closes", async () => {
		writeTelemetry(telemetryFile);
		const ui = new ScriptedTerminalUi().press([KEY.enter]);
		const session = await startWith("tui", ui);
		await session.session.prompt("/repair-stats");
		const first = ui.customScreens[0]?.join("\n") ?? "";
		expect(first).toMatch(/3 records/);
		expect(first).toContain("Outcomes by tool");
		expect(first).toContain("█ repaired");
		expect(first).toContain("Enter or Esc closes");
		expect(ui.notifications).toHaveLength(0);
		for (const line of ui.customScreens[0] ?? []) expect(line.length).toBeLessThanOrEqual(80);
	});

	it("scrolls a report taller than the terminal and closes on Escape", async () => {
		const recorder = createTelemetryRecorder({ path: () => telemetryFile });
		for (let i = 0; i < 30; i++) {
			recorder.toolOutcome({
				tool: `tool_${i}`,
				model: "m",
				outcome: "repaired",
				rules: [`rule.${i}`],
				profile: "a",
				stages: [],
			});
		}
		const ui = new ScriptedTerminalUi().press([KEY.pageDown, KEY.down, KEY.escape]);
		const session = await startWith("tui", ui);
		await session.session.prompt("/repair-stats");
		const [top, paged] = ui.customScreens;
		expect(top?.at(-1)).toMatch(/^lines 1–14 of \d+/);
		expect(paged?.at(-1)).toMatch(/^lines 15–28 of \d+/);
		expect(top?.length).toBe(16);
	});

	it("takes PgUp/PgDn from pi's fullscreen transcript on every supported pi and jumps with End and Home", async () => {
		const recorder = createTelemetryRecorder({ path: () => telemetryFile });
		for (let i = 0; i < 30; i++) {
			recorder.toolOutcome({ tool: `tool_${i}`, model: "m", outcome: "repaired", rules: [], profile: "a", stages: [] });
		}
		const ui = new ScriptedTerminalUi().press([KEY.end, KEY.down, KEY.home, KEY.escape]);
		const session = await startWith("tui", ui);
		await session.session.prompt("/repair-stats");
		expect(ui.customComponents[0]?.capturesViewportInput).toBe(true);
		// pi before capturesViewportInput (1.3) gives the page keys to a focused overlay only.
		expect(ui.customOptions[0]).toMatchObject({ overlay: true, overlayOptions: { width: "100%", maxHeight: "100%" } });
		const [, end, stillEnd, home] = ui.customScreens;
		const total = Number(/of (\d+)/.exec(end?.at(-1) ?? "")?.[1]);
		expect(end?.at(-1)).toMatch(new RegExp(`^lines ${total - 13}–${total} of ${total}`));
		expect(stillEnd?.at(-1)).toBe(end?.at(-1));
		expect(home?.at(-1)).toMatch(/^lines 1–14 of/);
		expect(end?.at(-1)).toContain("Home End");
	});

	it("shows the fixed empty notice when there is no telemetry file", async () => {
		const ui = new ScriptedTerminalUi();
		const session = await startWith("tui", ui);
		await session.session.prompt("/repair-stats");
		expect(ui.notifications).toEqual([{ message: EMPTY_STATS_NOTICE, type: "info" }]);
		expect(ui.customScreens).toHaveLength(0);
	});

	it("shows the empty notice for a file of only bad lines", async () => {
		writeFileSync(telemetryFile, "not json\n\n{broken\n");
		const ui = new ScriptedTerminalUi();
		const session = await startWith("tui", ui);
		await session.session.prompt("/repair-stats");
		expect(ui.notifications).toEqual([{ message: EMPTY_STATS_NOTICE, type: "info" }]);
	});

	it("shows the empty notice when telemetry is off, even if an old default file exists", async () => {
		const agentDir = join(dir, "agent");
		mkdirSync(join(agentDir, "tool-repair"), { recursive: true });
		writeTelemetry(join(agentDir, "tool-repair", "telemetry.jsonl"));
		const saved = { agent: process.env.PI_CODING_AGENT_DIR, telemetry: process.env.PI_TOOL_REPAIR_TELEMETRY };
		process.env.PI_CODING_AGENT_DIR = agentDir;
		try {
			process.env.PI_TOOL_REPAIR_TELEMETRY = "off";
			const off = new ScriptedTerminalUi();
			// "env": the default resolver, which reads the switch at every run.
			const session = await startWith("tui", off, "env");
			await session.session.prompt("/repair-stats");
			expect(off.notifications).toEqual([{ message: EMPTY_STATS_NOTICE, type: "info" }]);
		} finally {
			if (saved.agent === undefined) delete process.env.PI_CODING_AGENT_DIR;
			else process.env.PI_CODING_AGENT_DIR = saved.agent;
			if (saved.telemetry === undefined) delete process.env.PI_TOOL_REPAIR_TELEMETRY;
			else process.env.PI_TOOL_REPAIR_TELEMETRY = saved.telemetry;
		}
	});

	it("applies --model and says so in the title; a filter that matches nothing gets its own notice", async () => {
		writeTelemetry(telemetryFile);
		const ui = new ScriptedTerminalUi().press([KEY.enter]);
		const session = await startWith("tui", ui);
		await session.session.prompt("/repair-stats --model qwen");
		const screen = ui.customScreens[0]?.join("\n") ?? "";
		expect(screen).toMatch(/1 record \(1 tool event, 0 grammar strip-only events\)/);
		expect(screen).toContain('model contains "qwen"');
		await session.session.prompt("/repair-stats --since 5m");
		expect(ui.notifications.at(-1)?.message).toMatch(/no record matches since/);
	});

	it("warns about a bad argument with the usage", async () => {
		const ui = new ScriptedTerminalUi();
		const session = await startWith("tui", ui);
		await session.session.prompt("/repair-stats --last 3");
		expect(ui.notifications).toEqual([{ message: expect.stringContaining("Usage: /repair-stats"), type: "warning" }]);
	});
});

describe("/repair-stats without a TUI", () => {
	it("prints the report once, as plain text, to stdout in print mode", async () => {
		writeTelemetry(telemetryFile);
		const session = await startWith("print");
		await session.session.prompt("/repair-stats");
		expect(written).toHaveLength(1);
		expect(written[0]?.stream).toBe("stdout");
		const text = written[0]?.text ?? "";
		expect(text).toContain("By tool:\n  read: 1 repaired, 0 recovered, 0 unrepairable");
		// The same numbers once: no chart repeats the lists.
		expect(text.match(/read: 1 repaired/g)).toHaveLength(1);
		expect(text).not.toContain("Outcomes by model");
		expect(text).not.toMatch(/\u001b/);
	});

	it("prints the empty notice in print mode", async () => {
		const session = await startWith("print");
		await session.session.prompt("/repair-stats");
		expect(written).toEqual([{ text: `${EMPTY_STATS_NOTICE}\n`, stream: "stdout" }]);
	});
});
