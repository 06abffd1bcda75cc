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
	applyMenuAction,
	CLOSE_ITEM,
	parseAllowedToolsInput,
	registerRepairCommands,
	SETTINGS_MENU_TITLE,
	settingsMenuItems,
	settingsSummary,
	showSettingsWarning,
	unsavedWarning,
} from "../../src/extension/commands.ts";
import { defaultDisplaySettings, loadDisplaySettings, saveDisplaySettings } from "../../src/extension/settings.ts";
import { EMPTY_STATS_NOTICE } from "../../src/extension/stats-report.ts";
import { createTelemetryRecorder } from "../../src/extension/telemetry.ts";
import type { RepairDisplaySettings, SettingsHost } from "../../src/extension/types.ts";
import { type PiSessionHarness, startPiSession } from "../helpers/pi-session.ts";

const KEY = { up: "\u001b[A", down: "\u001b[B", enter: "\r", escape: "\u001b", pageDown: "\u001b[6~" } as const;

beforeAll(() => {
	// pi's dialog components style text with the global theme.
	initTheme("dark", false);
});

class FileSettingsHost implements SettingsHost {
	private settings: RepairDisplaySettings;
	private readonly path: string;
	readonly updates: RepairDisplaySettings[] = [];
	constructor(path: string) {
		this.path = path;
		this.settings = loadDisplaySettings(path);
	}
	current(): RepairDisplaySettings {
		return this.settings;
	}
	update(next: RepairDisplaySettings): void {
		this.settings = next;
		this.updates.push(next);
		saveDisplaySettings(next, this.path);
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
			custom: (factory: (...args: unknown[]) => unknown) =>
				new Promise((resolve) => {
					const tui = { requestRender: () => {}, terminal: { rows: 20 } };
					const theme = { fg: (_c: string, t: string) => t, bold: (t: string) => t };
					const component = factory(tui, theme, getKeybindings(), resolve) as {
						render(width: number): string[];
						handleInput(data: string): void;
					};
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
		});
	run = await startPiSession({ extensions: [extension], tools: [] });
	await run.session.bindExtensions(ui ? { mode, uiContext: ui.context() } : { mode });
	return run;
}

function fileSettings(): RepairDisplaySettings {
	return JSON.parse(readFileSync(settingsFile, "utf8"));
}

describe("/repair-settings menu in the TUI", () => {
	it("shows six settings with live values and Close last, in pi's selector", async () => {
		const ui = new ScriptedTerminalUi().press([KEY.escape]);
		const session = await startWith("tui", ui);
		await session.session.prompt("/repair-settings");
		const [menu] = ui.dialogs;
		expect(menu?.title).toBe(SETTINGS_MENU_TITLE);
		expect(menu?.options).toEqual(settingsMenuItems(defaultDisplaySettings()));
		expect(menu?.options).toHaveLength(7);
		expect(menu?.options?.at(-1)).toBe(CLOSE_ITEM);
		for (const item of menu?.options?.slice(0, 6) ?? []) expect(item).toMatch(/^[^:]+: [^—]+ — .+$/);
		const screen = menu?.screen.join("\n") ?? "";
		expect(screen).toContain("Policy profile: adaptive");
		expect(screen).toContain("Repair indicator (🔨 ✓): on");
		expect(screen).toContain("Grammar override: strip");
		expect(screen).toContain("Unknown-tool grammar text: preserve");
	});

	it("lists the items in the contract's order with the contract's labels", () => {
		const labels = settingsMenuItems(defaultDisplaySettings()).map((item) => item.split(":")[0]);
		expect(labels).toEqual([
			"Policy profile",
			"Repair indicator (🔨 ✓)",
			"Repair note text under the indicator",
			"Grammar override",
			"Unknown-tool grammar text",
			"Allowed tools",
			"Close",
		]);
	});

	it("applies and saves each change at once, then shows the menu again with the new value", async () => {
		// Enter on the profile (adaptive → recover), then down + Enter on the indicator, then Escape.
		const ui = new ScriptedTerminalUi().press([KEY.enter], [KEY.down, KEY.enter], [KEY.escape]);
		const session = await startWith("tui", ui);
		await session.session.prompt("/repair-settings");
		expect(host.updates).toHaveLength(2);
		expect(host.updates[0]).toMatchObject({ policyProfile: "recover", grammarRecovery: "recover" });
		expect(host.updates[1]).toMatchObject({ policyProfile: "recover", showIndicator: false });
		expect(fileSettings()).toMatchObject({
			policyProfile: "recover",
			grammarRecovery: "recover",
			showIndicator: false,
		});
		expect(ui.dialogs.map((d) => d.options?.[0]?.split(" — ")[0])).toEqual([
			"Policy profile: adaptive",
			"Policy profile: recover",
			"Policy profile: recover",
		]);
		expect(ui.dialogs[2]?.options?.[1]).toContain("Repair indicator (🔨 ✓): off");
	});

	it("closes from the Close item and always ends with a one-line summary of every value", async () => {
		const ui = new ScriptedTerminalUi().press([...Array(6).fill(KEY.down), KEY.enter]);
		const session = await startWith("tui", ui);
		await session.session.prompt("/repair-settings");
		expect(ui.dialogs).toHaveLength(1);
		expect(host.updates).toHaveLength(0);
		expect(ui.notifications).toEqual([{ message: settingsSummary(defaultDisplaySettings()), type: "info" }]);
		const summary = ui.notifications[0]?.message ?? "";
		expect(summary.split("\n")).toHaveLength(1);
		expect(summary).toMatch(/indicator on, notes off, policy adaptive, grammar strip, unknown-tool text preserve/);
	});

	it("edits the allowed tools through pi's input dialog", async () => {
		const type = (text: string) => [...text];
		const toAllowed = [...Array(5).fill(KEY.down), KEY.enter];
		const ui = new ScriptedTerminalUi().press(
			toAllowed,
			[...type("read, bash ,read"), KEY.enter],
			toAllowed,
			[KEY.enter],
			toAllowed,
			[...type("rm -rf;"), KEY.enter],
			toAllowed,
			["-", KEY.enter],
			[KEY.escape],
		);
		const session = await startWith("tui", ui);
		await session.session.prompt("/repair-settings");
		expect(ui.dialogs.filter((d) => d.kind === "input")).toHaveLength(4);
		expect(host.updates.map((s) => s.grammarAllowedTools)).toEqual([["read", "bash"], []]);
		expect(ui.notifications.filter((n) => n.type === "warning")).toHaveLength(1);
		expect(fileSettings().grammarAllowedTools).toEqual([]);
		const secondMenu = ui.dialogs.filter((d) => d.kind === "select")[1];
		expect(secondMenu?.options?.[5]).toContain("Allowed tools: read, bash");
	});
});

describe("/repair-settings when the file cannot be saved", () => {
	it("applies the change, warns once that it was not saved, and keeps going", async () => {
		writeFileSync(join(dir, "blocker"), "x");
		settingsFile = join(dir, "blocker", "settings.json");
		host = new FileSettingsHost(settingsFile);
		const ui = new ScriptedTerminalUi().press([KEY.enter], [KEY.enter], [KEY.escape]);
		const session = await startWith("tui", ui);
		await session.session.prompt("/repair-settings");
		expect(host.updates.map((s) => s.policyProfile)).toEqual(["recover", "conservative"]);
		expect(ui.notifications.filter((n) => n.type === "warning")).toEqual([
			{ message: unsavedWarning(settingsFile), type: "warning" },
		]);
		expect(ui.notifications.at(-1)?.message).toContain("policy conservative");
	});

	it("does not warn when the change was saved", async () => {
		const ui = new ScriptedTerminalUi().press([KEY.enter], [KEY.escape]);
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

describe("menu transitions (§4.5 step 3)", () => {
	const base = defaultDisplaySettings();

	it("cycles the profile and resets the grammar override to the new profile's default", () => {
		const conservative = { ...base, policyProfile: "conservative" as const, grammarRecovery: "off" as const };
		expect(applyMenuAction(conservative, "profile")).toMatchObject({
			policyProfile: "adaptive",
			grammarRecovery: "strip",
		});
		expect(applyMenuAction(base, "profile")).toMatchObject({ policyProfile: "recover", grammarRecovery: "recover" });
		expect(applyMenuAction({ ...base, policyProfile: "recover" }, "profile")).toMatchObject({
			policyProfile: "conservative",
			grammarRecovery: "observe",
		});
	});

	it("cycles the grammar override off → observe → strip → recover → off without touching the profile", () => {
		let settings: RepairDisplaySettings = { ...base, grammarRecovery: "off" };
		const seen: string[] = [];
		for (let i = 0; i < 4; i++) {
			settings = applyMenuAction(settings, "grammar");
			seen.push(settings.grammarRecovery);
		}
		expect(seen).toEqual(["observe", "strip", "recover", "off"]);
		expect(settings.policyProfile).toBe("adaptive");
	});

	it("flips the indicator, the notes and the unknown-tool text", () => {
		expect(applyMenuAction(base, "indicator").showIndicator).toBe(false);
		expect(applyMenuAction(base, "notes").showNotes).toBe(true);
		expect(applyMenuAction(base, "unknownText").unknownGrammarText).toBe("strip");
		expect(applyMenuAction({ ...base, unknownGrammarText: "strip" }, "unknownText").unknownGrammarText).toBe(
			"preserve",
		);
	});

	it("never changes the settings object it was given", () => {
		const frozen = Object.freeze({ ...base, grammarAllowedTools: Object.freeze([]) as unknown as string[] });
		expect(() => applyMenuAction(frozen, "profile")).not.toThrow();
		expect(frozen.policyProfile).toBe("adaptive");
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
		saveDisplaySettings({ ...defaultDisplaySettings(), showNotes: true, grammarAllowedTools: ["read"] }, settingsFile);
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

	it("sends the same text as one notification in rpc mode, without a dialog", async () => {
		const ui = new ScriptedTerminalUi();
		const session = await startWith("rpc", ui);
		await session.session.prompt("/repair-settings");
		expect(ui.dialogs).toHaveLength(0);
		expect(written).toHaveLength(0);
		expect(ui.notifications).toHaveLength(1);
		expect(ui.notifications[0]?.message).toMatch(/policyProfile: +adaptive/);
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

	it("shows the empty notice when telemetry is off, even if an old default file exists (§9.10 67)", async () => {
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
	it("prints the report and the charts as plain text to stdout in print mode", async () => {
		writeTelemetry(telemetryFile);
		const session = await startWith("print");
		await session.session.prompt("/repair-stats");
		expect(written).toHaveLength(1);
		expect(written[0]?.stream).toBe("stdout");
		const text = written[0]?.text ?? "";
		expect(text).toContain("By tool:\n  read: 1 repaired, 0 recovered, 0 unrepairable");
		expect(text).toContain("Outcomes by model");
		expect(text).not.toMatch(/\u001b/);
	});

	it("prints the empty notice in print mode", async () => {
		const session = await startWith("print");
		await session.session.prompt("/repair-stats");
		expect(written).toEqual([{ text: `${EMPTY_STATS_NOTICE}\n`, stream: "stdout" }]);
	});
});
