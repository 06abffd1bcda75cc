/**
 * `/repair-stats` aggregation: streams the rotated telemetry file
 * (`<file>.1`) and then the current one, line by line, and tallies outcomes
 * per tool and per model, grammar families of the message channel, and rule
 * IDs. Memory stays flat in the file size: only one chunk and one partial
 * line are held at a time. Blank, broken, overlong or non-object lines are
 * skipped and counted, never fatal. Only regular files are read: a FIFO or
 * device at the path would block or stream forever, so it is skipped with a
 * warning.
 *
 * The file is anyone's to edit, so its names are data, not text to print:
 * each tool, model, owner, family and rule name is made printable and cut to
 * `MAX_NAME_LENGTH`, and each tally keeps at most `MAX_DISTINCT_NAMES` names,
 * counting the rest together under `OTHER_NAMES`. Memory stays bounded
 * whatever the file holds.
 *
 * Optional filters: `--since <duration|date>` and `--model <substring>`.
 */
import { constants as fsConstants } from "node:fs";
import { open } from "node:fs/promises";
import { isRecord, tryParse } from "../../core/json-value.ts";
import { keyWithin } from "../host/bounded-map.ts";
import { printable, printableName } from "../host/printable.ts";
import { errorCode, reportIoError } from "./fs-errors.ts";
import { rotatedTelemetryPath } from "./telemetry.ts";

export interface OutcomeCounts {
	repaired: number;
	recovered: number;
	unrepairable: number;
}

export interface TelemetryStats {
	/** Records counted (after filters). */
	total: number;
	/** Records of the tool channel (no channel, or `"tool"`). */
	toolEvents: number;
	/** Records of the message channel (grammar strip-only and observe events). */
	messageEvents: number;
	/** Lines that were not a JSON object, or were too long to be a record. */
	skippedLines: number;
	/** Rows in first-seen order; sorting is the report's job. */
	byTool: Map<string, OutcomeCounts>;
	byModel: Map<string, OutcomeCounts>;
	/** Tool events by owner kind of the tool (`builtin`, `extension`, `mcp`; `unrecorded` for records without one). */
	byOwner: Map<string, OutcomeCounts>;
	grammars: Map<string, number>;
	rules: Map<string, number>;
	/** Silent stops continued, by what the reply did: a phantom tool use, reasoning only, or a leaked call. */
	continuations: Map<string, number>;
}

export interface StatsFilters {
	/** Only records whose `ts` is at or after this instant (epoch ms). */
	sinceMs?: number;
	/** Only records whose model id contains this text (case-insensitive). */
	model?: string;
}

/** A record line is a few hundred bytes; anything past this is not one of ours. */
export const MAX_RECORD_LINE_BYTES = 1024 * 1024;
const READ_CHUNK_BYTES = 1024 * 1024;
/** Rows per tally; real files name far fewer tools, models or rules. */
export const MAX_DISTINCT_NAMES = 256;
/** The row that counts every name past the limit. */
export const OTHER_NAMES = "(other names)";
/** Longer than any tool, model or rule name; a longer one is cut. */
export const MAX_NAME_LENGTH = 128;
const NEWLINE = 0x0a;

/** What the reply of a continued silent stop did; a record written before `reasoningOnly` existed counts with the leaks. */
function continuationKind(record: Record<string, unknown>): string {
	if (record.phantom === true) return "phantom tool use";
	return record.reasoningOnly === true ? "reasoning only" : "after a leaked call";
}

export function emptyStats(): TelemetryStats {
	return {
		total: 0,
		toolEvents: 0,
		messageEvents: 0,
		skippedLines: 0,
		byTool: new Map(),
		byModel: new Map(),
		byOwner: new Map(),
		grammars: new Map(),
		rules: new Map(),
		continuations: new Map(),
	};
}

/** Folds record lines into one `TelemetryStats`; feed it lines, then read `stats`. */
export class StatsAccumulator {
	readonly stats: TelemetryStats = emptyStats();
	private readonly sinceMs: number | undefined;
	private readonly model: string | undefined;

	constructor(filters: StatsFilters = {}) {
		this.sinceMs = filters.sinceMs;
		this.model = filters.model?.toLowerCase();
	}

	addLine(line: string): void {
		if (isBlank(line)) return;
		const record = tryParse(line);
		if (!isRecord(record)) {
			this.stats.skippedLines++;
			return;
		}
		this.addRecord(record);
	}

	/** Counts a line that was dropped before parsing (too long). */
	skip(): void {
		this.stats.skippedLines++;
	}

	addRecord(record: Record<string, unknown>): void {
		if (!this.passes(record)) return;
		const stats = this.stats;
		stats.total++;
		if (record.channel === "message") {
			stats.messageEvents++;
			// A continuation follows a leak whose own record counted its families (or a phantom tool use, which has
			// none): its rule ID counts the continuation, and the leak is counted once.
			const families =
				record.outcome === "continued" ? "" : typeof record.grammar === "string" ? record.grammar : "unknown";
			for (const family of families.split(",")) if (family !== "") increment(stats.grammars, shownName(family));
			if (record.outcome === "continued") increment(stats.continuations, continuationKind(record));
		} else {
			stats.toolEvents++;
			const toolRow = row(stats.byTool, shownName(nameOr(record.tool)));
			const modelRow = row(stats.byModel, shownName(nameOr(record.model)));
			const ownerRow = row(stats.byOwner, typeof record.owner === "string" ? shownName(record.owner) : "unrecorded");
			const outcome = record.outcome;
			if (outcome === "repaired" || outcome === "recovered" || outcome === "unrepairable") {
				toolRow[outcome]++;
				modelRow[outcome]++;
				ownerRow[outcome]++;
			}
		}
		if (Array.isArray(record.rules)) {
			for (const rule of record.rules) if (typeof rule === "string") increment(stats.rules, shownName(rule));
		}
	}

	private passes(record: Record<string, unknown>): boolean {
		if (this.sinceMs !== undefined) {
			const at = typeof record.ts === "string" ? Date.parse(record.ts) : Number.NaN;
			if (!(at >= this.sinceMs)) return false;
		}
		if (this.model !== undefined && !nameOr(record.model).toLowerCase().includes(this.model)) return false;
		return true;
	}
}

/**
 * Aggregates the given files in order; a missing file adds nothing, and one
 * that is not a regular file or cannot be read adds nothing and one line to
 * `onWarning`. Returns `undefined` only when none of them could be read.
 */
export async function aggregateTelemetryFiles(
	paths: readonly string[],
	filters: StatsFilters = {},
	onWarning: (text: string) => void = () => {},
): Promise<TelemetryStats | undefined> {
	const accumulator = new StatsAccumulator(filters);
	let opened = 0;
	for (const path of paths) {
		const problem = await streamLines(path, accumulator);
		if (problem === undefined) opened++;
		else if (problem !== "missing") onWarning(`tool-repair telemetry file ${path} ${problem}; skipped.`);
	}
	return opened > 0 ? accumulator.stats : undefined;
}

/** The previous (rotated) file first, so records come oldest first. */
export function telemetryFilesToRead(path: string): string[] {
	return [rotatedTelemetryPath(path), path];
}

/** Opening never waits for a writer, so a FIFO is seen for what it is instead of blocking. */
const OPEN_FOR_READING = fsConstants.O_RDONLY | fsConstants.O_NONBLOCK;

/**
 * Splits on newline bytes (safe in UTF-8) and decodes one line at a time.
 * Returns why the file added nothing, or `undefined` once it was read.
 */
async function streamLines(path: string, accumulator: StatsAccumulator): Promise<string | undefined> {
	let handle: Awaited<ReturnType<typeof open>>;
	try {
		handle = await open(path, OPEN_FOR_READING);
	} catch (error) {
		if (errorCode(error) === "ENOENT") return "missing";
		reportIoError("stats-read", error);
		return `could not be read (${errorCode(error)})`;
	}
	try {
		if (!(await handle.stat()).isFile()) return "is not a regular file";
		return await streamChunks(
			handle.createReadStream({ highWaterMark: READ_CHUNK_BYTES, autoClose: false }),
			accumulator,
		);
	} finally {
		await handle.close().catch((error: unknown) => reportIoError("stats-close", error));
	}
}

async function streamChunks(stream: AsyncIterable<Buffer>, accumulator: StatsAccumulator): Promise<string | undefined> {
	let partial: Buffer[] = [];
	let partialBytes = 0;
	let overlong = false;
	try {
		for await (const chunk of stream) {
			let start = 0;
			for (let end = chunk.indexOf(NEWLINE, start); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
				if (overlong) {
					accumulator.skip();
					overlong = false;
				} else if (partialBytes + end - start > MAX_RECORD_LINE_BYTES) {
					accumulator.skip();
				} else if (partialBytes > 0) {
					partial.push(chunk.subarray(start, end));
					accumulator.addLine(Buffer.concat(partial).toString("utf8"));
				} else {
					accumulator.addLine(chunk.toString("utf8", start, end));
				}
				partial = [];
				partialBytes = 0;
				start = end + 1;
			}
			if (start < chunk.length && !overlong) {
				partialBytes += chunk.length - start;
				if (partialBytes > MAX_RECORD_LINE_BYTES) {
					// Drop what was kept and ignore the rest of this line.
					overlong = true;
					partial = [];
					partialBytes = 0;
				} else {
					// Copy: the stream may reuse its buffer.
					partial.push(Buffer.from(chunk.subarray(start)));
				}
			}
		}
	} catch (error) {
		reportIoError("stats-read", error);
		return `could not be read (${errorCode(error)})`;
	}
	if (overlong) accumulator.skip();
	else if (partialBytes > 0) accumulator.addLine(Buffer.concat(partial).toString("utf8"));
	return undefined;
}

const DURATION_UNITS_MS: Readonly<Record<string, number>> = {
	s: 1000,
	m: 60_000,
	h: 3_600_000,
	d: 86_400_000,
	w: 604_800_000,
};

export const STATS_USAGE = "/repair-stats [--since <30m|12h|7d|2w|YYYY-MM-DD|ISO time>] [--model <text>]";

export type ParsedStatsArgs = { filters: StatsFilters; description: string[] } | { error: string };

/** Parses the command's argument text; `now` is the reference for durations. */
export function parseStatsArgs(args: string, now: number): ParsedStatsArgs {
	const tokens = args.trim() === "" ? [] : args.trim().split(/\s+/);
	const filters: StatsFilters = {};
	const description: string[] = [];
	for (let i = 0; i < tokens.length; i++) {
		const token = tokens[i] ?? "";
		const [flag, inline] = token.includes("=")
			? [token.slice(0, token.indexOf("=")), token.slice(token.indexOf("=") + 1)]
			: [token, undefined];
		if (flag !== "--since" && flag !== "--model")
			return { error: `Unknown argument "${token}". Usage: ${STATS_USAGE}` };
		const value = inline ?? tokens[++i];
		if (value === undefined || value === "") return { error: `${flag} needs a value. Usage: ${STATS_USAGE}` };
		if (flag === "--model") {
			filters.model = value;
			description.push(`model contains "${printable(value)}"`);
			continue;
		}
		const sinceMs = parseSince(value, now);
		if (sinceMs === undefined) {
			return { error: `--since takes a duration such as 30m, 12h, 7d or 2w, or a date; got "${value}".` };
		}
		filters.sinceMs = sinceMs;
		description.push(`since ${new Date(sinceMs).toISOString()}`);
	}
	return { filters, description };
}

export function parseSince(value: string, now: number): number | undefined {
	const duration = /^(\d+(?:\.\d+)?)([smhdw])$/.exec(value);
	if (duration) {
		const unit = DURATION_UNITS_MS[duration[2] ?? ""] ?? 0;
		return now - Number(duration[1]) * unit;
	}
	// Only calendar-looking text counts as a date, so a typo like "7x" is an error, not year 7.
	if (!/^\d{4}-\d{2}-\d{2}/.test(value)) return undefined;
	const at = Date.parse(value);
	return Number.isNaN(at) ? undefined : at;
}

function isBlank(line: string): boolean {
	for (let i = 0; i < line.length; i++) {
		const code = line.charCodeAt(i);
		if (code !== 0x20 && code !== 0x09 && code !== 0x0d) return false;
	}
	return true;
}

function nameOr(value: unknown): string {
	return typeof value === "string" && value !== "" ? value : "unknown";
}

/** A name from the file as the report may show it. */
function shownName(name: string): string {
	return printableName(name, MAX_NAME_LENGTH);
}

function row(rows: Map<string, OutcomeCounts>, name: string): OutcomeCounts {
	const key = keyWithin(rows, name, MAX_DISTINCT_NAMES, OTHER_NAMES);
	let counts = rows.get(key);
	if (!counts) {
		counts = { repaired: 0, recovered: 0, unrepairable: 0 };
		rows.set(key, counts);
	}
	return counts;
}

function increment(counts: Map<string, number>, name: string): void {
	const key = keyWithin(counts, name, MAX_DISTINCT_NAMES, OTHER_NAMES);
	counts.set(key, (counts.get(key) ?? 0) + 1);
}
