/**
 * The two user commands: `/repair-settings` (every setting, one row each in
 * `SETTING_ROWS`) and `/repair-stats` (the telemetry report, its sections
 * listed in `STATS_REPORT_SECTIONS`, with bar charts in the TUI).
 *
 * In pi's interactive TUI the settings are pi-tui's `SettingsList` and the
 * report is a scrolling `ctx.ui.custom` view. In RPC mode the settings are
 * offered through `select`/`input` dialogs the client draws, and the report is
 * one notification. Print mode writes plain text to the real stdout (pi routes
 * `process.stdout` to stderr there, so the text goes to file descriptor 1
 * directly), json mode writes it to stderr so the JSON event stream on stdout
 * stays valid.
 *
 * Every change made from the menu goes through `SettingsHost.update`, which
 * applies it to the running session and saves it.
 */
import { writeSync } from "node:fs";
import {
	type ExtensionAPI,
	type ExtensionCommandContext,
	getSettingsListTheme,
	type Theme,
} from "@earendil-works/pi-coding-agent";
import {
	type Component,
	Container,
	Input,
	type SettingItem,
	SettingsList,
	Spacer,
	Text,
	type TUI,
	wrapTextWithAnsi,
} from "@earendil-works/pi-tui";
import type { RepairPolicyProfile } from "../../core/types.ts";
import {
	GRAMMAR_MODES,
	loadRepairSettingsWithWarning,
	POLICY_PROFILES,
	PROFILE_GRAMMAR_DEFAULT,
	repairSettingsPath,
	SETTINGS_KEYS,
	UNKNOWN_TEXT_POLICIES,
	unknownAllowedTools,
} from "../files/settings.ts";
import { aggregateTelemetryFiles, parseStatsArgs, telemetryFilesToRead } from "../files/stats.ts";
import { telemetryPath } from "../files/telemetry.ts";
import { reportContainedError } from "../host/contained.ts";
import { printable } from "../host/printable.ts";
import type { RepairSettings, SettingsHost } from "../host/types.ts";
import {
	EMPTY_STATS_NOTICE,
	formatStatsCharts,
	formatStatsReport,
	noMatchNotice,
	ownerKindSection,
} from "./stats-report.ts";
import { createStatsView, STATS_OVERLAY } from "./stats-view.ts";

export interface RepairCommandOptions {
	/** Where `/repair-stats` reads; defaults to `telemetryPath()` (read at every run). */
	telemetryPath?: () => string | undefined;
	/** The settings file named in the plain-text help; defaults to `repairSettingsPath()`. */
	settingsPath?: () => string;
	/** Clock for `--since` durations. */
	now?: () => number;
	/** Output without a TUI; defaults to file descriptor 1 (stdout) or 2 (stderr). */
	write?: (text: string, stream: "stdout" | "stderr") => void;
	/** Lines on how the layer composes with other tool owners, added to both commands' output. */
	composition?: () => readonly string[];
	/** Names of the tools pi knows, to warn about allowed-tool names that match none. */
	knownTools?: () => readonly string[];
	/** Reports an error a command contained; defaults to the diagnostics line alone. */
	reportContained?: (label: string, error: unknown) => void;
}

export const SETTINGS_MENU_TITLE = "Tool repair settings";
export const CLOSE_ITEM = "Close";

type SettingKey = keyof RepairSettings;

/**
 * One row per setting, in menu order: the settings key is the one name used
 * in the file, the menus, the docs and the summary; `label` is that name in
 * words. `values` are the choices as the file spells them; the tool list has
 * none and is typed instead.
 */
export interface SettingRow {
	key: SettingKey;
	label: string;
	description: string;
	values?: readonly string[];
}

const BOOLEAN_VALUES = ["true", "false"] as const;

export const SETTING_ROWS: readonly SettingRow[] = [
	{
		key: "policyProfile",
		label: "Policy profile",
		description: "How far repairs go; choosing a profile also resets grammar recovery to its default.",
		values: POLICY_PROFILES,
	},
	{
		key: "showIndicator",
		label: "Show indicator",
		description: "Show the 🔨 ✓ line under a repaired tool result, and the footer count.",
		values: BOOLEAN_VALUES,
	},
	{
		key: "showNotes",
		label: "Show notes",
		description: "Also show the note text under that line (the model always gets the notes).",
		values: BOOLEAN_VALUES,
	},
	{
		key: "grammarRecovery",
		label: "Grammar recovery",
		description: "Tool calls leaked as text: off, observe (record only), strip (remove), recover (run them).",
		values: GRAMMAR_MODES,
	},
	{
		key: "unknownGrammarText",
		label: "Unknown grammar text",
		description: "Leaked calls to tools that do not exist: preserve or strip their text. They never run.",
		values: UNKNOWN_TEXT_POLICIES,
	},
	{
		key: "grammarAllowedTools",
		label: "Grammar allowed tools",
		description: "Tools a leaked call may become; empty means the active tools. Enter edits the list.",
	},
	{
		key: "repairToolNames",
		label: "Repair tool names",
		description: "Rename a call to a tool that does not exist when exactly one active tool matches its cleaned name.",
		values: BOOLEAN_VALUES,
	},
	{
		key: "askOnSilentStop",
		label: "Ask on silent stop",
		description:
			"When a reply ends with a call written as text that did not run, ask the model once whether it meant it.",
		values: BOOLEAN_VALUES,
	},
];

/** A setting's value as the menus show it: the file's spelling, or the tool list. */
export function settingValueText(settings: RepairSettings, key: SettingKey): string {
	const value = settings[key];
	// The tool list comes from a file anyone may have edited; its names never drive the terminal.
	if (Array.isArray(value)) return value.length > 0 ? printable(value.join(", ")) : "(active tools)";
	return String(value);
}

/** The settings after choosing `value` for `key`; an unknown value changes nothing. */
export function applySetting(settings: RepairSettings, key: SettingKey, value: string): RepairSettings {
	const row = SETTING_ROWS.find((candidate) => candidate.key === key);
	if (row?.values === undefined || !row.values.includes(value)) return settings;
	if (key === "policyProfile") {
		const policyProfile = value as RepairPolicyProfile;
		// A new profile brings its own grammar behaviour; the override starts over.
		return { ...settings, policyProfile, grammarRecovery: PROFILE_GRAMMAR_DEFAULT[policyProfile] };
	}
	if (row.values === BOOLEAN_VALUES) return { ...settings, [key]: value === "true" };
	return { ...settings, [key]: value };
}

/** The menu lines of the dialog menus (RPC mode), values filled in live; `Close` is last. */
export function settingsMenuItems(settings: RepairSettings): string[] {
	return [...SETTING_ROWS.map((row) => `${row.label}: ${settingValueText(settings, row.key)}`), CLOSE_ITEM];
}

/** One line naming every current value by its settings key, shown when the menu closes. */
export function settingsSummary(settings: RepairSettings): string {
	const values = SETTING_ROWS.map((row) => `${row.key} ${settingValueText(settings, row.key)}`).join(", ");
	return `Tool repair settings: ${values} (changes apply to the next tool calls)`;
}

/** A value as it would be typed into the JSON file, without quotes around a plain word. */
function fileSpelling(value: unknown): string {
	return typeof value === "string" ? value : JSON.stringify(value);
}

/** What `/repair-settings` prints where there is no menu: the values and how to change them. */
export function settingsPlainText(settings: RepairSettings, path: string): string {
	const rows = SETTING_ROWS.map((row) => [
		row.key,
		fileSpelling(settings[row.key]),
		row.values?.join(" | ") ?? "tool names, [] = the active tools",
	]);
	const keyWidth = Math.max(...rows.map(([key = ""]) => key.length));
	const valueWidth = Math.max(...rows.map(([, value = ""]) => value.length));
	const lines = rows.map(
		([key = "", value = "", choices]) =>
			`  ${`${key}:`.padEnd(keyWidth + 1)} ${value.padEnd(valueWidth)}  (${choices})`,
	);
	return [
		"Tool repair settings in effect:",
		...lines,
		"",
		"To change them, run /repair-settings in interactive pi or over RPC, or edit the JSON file",
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
	const io = resolveOptions({ knownTools: () => pi.getAllTools().map((tool) => tool.name), ...options });
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
 * else one stderr line. A UI that throws is the caller's boundary to contain.
 */
export function showSettingsWarning(
	ctx: Pick<ExtensionCommandContext, "hasUI" | "ui"> | undefined,
	warning: string | undefined,
	write: (text: string, stream: "stdout" | "stderr") => void = writeToFd,
): void {
	if (warning === undefined) return;
	// A warning can quote a path or names from a file: one line, no escape sequence.
	const line = printable(warning);
	if (ctx?.hasUI) ctx.ui.notify(line, "warning");
	else write(`${line}\n`, "stderr");
}

type Io = Required<RepairCommandOptions>;

function resolveOptions(options: RepairCommandOptions): Io {
	return {
		telemetryPath: options.telemetryPath ?? telemetryPath,
		settingsPath: options.settingsPath ?? repairSettingsPath,
		now: options.now ?? Date.now,
		write: options.write ?? writeToFd,
		composition: options.composition ?? (() => []),
		knownTools: options.knownTools ?? (() => []),
		reportContained: options.reportContained ?? ((label, error) => reportContainedError(label, error, undefined)),
	};
}

/** `text` followed by the composition lines, when there are any. */
function withComposition(text: string, io: Io): string {
	const lines = io.composition();
	if (lines.length === 0) return text;
	return `${text.trimEnd()}\n\n${lines.join("\n")}\n`;
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
	if (!ctx.hasUI) {
		emitPlain(ctx, io, withComposition(settingsPlainText(host.current(), io.settingsPath()), io));
		return;
	}
	const changes = new SettingsChanges(ctx, host, io);
	if (hasInteractiveUi(ctx)) {
		await ctx.ui.custom<void>((tui, theme, _keybindings, done) =>
			createSettingsView(
				() => host.current(),
				(key, value) => changes.apply(key, value),
				tui,
				theme,
				done,
			),
		);
	} else {
		await runSettingsDialogs(ctx, host, changes);
	}
	ctx.ui.notify(withComposition(settingsSummary(host.current()), io).trimEnd(), "info");
}

/** Applies one menu change through the host, and says what the user must know about it. */
class SettingsChanges {
	private warnedUnsaved = false;
	private readonly ctx: ExtensionCommandContext;
	private readonly host: SettingsHost;
	private readonly io: Io;

	constructor(ctx: ExtensionCommandContext, host: SettingsHost, io: Io) {
		this.ctx = ctx;
		this.host = host;
		this.io = io;
	}

	/** `value` is a choice of the row, or the typed text for the tool list. */
	apply(key: SettingKey, value: string): void {
		const current = this.host.current();
		let next: RepairSettings;
		if (key === "grammarAllowedTools") {
			const parsed = parseAllowedToolsInput(value, current.grammarAllowedTools);
			if ("error" in parsed) {
				this.ctx.ui.notify(parsed.error, "warning");
				return;
			}
			next = { ...current, grammarAllowedTools: parsed.tools };
			const unknown = unknownAllowedTools(parsed.tools, this.io.knownTools());
			if (unknown !== undefined) this.ctx.ui.notify(unknown, "warning");
		} else {
			next = applySetting(current, key, value);
		}
		// A copy: the host may update its live object in place.
		const before = JSON.stringify(current);
		if (JSON.stringify(next) === before) return;
		this.host.update(next, (line) => this.ctx.ui.notify(printable(line), "info"));
		// The host swallows save errors; say once that the change lives only in this session.
		if (!this.warnedUnsaved && !isSaved(this.host.current(), this.io.settingsPath())) {
			this.warnedUnsaved = true;
			this.ctx.ui.notify(unsavedWarning(this.io.settingsPath()), "warning");
		}
	}
}

/**
 * pi's settings list in the TUI: Enter or Space cycles the value under the
 * cursor in place, the cursor stays on that item, Escape closes. The tool
 * list opens a one-line input.
 */
export function createSettingsView(
	current: () => RepairSettings,
	onChange: (key: SettingKey, value: string) => void,
	tui: Pick<TUI, "requestRender">,
	theme: Pick<Theme, "fg" | "bold">,
	done: () => void,
): Component & { capturesViewportInput: boolean } {
	const items: SettingItem[] = SETTING_ROWS.map((row) => {
		const item: SettingItem = {
			id: row.key,
			label: row.label,
			description: row.description,
			currentValue: settingValueText(current(), row.key),
		};
		if (row.values !== undefined) item.values = [...row.values];
		else item.submenu = (_value, close) => createToolListInput(current().grammarAllowedTools, theme, close);
		return item;
	});
	const list = new SettingsList(
		items,
		items.length + 2,
		getSettingsListTheme(),
		(id, value) => {
			onChange(id as SettingKey, value);
			// One change can move another value (a profile resets grammar recovery), so every row is refreshed.
			for (const row of SETTING_ROWS) list.updateValue(row.key, settingValueText(current(), row.key));
		},
		done,
	);
	const title = new Text(theme.fg("accent", theme.bold(SETTINGS_MENU_TITLE)), 0, 0);
	const container = new Container();
	container.addChild(title);
	container.addChild(new Spacer(1));
	container.addChild(list);
	return {
		// PgUp/PgDn belong to the list while it is open, not to the transcript behind it.
		capturesViewportInput: list.capturesViewportInput,
		render: (width) => container.render(width),
		invalidate: () => container.invalidate(),
		handleInput(data) {
			list.handleInput(data);
			tui.requestRender();
		},
	};
}

/** The tool-list editor: one input line; Enter submits the text, Escape keeps the list. */
function createToolListInput(
	tools: readonly string[],
	theme: Pick<Theme, "fg">,
	close: (value?: string) => void,
): Component {
	const input = new Input();
	input.setValue(tools.join(", "));
	input.focused = true;
	input.onSubmit = (value) => close(value);
	input.onEscape = () => close();
	const hint = theme.fg("dim", 'Tool names separated by commas; "-" empties the list (then the active tools count).');
	return {
		render: (width) => [...wrapTextWithAnsi(hint, width), ...input.render(width)],
		invalidate: () => input.invalidate(),
		handleInput: (data) => input.handleInput(data),
	};
}

/** RPC mode: the same settings through dialogs the client draws (select for a row, then for its value). */
async function runSettingsDialogs(
	ctx: ExtensionCommandContext,
	host: SettingsHost,
	changes: SettingsChanges,
): Promise<void> {
	for (;;) {
		const items = settingsMenuItems(host.current());
		const choice = await ctx.ui.select(SETTINGS_MENU_TITLE, items);
		const row = SETTING_ROWS[choice === undefined ? -1 : items.indexOf(choice)];
		if (row === undefined) return;
		const now = settingValueText(host.current(), row.key);
		const answer =
			row.values === undefined
				? await ctx.ui.input(
						`${row.label} (now: ${now}). ${row.description} Names separated by commas; "-" empties the list.`,
						host.current().grammarAllowedTools.join(", "),
					)
				: await ctx.ui.select(`${row.label} (now: ${now}). ${row.description}`, [...row.values]);
		if (answer !== undefined) changes.apply(row.key, answer);
	}
}

/** Whether the file now holds these values (the host saves and swallows errors). */
function isSaved(settings: RepairSettings, path: string): boolean {
	const loaded = loadRepairSettingsWithWarning(path);
	if (loaded.warning !== undefined) return false;
	const stored = loaded.settings;
	return SETTINGS_KEYS.every((key) => JSON.stringify(stored[key]) === JSON.stringify(settings[key]));
}

export function unsavedWarning(path: string): string {
	return `Tool repair: the change applies to this session but could not be saved to ${path === "" ? "an empty PI_TOOL_REPAIR_SETTINGS path" : path}.`;
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
	const owners = ownerKindSection(stats.byOwner);
	if (!hasInteractiveUi(ctx)) {
		const plain = `${formatStatsReport(stats, parsed.description)}\n`;
		emitPlain(ctx, io, withComposition(owners === "" ? plain : `${plain.trimEnd()}\n\n${owners}\n`, io));
		return;
	}
	const report = withComposition(
		[formatStatsReport(stats, parsed.description), owners].filter((part) => part !== "").join("\n\n"),
		io,
	).trimEnd();
	try {
		await ctx.ui.custom<void>(
			(tui, theme, keybindings, done) =>
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
			// An overlay gets the page keys on every host; inline, pi before `capturesViewportInput` gives them to the transcript.
			{ overlay: true, overlayOptions: STATS_OVERLAY },
		);
	} catch (error) {
		// The report still reaches the user, as one notification.
		io.reportContained("stats-view", error);
		ctx.ui.notify(report, "info");
	}
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
