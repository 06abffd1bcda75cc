/**
 * Local, value-free telemetry: one JSON line per repair outcome or grammar
 * event, appended to `tool-repair/telemetry.jsonl` under pi's agent dir (or
 * `PI_TOOL_REPAIR_TELEMETRY`, read at every write; `off`/`0`/`false` disable).
 *
 * Record types A–G keep a fixed key order. The repair records (A, C) have
 * no `kind`, so a script that reads them by `tool` and `outcome` still finds
 * only them; every other record names what it is in `kind`, right after `ts`. Callers pass only metadata (tool
 * and model names, rule IDs, issue shapes); no argument value, path, command,
 * content or note text ever reaches here.
 *
 * Each record is one append of one whole line (`O_APPEND`), so several pi
 * processes can share a file without losing or interleaving lines. The file
 * is opened non-blocking and used only when it is a regular file, so a FIFO,
 * socket or device at the path never stalls a tool call; a new file is
 * created private (0600, folders 0700) and never through a dangling symlink.
 * When the file passes the limit (10 MB) it is moved to `<file>.1` under a
 * lock file, replacing an earlier `<file>.1` only when that one holds our
 * records, and never a file that appears there meanwhile. Several processes
 * racing to rotate lose no record and warn of nothing: a file another one
 * just rotated away is a race, not a problem. `/repair-stats` reads both. A failure never reaches the tool call;
 * it is reported once per path and problem through `warn`.
 */
import {
	closeSync,
	constants as fsConstants,
	fstatSync,
	linkSync,
	lstatSync,
	mkdirSync,
	openSync,
	readSync,
	renameSync,
	statSync,
	unlinkSync,
	writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { getAgentDir } from "@earendil-works/pi-coding-agent";
import { isRecord, tryParse } from "../../core/json-value.ts";
import { grammarRecoveryRuleId, RULE } from "../../core/rule-ids.ts";
import { printable } from "../host/printable.ts";
import type {
	ContainedErrorEvent,
	ContinuationEvent,
	GrammarMessageEvent,
	GrammarRecoveredEvent,
	TelemetryRecorder,
	ToolObservationEvent,
	ToolOutcomeEvent,
} from "../host/types.ts";
import { errorCode, reportIoError } from "./fs-errors.ts";

export const TELEMETRY_ROTATE_BYTES = 10 * 1024 * 1024;

const DISABLED_VALUES = new Set(["off", "0", "false"]);

/** Where records go now, or `undefined` when telemetry is switched off. */
export function telemetryPath(): string | undefined {
	const value = process.env.PI_TOOL_REPAIR_TELEMETRY;
	if (value !== undefined && DISABLED_VALUES.has(value)) return undefined;
	if (value !== undefined && value !== "") return value;
	return join(getAgentDir(), "tool-repair", "telemetry.jsonl");
}

function warnOnStderr(text: string): void {
	process.stderr.write(`${printable(text)}\n`);
}

/** The previous file kept by rotation. */
export function rotatedTelemetryPath(path: string): string {
	return `${path}.1`;
}

export interface TelemetryRecorderOptions {
	/** Resolves the target on every write; defaults to `telemetryPath`. */
	path?: () => string | undefined;
	/** Clock for `ts`; defaults to the system clock. */
	now?: () => Date;
	/** Size at which the file is rotated; defaults to 10 MB. */
	rotateBytes?: number;
	/** Receives each problem once per path; defaults to one stderr line. */
	warn?: (text: string) => void;
}

/** The A–E records as they are written; `undefined` fields vanish from the line. */
export type TelemetryRecord = Record<string, unknown>;

export function createTelemetryRecorder(options: TelemetryRecorderOptions = {}): TelemetryRecorder {
	const resolvePath = options.path ?? telemetryPath;
	const now = options.now ?? (() => new Date());
	const rotateBytes = options.rotateBytes ?? TELEMETRY_ROTATE_BYTES;
	const warn = options.warn ?? warnOnStderr;
	const warned = new Set<string>();
	const warnOnce = (path: string, problem: string): void => {
		const key = `${path}\0${problem}`;
		if (warned.has(key)) return;
		warned.add(key);
		try {
			warn(`tool-repair telemetry file ${path} ${problem}.`);
		} catch (error) {
			// A failing warning channel must not turn into a failing tool call; the diagnostics line still says it.
			reportIoError("telemetry-warning", error);
		}
	};
	const writer = new LineAppender(rotateBytes, warnOnce);
	const write = (build: (ts: string) => TelemetryRecord): void => {
		let path: string | undefined;
		try {
			path = resolvePath();
			if (path === undefined) return;
			writer.append(path, `${JSON.stringify(build(now().toISOString()))}\n`);
		} catch (error) {
			// Telemetry never disturbs a tool call; the user hears of the problem once, the diagnostics log every time.
			// Not through contained(): its counter would be written to this same failing file.
			reportIoError("telemetry-write", error);
			warnOnce(path ?? "(unresolved)", errorText(error));
		}
	};
	return {
		toolOutcome: (event) => write((ts) => toolOutcomeRecord(ts, event)),
		toolObservation: (event) => write((ts) => toolObservationRecord(ts, event)),
		grammarRecovered: (event) => write((ts) => grammarRecoveredRecord(ts, event)),
		grammarStripped: (event) => write((ts) => grammarStrippedRecord(ts, event)),
		grammarObserved: (event) => write((ts) => grammarObservedRecord(ts, event)),
		containedError: (event) => write((ts) => containedErrorRecord(ts, event)),
		continued: (event) => write((ts) => continuationRecord(ts, event)),
	};
}

/** G. A turn that ran nothing, continued once with a hidden note; the leak families when there were any. */
export function continuationRecord(ts: string, event: ContinuationEvent): TelemetryRecord {
	const record: TelemetryRecord = {
		ts,
		kind: "continuation",
		model: event.model,
		outcome: "continued",
		rules: [RULE.continueSilentStop],
		channel: "message",
		profile: event.profile,
		stages: ["continuation"],
		phantom: event.phantom,
		reasoningOnly: event.reasoningOnly,
	};
	if (event.grammars.length > 0) record.grammar = event.grammars.join(",");
	return record;
}

/** F. An internal error contained at a boundary: a counter, with the boundary and the error's class name only. */
export function containedErrorRecord(ts: string, event: ContainedErrorEvent): TelemetryRecord {
	return {
		ts,
		kind: "contained",
		outcome: "contained",
		rules: [RULE.containedError],
		stages: ["containment"],
		boundary: event.label,
		error: event.error,
	};
}

/** A. Input repair or unrepairable outcome from `prepareArguments`; no `channel`. */
export function toolOutcomeRecord(ts: string, event: ToolOutcomeEvent): TelemetryRecord {
	return {
		ts,
		tool: event.tool,
		model: event.model,
		outcome: event.outcome,
		rules: [...event.rules],
		issues: event.issues,
		fingerprint: event.fingerprint,
		profile: event.profile,
		stages: [...event.stages],
		owner: event.owner,
	};
}

/** B. A value-strip rule seen but not applied under `conservative`. */
export function toolObservationRecord(ts: string, event: ToolObservationEvent): TelemetryRecord {
	return {
		ts,
		kind: "observation",
		tool: event.tool,
		model: event.model,
		outcome: "observed",
		rules: [event.ruleId],
		channel: "tool",
		profile: event.profile,
		stages: ["valid-value"],
		observation: true,
	};
}

/** C. One grammar leak promoted to a real call; no `channel`. */
export function grammarRecoveredRecord(ts: string, event: GrammarRecoveredEvent): TelemetryRecord {
	return {
		ts,
		tool: event.tool,
		model: event.model,
		outcome: "recovered",
		rules: event.split === true ? [RULE.mergeSplitCall] : [grammarRecoveryRuleId(event.grammar)],
		grammar: event.grammar,
		profile: event.profile,
		stages: ["grammar"],
		...(event.owner === undefined ? {} : { owner: event.owner }),
	};
}

/** D. Grammar text removed from a message without a promotion. */
export function grammarStrippedRecord(ts: string, event: GrammarMessageEvent): TelemetryRecord {
	return {
		ts,
		kind: "leak-stripped",
		model: event.model,
		outcome: "stripped",
		rules: ["grammarStrip"],
		channel: "message",
		grammar: event.grammars.join(","),
		profile: event.profile,
		stages: ["grammar"],
	};
}

/** E. Grammar text detected and left in place. */
export function grammarObservedRecord(ts: string, event: GrammarMessageEvent): TelemetryRecord {
	return {
		ts,
		kind: "leak-observed",
		model: event.model,
		outcome: "observed",
		rules: ["grammarObserve"],
		channel: "message",
		grammar: event.grammars.join(","),
		profile: event.profile,
		stages: ["grammar"],
		observation: true,
	};
}

const { O_APPEND, O_CREAT, O_EXCL, O_NONBLOCK, O_RDONLY, O_RDWR } = fsConstants;
/** Never waits for a reader or writer: a FIFO or device opens at once (or fails) and is then refused. */
const OPEN_EXISTING = O_RDWR | O_APPEND | O_NONBLOCK;
/** Creates the file only where nothing, not even a dangling symlink, stands. */
const OPEN_NEW = OPEN_EXISTING | O_CREAT | O_EXCL;
const NEWLINE = 0x0a;

/** Why a path was refused; the text completes "tool-repair telemetry file <path> …". */
class TelemetryFileProblem extends Error {}

/**
 * Appends whole lines to regular files only, creates them private, and
 * rotates them under a lock. A line that an earlier write left unfinished is
 * ended first, so it never merges with the next record.
 */
class LineAppender {
	private readonly rotateBytes: number;
	private readonly warnOnce: (path: string, problem: string) => void;
	/** Paths whose `<file>.1` belongs to someone else: they are not rotated again in this process. */
	private readonly rotationRefused = new Set<string>();

	constructor(rotateBytes: number, warnOnce: (path: string, problem: string) => void) {
		this.rotateBytes = rotateBytes;
		this.warnOnce = warnOnce;
	}

	append(path: string, line: string): void {
		const fd = openRegularFile(path);
		let size: number;
		try {
			size = fstatSync(fd).size;
			const body = Buffer.from(endsUnfinished(fd, size) ? `\n${line}` : line, "utf8");
			const written = writeSync(fd, body);
			if (written < body.length) {
				// The partial line gets its end now if space allows, else the next append ends it.
				tryWrite(fd, "\n");
				throw new TelemetryFileProblem(`took only ${written} of ${body.length} bytes (disk full or size limit)`);
			}
			size += written;
		} finally {
			closeSync(fd);
		}
		if (size >= this.rotateBytes && !this.rotationRefused.has(path)) this.rotate(path);
	}

	private rotate(path: string): void {
		const refusal = rotateUnderLock(path, this.rotateBytes);
		if (refusal === undefined) return;
		this.rotationRefused.add(path);
		this.warnOnce(path, refusal);
	}
}

/** Opens `path` for appending, creating it (0600, folders 0700) when nothing stands there. */
function openRegularFile(path: string): number {
	const fd = openOrCreate(path);
	try {
		if (!fstatSync(fd).isFile()) throw new TelemetryFileProblem("is not a regular file; nothing is written to it");
	} catch (error) {
		closeSync(fd);
		throw error;
	}
	return fd;
}

/** Other processes can create and rotate the file between two of our calls; this many races in a row is not that. */
const MAX_OPEN_ATTEMPTS = 16;

/**
 * The file opened for appending. Between "missing" and "create" another
 * process may create it, and between "exists" and "open" another may rotate
 * it away; either is a race to retry, not a problem to report. Only a
 * symlink to a missing file, which is never followed, is one.
 */
function openOrCreate(path: string): number {
	for (let attempt = 1; ; attempt++) {
		try {
			return openSync(path, OPEN_EXISTING);
		} catch (error) {
			if (errorCode(error) !== "ENOENT") throw error;
		}
		mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
		try {
			return openSync(path, OPEN_NEW, 0o600);
		} catch (error) {
			if (errorCode(error) !== "EEXIST") throw error;
		}
		if (isSymlink(path)) throw new TelemetryFileProblem("is a symbolic link to a missing file; not followed");
		if (attempt >= MAX_OPEN_ATTEMPTS) throw new TelemetryFileProblem("kept disappearing while it was opened");
	}
}

function isSymlink(path: string): boolean {
	try {
		return lstatSync(path).isSymbolicLink();
	} catch (error) {
		// Gone again: rotated away by another process, so not a symlink.
		if (errorCode(error) === "ENOENT") return false;
		throw error;
	}
}

/** Whether the file's last byte is not a newline (a write that was cut short). */
function endsUnfinished(fd: number, size: number): boolean {
	if (size === 0) return false;
	const last = Buffer.alloc(1);
	return readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== NEWLINE;
}

function tryWrite(fd: number, text: string): void {
	try {
		writeSync(fd, text);
	} catch {
		// Still full: the next append starts with the newline instead.
	}
}

/** A lock older than this was left by a process that died mid-rotation. */
const STALE_LOCK_MS = 60_000;

/**
 * Renames `<file>` to `<file>.1` while holding `<file>.rotate-lock`, created
 * exclusively, so two processes never both rotate: the second one would move
 * the fresh file over the first one's `.1`. The size is measured again under
 * the lock, so a file another process just rotated is left alone. Returns why
 * the rotation was refused when `<file>.1` is not a file this layer wrote.
 */
function rotateUnderLock(path: string, rotateBytes: number): string | undefined {
	const lock = `${path}.rotate-lock`;
	let fd: number;
	try {
		fd = openSync(lock, "wx", 0o600);
	} catch (error) {
		if (errorCode(error) === "EEXIST") removeStaleLock(lock);
		return undefined;
	}
	try {
		// Another process rotated it since our append and no record has started the next file yet.
		const size = sizeOrMissing(path);
		if (size === undefined || size < rotateBytes) return undefined;
		const previous = rotatedTelemetryPath(path);
		const refusal = `is not rotated: ${previous} exists and was not written by tool-repair`;
		if (!mayReplace(previous)) return refusal;
		return moveAside(path, previous) ? undefined : refusal;
	} finally {
		closeSync(fd);
		try {
			unlinkSync(lock);
		} catch {
			// Already removed as stale by another process.
		}
	}
}

/**
 * Moves `path` to `previous`, which is ours or absent, and never over a file
 * that appears there meanwhile: our old one is removed first and the new name
 * is made with a hard link, which fails instead of replacing. Returns false
 * when something else took the name. Where hard links are not supported the
 * move is a rename, replacing only what was just checked.
 */
function moveAside(path: string, previous: string): boolean {
	try {
		unlinkSync(previous);
	} catch (error) {
		if (errorCode(error) !== "ENOENT") throw error;
	}
	try {
		linkSync(path, previous);
	} catch (error) {
		const code = errorCode(error);
		if (code === "EEXIST") return false;
		if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "EMLINK") throw error;
		renameSync(path, previous);
		return true;
	}
	// Appends that opened the file before this point land in `previous`, under its new name.
	unlinkSync(path);
	return true;
}

/** The file's size, or `undefined` when nothing stands at `path`. */
function sizeOrMissing(path: string): number | undefined {
	try {
		return statSync(path).size;
	} catch (error) {
		if (errorCode(error) === "ENOENT") return undefined;
		throw error;
	}
}

/** How much of `<file>.1` is read to recognise it as an earlier telemetry file. */
const OWNERSHIP_PROBE_BYTES = 64 * 1024;

/** True when `<file>.1` is absent, or a regular file whose first complete line is one of our records. */
function mayReplace(previous: string): boolean {
	let info: ReturnType<typeof lstatSync>;
	try {
		info = lstatSync(previous);
	} catch (error) {
		if (errorCode(error) === "ENOENT") return true;
		throw error;
	}
	if (!info.isFile()) return false;
	const fd = openSync(previous, O_RDONLY | O_NONBLOCK);
	try {
		const probe = Buffer.alloc(Math.min(OWNERSHIP_PROBE_BYTES, info.size));
		const text = probe.toString("utf8", 0, readSync(fd, probe, 0, probe.length, 0));
		const lines = text.split("\n");
		// The last piece may be cut by the probe; a first line left unfinished by a short write is skipped.
		return lines.slice(0, -1).some(isTelemetryRecordLine);
	} finally {
		closeSync(fd);
	}
}

/** A line in the shape every record has: an object with a `ts` text, an `outcome` text and a `rules` list. */
export function isTelemetryRecordLine(line: string): boolean {
	const record = tryParse(line);
	if (!isRecord(record)) return false;
	return typeof record.ts === "string" && typeof record.outcome === "string" && Array.isArray(record.rules);
}

function removeStaleLock(lock: string): void {
	try {
		if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) unlinkSync(lock);
	} catch {
		// Released meanwhile.
	}
}

function errorText(error: unknown): string {
	if (error instanceof TelemetryFileProblem) return error.message;
	return `could not be written (${errorCode(error)})`;
}
