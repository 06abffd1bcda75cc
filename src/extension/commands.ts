/**
 * The two user commands: `/repair-settings` (the settings menu of
 * extension-contract §4.5 plus the allowed-tools list) and `/repair-stats`
 * (the telemetry report of §5.4 with bar charts, decisions §5.3).
 *
 * In pi's interactive TUI the menu is built on `ctx.ui.select` / `ctx.ui.input`
 * and the report is a keyboard-closable `ctx.ui.custom` view. Without a TUI
 * nothing fails: print mode writes plain text to the real stdout (pi routes
 * `process.stdout` to stderr there, so the text goes to file descriptor 1
 * directly), json mode writes it to stderr so the JSON event stream on stdout
 * stays valid, and rpc mode sends it as one notification.
 *
 * Every change made from the menu goes through `SettingsHost.update`, which
 * applies it to the running session and saves it.
 */
import { writeSync } from "node:fs";
import type { ExtensionAPI, ExtensionCommandContext, KeybindingsManager, Theme } from "@earendil-works/pi-coding-agent";
import type { Component, TUI } from "@earendil-works/pi-tui";
import { truncateToWidth, wrapTextWithAnsi } from "@earendil-works/pi-tui";
import type { GrammarPolicyMode } from "../core/types.ts";
import {
	displaySettingsPath,
	GRAMMAR_MODES,
	loadDisplaySettingsWithDiagnostics,
	POLICY_PROFILES,
	PROFILE_GRAMMAR_DEFAULT,
	SETTINGS_KEYS,
} from "./settings.ts";
import { aggregateTelemetryFiles, parseStatsArgs, telemetryFilesToRead } from "./stats.ts";
import {
	EMPTY_STATS_NOTICE,
	formatStatsCharts,
	formatStatsPlain,
	formatStatsReport,
	noMatchNotice,
} from "./stats-report.ts";
import { telemetryPath } from "./telemetry.ts";
import type { RepairDisplaySettings, SettingsHost } from "./types.ts";

export interface RepairCommandOptions {
	/** Where `/repair-stats` reads; defaults to `telemetryPath()` (read at every run). */
	telemetryPath?: () => string | undefined;
	/** The settings file named in the plain-text help; defaults to `displaySettingsPath()`. */
	settingsPath?: () => string;
	/** Clock for `--since` durations. */
	now?: () => number;
	/** Output without a TUI; defaults to file descriptor 1 (stdout) or 2 (stderr). */
	write?: (text: string, stream: "stdout" | "stderr") => void;
}

export const SETTINGS_MENU_TITLE = "Tool repair: display and policy settings";
export const CLOSE_ITEM = "Close";

type MenuAction = "profile" | "indicator" | "notes" | "grammar" | "unknownText" | "allowedTools";
const MENU_ACTIONS: readonly MenuAction[] = ["profile", "indicator", "notes", "grammar", "unknownText", "allowedTools"];

/** The seven menu lines, values filled in live; `Close` is last. */
export function settingsMenuItems(settings: RepairDisplaySettings): string[] {
	return [
		`Policy profile: ${settings.policyProfile} — conservative → observe, adaptive → strip, recover → promote`,
		`Repair indicator (🔨 ✓): ${onOff(settings.showIndicator)} — toggle`,
		`Repair note text under the indicator: ${onOff(settings.showNotes)} — toggle`,
		`Grammar override: ${settings.grammarRecovery} — selecting cycles off → observe → strip → recover`,
		`Unknown-tool grammar text: ${settings.unknownGrammarText} — never executable`,
		`Allowed tools: ${allowedToolsLabel(settings)} — tools grammar leaks may become; empty means the active tools`,
		CLOSE_ITEM,
	];
}

/** The settings after choosing a toggle or cycle item; `allowedTools` needs input and is not handled here. */
export function applyMenuAction(
	settings: RepairDisplaySettings,
	action: Exclude<MenuAction, "allowedTools">,
): RepairDisplaySettings {
	switch (action) {
		case "profile": {
			const policyProfile = nextOf(POLICY_PROFILES, settings.policyProfile);
			// A new profile brings its own grammar behaviour; the override starts over.
			return { ...settings, policyProfile, grammarRecovery: PROFILE_GRAMMAR_DEFAULT[policyProfile] };
		}
		case "indicator":
			return { ...settings, showIndicator: !settings.showIndicator };
		case "notes":
			return { ...settings, showNotes: !settings.showNotes };
		case "grammar":
			return { ...settings, grammarRecovery: nextOf<GrammarPolicyMode>(GRAMMAR_MODES, settings.grammarRecovery) };
		case "unknownText":
			return { ...settings, unknownGrammarText: settings.unknownGrammarText === "preserve" ? "strip" : "preserve" };
	}
}

/** One line naming every current value, shown when the menu closes. */
export function settingsSummary(settings: RepairDisplaySettings): string {
	return (
		`Tool repair settings: indicator ${onOff(settings.showIndicator)}, notes ${onOff(settings.showNotes)}, ` +
		`policy ${settings.policyProfile}, grammar ${settings.grammarRecovery}, ` +
		`unknown-tool text ${settings.unknownGrammarText}, allowed tools ${allowedToolsSummary(settings)} ` +
		"(changes apply to the next tool calls)"
	);
}

/** What `/repair-settings` prints where there is no menu: the values and how to change them. */
export function settingsPlainText(settings: RepairDisplaySettings, path: string): string {
	const rows: [string, string, string][] = [
		["policyProfile", settings.policyProfile, POLICY_PROFILES.join(" | ")],
		["showIndicator", String(settings.showIndicator), "true | false"],
		["showNotes", String(settings.showNotes), "true | false"],
		["grammarRecovery", settings.grammarRecovery, GRAMMAR_MODES.join(" | ")],
		["unknownGrammarText", settings.unknownGrammarText, "preserve | strip"],
		["grammarAllowedTools", JSON.stringify(settings.grammarAllowedTools), "tool names, [] = the active tools"],
	];
	const keyWidth = Math.max(...rows.map(([key]) => key.length));
	const valueWidth = Math.max(...rows.map(([, value]) => value.length));
	const lines = rows.map(
		([key, value, choices]) => `  ${`${key}:`.padEnd(keyWidth + 1)} ${value.padEnd(valueWidth)}  (${choices})`,
	);
	return [
		"Tool repair settings in effect:",
		...lines,
		"",
		"To change them, run /repair-settings in interactive pi, or edit the JSON file",
		`  ${path === "" ? "(PI_TOOL_REPAIR_SETTINGS is set to an empty path)" : path}`,
		"(set PI_TOOL_REPAIR_SETTINGS to use another file). Edits to the file apply from the next pi start.",
		"",
	].join("\n");
}

/**
 * Parses the allowed-tools answer. Empty keeps the list, `-` clears it
 * (grammar promotion then follows the active tools), otherwise names
 * separated by commas or spaces.
 */
export function parseAllowedToolsInput(
	answer: string,
	current: readonly string[],
): { tools: string[] } | { error: string } {
	const text = answer.trim();
	if (text === "") return { tools: [...current] };
	if (text === "-") return { tools: [] };
	const names = text.split(/[\s,]+/).filter((name) => name !== "");
	const bad = names.filter((name) => !/^[A-Za-z0-9_.:-]{1,128}$/.test(name));
	if (bad.length > 0) {
		return { error: "Tool names may use letters, digits and _ . : - only; the list was not changed." };
	}
	return { tools: [...new Set(names)] };
}

export function registerRepairCommands(pi: ExtensionAPI, host: SettingsHost, options: RepairCommandOptions = {}): void {
	const io = resolveOptions(options);
	pi.registerCommand("repair-settings", {
		description: "Tool repair: choose the policy profile, grammar handling, indicator and notes",
		handler: async (_args, ctx) => {
			await runSettingsCommand(ctx, host, io);
		},
	});
	pi.registerCommand("repair-stats", {
		description: "Tool repair: summarise the local telemetry (--since 7d, --model <text>)",
		getArgumentCompletions: (prefix) => {
			const flags = ["--since", "--model"].filter((flag) => flag.startsWith(prefix.trim()));
			return flags.length > 0 ? flags.map((flag) => ({ value: flag, label: flag })) : null;
		},
		handler: async (args, ctx) => {
			await runStatsCommand(args, ctx, io);
		},
	});
}

/**
 * Shows one short warning (a settings file that could not be used, a
 * telemetry file refused) where the user will see it: a UI notification,
 * else one stderr line. Never throws.
 */
export function showSettingsWarning(
	ctx: Pick<ExtensionCommandContext, "hasUI" | "ui"> | undefined,
	warning: string | undefined,
	write: (text: string, stream: "stdout" | "stderr") => void = writeToFd,
): void {
	if (warning === undefined) return;
	try {
		if (ctx?.hasUI) ctx.ui.notify(warning, "warning");
		else write(`${warning}\n`, "stderr");
	} catch {
		// A warning must never break startup.
	}
}

type Io = Required<RepairCommandOptions>;

function resolveOptions(options: RepairCommandOptions): Io {
	return {
		telemetryPath: options.telemetryPath ?? telemetryPath,
		settingsPath: options.settingsPath ?? displaySettingsPath,
		now: options.now ?? Date.now,
		write: options.write ?? writeToFd,
	};
}

function hasInteractiveUi(ctx: ExtensionCommandContext): boolean {
	return ctx.hasUI && ctx.mode === "tui";
}

/** Plain text for the modes without a TUI, each to the channel its user reads. */
function emitPlain(ctx: ExtensionCommandContext, io: Io, text: string): void {
	if (ctx.mode === "json") io.write(text, "stderr");
	else if (ctx.hasUI) ctx.ui.notify(text.trimEnd(), "info");
	else io.write(text, "stdout");
}

async function runSettingsCommand(ctx: ExtensionCommandContext, host: SettingsHost, io: Io): Promise<void> {
	if (!hasInteractiveUi(ctx)) {
		emitPlain(ctx, io, settingsPlainText(host.current(), io.settingsPath()));
		return;
	}
	let warnedUnsaved = false;
	for (;;) {
		const items = settingsMenuItems(host.current());
		const choice = await ctx.ui.select(SETTINGS_MENU_TITLE, items);
		const index = choice === undefined ? -1 : items.indexOf(choice);
		const action = MENU_ACTIONS[index];
		if (action === undefined) break;
		// A copy: the host may update its live object in place.
		const before = JSON.stringify(host.current());
		if (action === "allowedTools") await editAllowedTools(ctx, host);
		else host.update(applyMenuAction(host.current(), action));
		const changed = JSON.stringify(host.current()) !== before;
		// The host swallows save errors; say once that the change lives only in this session.
		if (!warnedUnsaved && changed && !isSaved(host.current(), io.settingsPath())) {
			warnedUnsaved = true;
			ctx.ui.notify(unsavedWarning(io.settingsPath()), "warning");
		}
	}
	ctx.ui.notify(settingsSummary(host.current()), "info");
}

/** Whether the file now holds these values (the host saves and swallows errors). */
function isSaved(settings: RepairDisplaySettings, path: string): boolean {
	const loaded = loadDisplaySettingsWithDiagnostics(path);
	if (loaded.warning !== undefined) return false;
	const stored = loaded.settings;
	return SETTINGS_KEYS.every((key) => JSON.stringify(stored[key]) === JSON.stringify(settings[key]));
}

export function unsavedWarning(path: string): string {
	return `Tool repair: the change applies to this session but could not be saved to ${path === "" ? "an empty PI_TOOL_REPAIR_SETTINGS path" : path}.`;
}

async function editAllowedTools(ctx: ExtensionCommandContext, host: SettingsHost): Promise<void> {
	const current = host.current();
	const now =
		current.grammarAllowedTools.length > 0 ? current.grammarAllowedTools.join(", ") : "empty, the active tools";
	const answer = await ctx.ui.input(
		`Tools grammar leaks may be promoted to (now: ${now}). Names separated by commas; "-" empties the list; Enter alone keeps it.`,
		current.grammarAllowedTools.join(", "),
	);
	if (answer === undefined) return;
	const parsed = parseAllowedToolsInput(answer, current.grammarAllowedTools);
	if ("error" in parsed) {
		ctx.ui.notify(parsed.error, "warning");
		return;
	}
	if (sameList(parsed.tools, current.grammarAllowedTools)) return;
	host.update({ ...current, grammarAllowedTools: parsed.tools });
}

async function runStatsCommand(args: string, ctx: ExtensionCommandContext, io: Io): Promise<void> {
	const parsed = parseStatsArgs(args, io.now());
	if ("error" in parsed) {
		if (hasInteractiveUi(ctx)) ctx.ui.notify(parsed.error, "warning");
		else emitPlain(ctx, io, `${parsed.error}\n`);
		return;
	}
	const path = io.telemetryPath();
	const warnings: string[] = [];
	const stats =
		path === undefined
			? undefined
			: await aggregateTelemetryFiles(telemetryFilesToRead(path), parsed.filters, (text) => warnings.push(text));
	for (const warning of warnings) showSettingsWarning(ctx, warning, io.write);
	let notice: string | undefined;
	if (stats === undefined || (stats.total === 0 && parsed.description.length === 0)) notice = EMPTY_STATS_NOTICE;
	else if (stats.total === 0) notice = noMatchNotice(parsed.description);
	if (notice !== undefined || stats === undefined) {
		if (hasInteractiveUi(ctx)) ctx.ui.notify(notice ?? EMPTY_STATS_NOTICE, "info");
		else emitPlain(ctx, io, `${notice ?? EMPTY_STATS_NOTICE}\n`);
		return;
	}
	if (!hasInteractiveUi(ctx)) {
		emitPlain(ctx, io, formatStatsPlain(stats, plainWidth()));
		return;
	}
	const report = formatStatsReport(stats, parsed.description);
	try {
		await ctx.ui.custom<void>((tui, theme, keybindings, done) =>
			createStatsView(
				{
					report,
					charts: (width, paint) => formatStatsCharts(stats, { width, paint }),
				},
				tui,
				theme,
				keybindings,
				done,
			),
		);
	} catch {
		ctx.ui.notify(report, "info");
	}
}

export interface StatsViewContent {
	report: string;
	charts: (width: number, paint: (segment: number, text: string) => string) => string[];
}

const OUTCOME_COLOURS = ["success", "accent", "error"] as const;

/**
 * The TUI report: charts first, then the text report, in a window the
 * height of the terminal; arrows and page keys scroll, Enter, Escape or `q`
 * close it.
 */
export function createStatsView(
	content: StatsViewContent,
	tui: Pick<TUI, "requestRender"> & { terminal?: { rows: number } },
	theme: Pick<Theme, "fg" | "bold">,
	keybindings: Pick<KeybindingsManager, "matches">,
	done: () => void,
): Component {
	let offset = 0;
	let cache: { width: number; lines: string[] } | undefined;
	const body = (width: number): string[] => {
		if (cache?.width === width) return cache.lines;
		const paint = (segment: number, text: string) => theme.fg(OUTCOME_COLOURS[segment] ?? "accent", text);
		const reportLines = content.report.split("\n");
		const [title = "", ...rest] = reportLines;
		// Text wraps (a long model name or filter stays readable); chart lines already fit.
		const wrap = (line: string) => (line === "" ? [""] : wrapTextWithAnsi(line, width));
		const lines = [
			...wrap(title).map((line) => theme.bold(line)),
			"",
			...content.charts(width, paint).map((line) => truncateToWidth(line, width)),
			"",
			...rest.filter((_, i) => i > 0 || rest[0] !== "").flatMap(wrap),
		];
		cache = { width, lines };
		return lines;
	};
	const windowHeight = () => Math.max(6, (tui.terminal?.rows ?? 24) - 6);
	return {
		render(width: number): string[] {
			const lines = body(width);
			const height = windowHeight();
			const maxOffset = Math.max(0, lines.length - height);
			offset = Math.min(offset, maxOffset);
			const shown = lines.slice(offset, offset + height);
			const position =
				lines.length > height
					? `lines ${offset + 1}–${offset + shown.length} of ${lines.length} · ↑↓ PgUp PgDn scroll · `
					: "";
			return [...shown, "", truncateToWidth(theme.fg("dim", `${position}Enter or Esc closes`), width)];
		},
		handleInput(data: string): void {
			const page = windowHeight();
			if (
				keybindings.matches(data, "tui.select.confirm") ||
				keybindings.matches(data, "tui.select.cancel") ||
				data === "q"
			) {
				done();
				return;
			}
			if (keybindings.matches(data, "tui.select.up")) offset = Math.max(0, offset - 1);
			else if (keybindings.matches(data, "tui.select.down")) offset += 1;
			else if (keybindings.matches(data, "tui.select.pageUp")) offset = Math.max(0, offset - page);
			else if (keybindings.matches(data, "tui.select.pageDown")) offset += page;
			else return;
			tui.requestRender();
		},
		invalidate(): void {
			cache = undefined;
		},
	};
}

function plainWidth(): number {
	const columns = process.stdout.isTTY ? process.stdout.columns : undefined;
	return Math.max(40, Math.min(columns ?? 80, 160));
}

/** Writes all of `text`, retrying while a non-blocking pipe is full. */
function writeToFd(text: string, stream: "stdout" | "stderr"): void {
	const fd = stream === "stdout" ? 1 : 2;
	const bytes = Buffer.from(text, "utf8");
	let offset = 0;
	let retries = 0;
	while (offset < bytes.length) {
		try {
			offset += writeSync(fd, bytes, offset);
			retries = 0;
		} catch (error) {
			const code = (error as { code?: unknown }).code;
			// A closed pipe or a reader that never drains must not turn a report into a crash or a hang.
			if (code !== "EAGAIN" || ++retries > 1000) return;
		}
	}
}

function onOff(value: boolean): string {
	return value ? "on" : "off";
}

function allowedToolsLabel(settings: RepairDisplaySettings): string {
	return settings.grammarAllowedTools.length > 0 ? settings.grammarAllowedTools.join(", ") : "active tools";
}

function allowedToolsSummary(settings: RepairDisplaySettings): string {
	return settings.grammarAllowedTools.length > 0 ? settings.grammarAllowedTools.join("/") : "(the active tools)";
}

function nextOf<T>(cycle: readonly T[], current: T): T {
	const index = cycle.indexOf(current);
	return cycle[(index + 1) % cycle.length] ?? current;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
	return a.length === b.length && a.every((item, i) => item === b[i]);
}
