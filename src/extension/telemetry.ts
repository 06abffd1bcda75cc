/**
 * Local, value-free telemetry: one JSON line per repair outcome or grammar
 * event, appended to `tool-repair/telemetry.jsonl` under pi's agent dir (or
 * `PI_TOOL_REPAIR_TELEMETRY`, read at every write; `off`/`0`/`false` disable).
 *
 * Record types A–E keep the key order of extension-contract §5.2. Callers
 * pass only metadata (tool and model names, rule IDs, issue shapes); no
 * argument value, path, command, content or note text ever reaches here.
 *
 * Each record is one append of one whole line (`O_APPEND`), so several pi
 * processes can share a file without losing or interleaving lines. That
 * append is the only synchronous file call on the tool-call path: the size
 * check for rotation runs asynchronously every so often, and when the file
 * passes the limit (10 MB) it is renamed to `<file>.1`, replacing the
 * previous one, under a lock file so two processes never rotate at once.
 * `/repair-stats` reads both. Every error is swallowed.
 */
import { appendFileSync, closeSync, mkdirSync, openSync, renameSync, stat, statSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { getAgentDir } from "@earendil-works/pi-coding-agent";
import type {
	GrammarMessageEvent,
	GrammarRecoveredEvent,
	TelemetryRecorder,
	ToolObservationEvent,
	ToolOutcomeEvent,
} from "./types.ts";

export const TELEMETRY_ROTATE_BYTES = 10 * 1024 * 1024;
/** Bytes this process appends between two asynchronous size checks. */
const SIZE_CHECK_INTERVAL_BYTES = 64 * 1024;

const DISABLED_VALUES = new Set(["off", "0", "false"]);

/** Where records go now, or `undefined` when telemetry is switched off. */
export function telemetryPath(): string | undefined {
	const value = process.env.PI_TOOL_REPAIR_TELEMETRY;
	if (value !== undefined && DISABLED_VALUES.has(value)) return undefined;
	if (value !== undefined && value !== "") return value;
	return join(getAgentDir(), "tool-repair", "telemetry.jsonl");
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
}

/** The A–E records as they are written; `undefined` fields vanish from the line. */
export type TelemetryRecord = Record<string, unknown>;

export function createTelemetryRecorder(options: TelemetryRecorderOptions = {}): TelemetryRecorder {
	const resolvePath = options.path ?? telemetryPath;
	const now = options.now ?? (() => new Date());
	const rotateBytes = options.rotateBytes ?? TELEMETRY_ROTATE_BYTES;
	const writer = new LineAppender(rotateBytes);
	const write = (build: (ts: string) => TelemetryRecord): void => {
		try {
			const path = resolvePath();
			if (path === undefined) return;
			writer.append(path, `${JSON.stringify(build(now().toISOString()))}\n`);
		} catch {
			// Telemetry never disturbs a tool call.
		}
	};
	return {
		toolOutcome: (event) => write((ts) => toolOutcomeRecord(ts, event)),
		toolObservation: (event) => write((ts) => toolObservationRecord(ts, event)),
		grammarRecovered: (event) => write((ts) => grammarRecoveredRecord(ts, event)),
		grammarStripped: (event) => write((ts) => grammarStrippedRecord(ts, event)),
		grammarObserved: (event) => write((ts) => grammarObservedRecord(ts, event)),
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
		rules: [`grammarRecovery:${event.grammar}`],
		grammar: event.grammar,
		profile: event.profile,
		stages: ["grammar"],
	};
}

/** D. Grammar text removed from a message without a promotion. */
export function grammarStrippedRecord(ts: string, event: GrammarMessageEvent): TelemetryRecord {
	return {
		ts,
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

/**
 * Appends whole lines and rotates the file in the background. Folders are
 * created only when an append finds them missing, so the steady state costs
 * one `appendFileSync` per record.
 */
class LineAppender {
	private readonly rotateBytes: number;
	private readonly checkInterval: number;
	private readonly sinceCheck = new Map<string, number>();
	private readonly checking = new Set<string>();

	constructor(rotateBytes: number) {
		this.rotateBytes = rotateBytes;
		this.checkInterval = Math.max(1, Math.min(SIZE_CHECK_INTERVAL_BYTES, Math.floor(rotateBytes / 8)));
	}

	append(path: string, line: string): void {
		try {
			appendFileSync(path, line);
		} catch (error) {
			if (!isCode(error, "ENOENT")) throw error;
			mkdirSync(dirname(path), { recursive: true });
			appendFileSync(path, line);
		}
		// The first append to a path checks at once, so a file left large by an earlier run rotates early.
		const written = (this.sinceCheck.get(path) ?? this.checkInterval) + line.length;
		if (written < this.checkInterval || this.checking.has(path)) {
			this.sinceCheck.set(path, written);
			return;
		}
		this.sinceCheck.set(path, 0);
		this.scheduleRotationCheck(path);
	}

	private scheduleRotationCheck(path: string): void {
		this.checking.add(path);
		stat(path, (error, info) => {
			if (!error && info.size >= this.rotateBytes) rotateUnderLock(path, this.rotateBytes);
			this.finishCheck(path);
		});
	}

	/** Appends made while a check was running are measured by a follow-up check. */
	private finishCheck(path: string): void {
		this.checking.delete(path);
		if ((this.sinceCheck.get(path) ?? 0) < this.checkInterval) return;
		this.sinceCheck.set(path, 0);
		this.scheduleRotationCheck(path);
	}
}

/** A lock older than this was left by a process that died mid-rotation. */
const STALE_LOCK_MS = 60_000;

/**
 * Renames `<file>` to `<file>.1` while holding `<file>.rotate-lock`, created
 * exclusively, so two processes never both rotate: the second one would move
 * the fresh file over the first one's `.1`. The size is measured again under
 * the lock, so a file another process just rotated is left alone.
 */
function rotateUnderLock(path: string, rotateBytes: number): void {
	const lock = `${path}.rotate-lock`;
	let fd: number;
	try {
		fd = openSync(lock, "wx");
	} catch (error) {
		if (isCode(error, "EEXIST")) removeStaleLock(lock);
		return;
	}
	try {
		if (statSync(path).size >= rotateBytes) renameSync(path, rotatedTelemetryPath(path));
	} catch {
		// Gone or unreadable: nothing to rotate.
	} finally {
		closeSync(fd);
		try {
			unlinkSync(lock);
		} catch {
			// Already removed as stale by another process.
		}
	}
}

function removeStaleLock(lock: string): void {
	try {
		if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) unlinkSync(lock);
	} catch {
		// Released meanwhile.
	}
}

function isCode(error: unknown, code: string): boolean {
	return typeof error === "object" && error !== null && "code" in error && error.code === code;
}
