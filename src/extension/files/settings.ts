/**
 * The user's display and policy settings file (`tool-repair/settings.json`
 * under pi's agent dir, or `PI_TOOL_REPAIR_SETTINGS`): location, defaults,
 * per-field validation, migration of every historical shape, and saving.
 *
 * Loading never writes and never throws: a missing, empty, broken or
 * unreadable file yields the defaults (or its valid fields) plus at most one
 * short warning, and the file stays as it is. Saving happens only when the
 * user changes a setting. It is atomic (a temp file beside the target, then a
 * rename), keeps keys this version does not know, the file's mode, a symlink
 * and a hard link, first copies a file that is not a settings object (a JSON
 * typo) byte for byte to a free `<file>.bak` name and says where, never
 * replaces a file it could not read in full or a symlink to a missing file,
 * and reports every failure as one line instead of throwing.
 */
import { randomBytes } from "node:crypto";
import {
	chmodSync,
	closeSync,
	copyFileSync,
	constants as fsConstants,
	ftruncateSync,
	lstatSync,
	mkdirSync,
	openSync,
	readFileSync,
	realpathSync,
	renameSync,
	type Stats,
	statSync,
	unlinkSync,
	writeFileSync,
	writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { getAgentDir } from "@earendil-works/pi-coding-agent";
import { isRecord, tryParse } from "../../core/json-value.ts";
import {
	DEFAULT_POLICY,
	GRAMMAR_MODES,
	POLICY_PROFILES,
	PROFILE_GRAMMAR_DEFAULT,
	UNKNOWN_GRAMMAR_TEXT_POLICIES as UNKNOWN_TEXT_POLICIES,
} from "../../core/policy.ts";
import type { RepairSettings } from "../host/types.ts";
import { errorCode, reportIoError, reportIoErrorUnless } from "./fs-errors.ts";

export const DEFAULT_DISPLAY_SETTINGS: Readonly<RepairSettings> = Object.freeze({
	showIndicator: true,
	showNotes: false,
	grammarRecovery: DEFAULT_POLICY.grammarMode,
	grammarAllowedTools: Object.freeze([]) as unknown as string[],
	policyProfile: DEFAULT_POLICY.profile,
	unknownGrammarText: DEFAULT_POLICY.unknownGrammarText,
	repairToolNames: false,
	askOnSilentStop: true,
});

/** The keys in the order they are written to disk. */
export const SETTINGS_KEYS = [
	"showIndicator",
	"showNotes",
	"grammarRecovery",
	"grammarAllowedTools",
	"policyProfile",
	"unknownGrammarText",
	"repairToolNames",
	"askOnSilentStop",
] as const satisfies readonly (keyof RepairSettings)[];

// The policy table lives in the core; the settings validate against it and the menu lists it.
export { GRAMMAR_MODES, POLICY_PROFILES, PROFILE_GRAMMAR_DEFAULT, UNKNOWN_TEXT_POLICIES };

/** Settings files are tiny; anything bigger is not ours and is not read into memory. */
const MAX_SETTINGS_BYTES = 1024 * 1024;

export interface LoadedRepairSettings {
	settings: RepairSettings;
	/** One short line for the UI when the file could not be used as written. */
	warning?: string;
}

/** `PI_TOOL_REPAIR_SETTINGS` whenever it is defined (even empty), else the agent-dir default. */
export function repairSettingsPath(): string {
	const override = process.env.PI_TOOL_REPAIR_SETTINGS;
	if (override !== undefined) return override;
	return join(getAgentDir(), "tool-repair", "settings.json");
}

export function defaultRepairSettings(): RepairSettings {
	return { ...DEFAULT_DISPLAY_SETTINGS, grammarAllowedTools: [] };
}

export function loadRepairSettings(path?: string): RepairSettings {
	return loadRepairSettingsWithWarning(path).settings;
}

export function loadRepairSettingsWithWarning(path: string = repairSettingsPath()): LoadedRepairSettings {
	const read = readSettingsText(path);
	if (read.text === undefined) return withWarning(defaultRepairSettings(), read.problem, path);
	if (read.text.trim() === "") return withWarning(defaultRepairSettings(), "is empty", path);
	const parsed = tryParse(read.text);
	if (parsed === undefined) return withWarning(defaultRepairSettings(), "is not valid JSON", path);
	if (!isRecord(parsed)) return withWarning(defaultRepairSettings(), "does not hold a JSON object", path);
	const { settings, rejected } = settingsFromObject(parsed);
	const problem = rejected.length > 0 ? `has invalid ${rejected.join(", ")}` : undefined;
	return withWarning(settings, problem, path);
}

/**
 * Validates each field on its own and derives the missing ones, so every
 * historical shape (0.1 booleans only, 0.2 with `grammarRecovery`, 0.3+ with
 * `policyProfile`) loads as the user meant it.
 */
export function settingsFromObject(stored: Record<string, unknown>): {
	settings: RepairSettings;
	rejected: string[];
} {
	const rejected: string[] = [];
	const pick = <T>(key: keyof RepairSettings, accept: (value: unknown) => value is T): T | undefined => {
		const value = stored[key];
		if (value === undefined) return undefined;
		if (accept(value)) return value;
		rejected.push(key);
		return undefined;
	};
	const showIndicator = pick("showIndicator", isBoolean);
	const showNotes = pick("showNotes", isBoolean);
	const allowed = pick("grammarAllowedTools", isStringArray);
	const unknownText = pick("unknownGrammarText", isOneOf(UNKNOWN_TEXT_POLICIES));
	const storedGrammar = pick("grammarRecovery", isOneOf(GRAMMAR_MODES));
	const storedProfile = pick("policyProfile", isOneOf(POLICY_PROFILES));
	const repairToolNames = pick("repairToolNames", isBoolean);
	const askOnSilentStop = pick("askOnSilentStop", isBoolean);
	// A 0.2 file that opted into promotion keeps promoting: its profile becomes `recover`.
	const policyProfile = storedProfile ?? (storedGrammar === "recover" ? "recover" : DEFAULT_POLICY.profile);
	const grammarRecovery = storedGrammar ?? PROFILE_GRAMMAR_DEFAULT[policyProfile];
	return {
		settings: {
			showIndicator: showIndicator ?? DEFAULT_DISPLAY_SETTINGS.showIndicator,
			showNotes: showNotes ?? DEFAULT_DISPLAY_SETTINGS.showNotes,
			grammarRecovery,
			grammarAllowedTools: allowed ? [...allowed] : [],
			policyProfile,
			unknownGrammarText: unknownText ?? DEFAULT_DISPLAY_SETTINGS.unknownGrammarText,
			repairToolNames: repairToolNames ?? DEFAULT_DISPLAY_SETTINGS.repairToolNames,
			askOnSilentStop: askOnSilentStop ?? DEFAULT_DISPLAY_SETTINGS.askOnSilentStop,
		},
		rejected,
	};
}

/**
 * One warning line when the allowed-tools list names tools pi does not know
 * (a typo there silently stops promotion for that tool), else `undefined`.
 * An empty `known` list means the tools are not known yet: nothing to say.
 */
export function unknownAllowedTools(allowed: readonly string[], known: readonly string[]): string | undefined {
	if (known.length === 0) return undefined;
	const knownSet = new Set(known);
	const unknown = allowed.filter((name) => !knownSet.has(name));
	if (unknown.length === 0) return undefined;
	return `tool-repair grammarAllowedTools names tools pi does not know: ${unknown.join(", ")}; leaked calls to them are never promoted.`;
}

export function saveRepairSettings(settings: RepairSettings, path?: string): void {
	trySaveRepairSettings(settings, path);
}

/**
 * Saves and reports the failure instead of throwing: `undefined` on success,
 * else one short line. Our fields come first in their fixed order, then
 * any keys a user or a newer version put in the file, unchanged.
 */
export function trySaveRepairSettings(
	settings: RepairSettings,
	path: string = repairSettingsPath(),
	onNotice?: (line: string) => void,
): string | undefined {
	let temp: string | undefined;
	const leftAsItIs = (problem: string) =>
		`tool-repair settings could not be saved to ${path}: the file ${problem}, so it is left as it is`;
	try {
		const current = readSettingsText(path);
		// Replacing a file that could not be read in full would drop whatever it holds.
		if (current.problem !== undefined) return leftAsItIs(current.problem);
		// A symlinked settings file (dotfile managers) stays a symlink: the rename replaces its target.
		const target = symlinkTarget(path);
		if (target === undefined) return leftAsItIs("is a symbolic link to a missing file");
		const body = { ...pickSettings(settings), ...extraKeysOf(current.text) };
		const text = `${JSON.stringify(body, null, "\t")}\n`;
		// A file the user broke by hand (a JSON typo) is theirs: it survives the save under another name.
		if (current.text !== undefined && isUnusable(current.text)) {
			const backup = keepBackup(target);
			onNotice?.(
				`tool-repair settings file ${path} did not hold valid settings; it was kept as ${backup} before your change was saved.`,
			);
		}
		const existing = regularFileInfo(target);
		// A rename would split a hard link into two files; rewriting in place keeps every name on the same file.
		if (existing !== undefined && existing.nlink > 1) {
			rewriteInPlace(target, text);
			return undefined;
		}
		mkdirSync(dirname(target), { recursive: true });
		temp = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
		writeFileSync(temp, text, { flag: "wx" });
		// The saved file keeps the permissions the user gave the old one.
		if (existing !== undefined) chmodSync(temp, existing.mode & 0o7777);
		renameSync(temp, target);
		temp = undefined;
		return undefined;
	} catch (error) {
		reportIoError("settings-save", error);
		return `tool-repair settings could not be saved to ${path}: ${errorCode(error)}`;
	} finally {
		if (temp !== undefined) {
			try {
				unlinkSync(temp);
			} catch (error) {
				// The temp file was never created, or is already gone: only another failure is worth a line.
				reportIoErrorUnless("ENOENT", "settings-save-cleanup", error);
			}
		}
	}
}

/** The file a save writes: `path`, or the file its symlink leads to; `undefined` for a symlink to a missing file. */
function symlinkTarget(path: string): string | undefined {
	let isLink: boolean;
	try {
		isLink = lstatSync(path).isSymbolicLink();
	} catch (error) {
		// Nothing there yet is the first save; any other failure shows again, and is reported, at the write.
		reportIoErrorUnless("ENOENT", "settings-link", error);
		return path;
	}
	if (!isLink) return path;
	try {
		return realpathSync(path);
	} catch (error) {
		// A rename would put a regular file where the user's link stands.
		if (errorCode(error) === "ENOENT") return undefined;
		throw error;
	}
}

/** Text that is there but is no settings object: a typo, or JSON of another shape. An empty file holds nothing to keep. */
function isUnusable(text: string): boolean {
	return text.trim() !== "" && !isRecord(tryParse(text));
}

/** Backup names tried in order; past the last one the save is refused rather than overwrite one. */
const MAX_BACKUPS = 100;

/** Copies `target` byte for byte (and its mode) to the first free `<file>.bak`, `<file>.bak.2`, …; returns that name. */
function keepBackup(target: string): string {
	for (let n = 1; n <= MAX_BACKUPS; n++) {
		const name = n === 1 ? `${target}.bak` : `${target}.bak.${n}`;
		try {
			copyFileSync(target, name, fsConstants.COPYFILE_EXCL);
			return name;
		} catch (error) {
			if (errorCode(error) !== "EEXIST") throw error;
		}
	}
	throw new Error(`no free backup name up to ${target}.bak.${MAX_BACKUPS}`);
}

function regularFileInfo(path: string): Stats | undefined {
	try {
		const info = statSync(path);
		return info.isFile() ? info : undefined;
	} catch (error) {
		reportIoErrorUnless("ENOENT", "settings-stat", error);
		return undefined;
	}
}

/** Overwrites the file's bytes and cuts it to the new length; not atomic, which a hard link makes unavoidable. */
function rewriteInPlace(path: string, text: string): void {
	const bytes = Buffer.from(text, "utf8");
	const fd = openSync(path, fsConstants.O_WRONLY | fsConstants.O_NONBLOCK);
	try {
		let offset = 0;
		while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset, offset);
		ftruncateSync(fd, bytes.length);
	} finally {
		closeSync(fd);
	}
}

function pickSettings(settings: RepairSettings): RepairSettings {
	return {
		showIndicator: settings.showIndicator,
		showNotes: settings.showNotes,
		grammarRecovery: settings.grammarRecovery,
		grammarAllowedTools: [...settings.grammarAllowedTools],
		policyProfile: settings.policyProfile,
		unknownGrammarText: settings.unknownGrammarText,
		repairToolNames: settings.repairToolNames,
		askOnSilentStop: settings.askOnSilentStop,
	};
}

/** Keys of the current file that are not ours, in their order; nothing when the file is absent or unusable. */
function extraKeysOf(text: string | undefined): Record<string, unknown> {
	if (text === undefined) return {};
	const parsed = tryParse(text);
	if (!isRecord(parsed)) return {};
	const known = new Set<string>(SETTINGS_KEYS);
	// fromEntries defines each key as data, so a key named `__proto__` is kept instead of becoming the prototype.
	return Object.fromEntries(Object.entries(parsed).filter(([key]) => !known.has(key)));
}

/**
 * The settings file as a JSON object, for readers of keys beyond the six
 * (saving keeps those keys); `undefined` when absent or unusable.
 */
export function readSettingsObject(path: string = repairSettingsPath()): Record<string, unknown> | undefined {
	const { text } = readSettingsText(path);
	if (text === undefined) return undefined;
	const parsed = tryParse(text);
	return isRecord(parsed) ? parsed : undefined;
}

function readSettingsText(path: string): { text?: string; problem?: string } {
	try {
		const info = statSync(path);
		if (info.isDirectory()) return { problem: "is a directory" };
		// A FIFO or device would block or stream forever; only a regular file is read.
		if (!info.isFile()) return { problem: "is not a regular file" };
		if (info.size > MAX_SETTINGS_BYTES) return { problem: "is too large to be a settings file" };
		// Editors on some systems prepend a byte-order mark; it is not part of the JSON.
		return { text: readFileSync(path, "utf8").replace(/^\uFEFF/, "") };
	} catch (error) {
		// A missing file is the normal first run, not a problem worth a warning.
		if (errorCode(error) === "ENOENT") return {};
		reportIoError("settings-read", error);
		return { problem: `could not be read (${errorCode(error)})` };
	}
}

function withWarning(settings: RepairSettings, problem: string | undefined, path: string): LoadedRepairSettings {
	if (problem === undefined) return { settings };
	return {
		settings,
		warning: `tool-repair settings file ${path} ${problem}; using defaults for what is unusable, and the file is left as it is.`,
	};
}

function isBoolean(value: unknown): value is boolean {
	return typeof value === "boolean";
}

function isStringArray(value: unknown): value is string[] {
	return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function isOneOf<T extends string>(choices: readonly T[]): (value: unknown) => value is T {
	return (value: unknown): value is T => typeof value === "string" && (choices as readonly string[]).includes(value);
}
