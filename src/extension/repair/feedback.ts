/**
 * The one store of notes, keyed by tool-call ID: every repair, rescue,
 * rename and promotion is judged at `message_end`, where the call's ID is
 * known, and bound here (`bind`); its notes go onto that call's
 * model-visible result (`tool_result`), its value-free record into the TUI
 * indicator map and the session's custom entries. Nothing is ever matched by
 * tool name and arguments, so parallel and identical calls each keep their
 * own note.
 *
 * - A call that was promoted or rescued and then also needed repair keeps
 *   both notes, so the model learns both what was recovered and what was fixed.
 * - Codemode: results of nested calls (those with `parentToolCallId`) reach
 *   only the script, so their content is never touched; their notes are held
 *   and attached once to the parent call's result, which the model sees.
 *
 * Persisted entries and the indicator carry the call ID, rule IDs and
 * metadata only (the call ID is how a resumed session finds its call again);
 * notes live in memory until their result is delivered.
 */
import { combineFeedback, RepairLifecycle } from "../../core/lifecycle.ts";
import { attachRepairNotes } from "../../core/repair-notes.ts";
import type { RepairFeedback } from "../../core/types.ts";
import { setNewest } from "../host/bounded-map.ts";

export const REPAIR_ENTRY_TYPE = "tool-repair";
/** Custom entry type of leaked text stripped or observed in one message, so a resumed session counts it again. */
export const LEAK_ENTRY_TYPE = "tool-repair-leak";

/** The value-free record of leaked text that did not become a call: outcome, families and count only. */
export interface LeakEntryData {
	outcome: "stripped" | "observed";
	grammars: string[];
	count: number;
}

/** Calls and leaked text shown this session, by outcome, with the words `/repair-stats` uses for them. */
export interface SessionTally {
	repaired: number;
	recovered: number;
	/** Leaked calls whose text was stripped from the reply. */
	stripped: number;
	/** Leaked calls left in the reply as text (observed, not run). */
	observed: number;
}

/** The value-free record written with `pi.appendEntry("tool-repair", ...)`. */
export interface RepairEntryData {
	toolCallId: string;
	tool: string;
	rules: string[];
	stages: string[];
	profile?: string;
	model?: string;
	outcome: "repaired" | "recovered";
	fingerprint?: string;
}

/** Calls whose indicator info is kept; older ones are dropped first. */
const MAX_SHOWN = 512;
/** Codemode parents whose nested notes are waiting for the parent result. */
const MAX_NESTED_PARENTS = 128;
/** Notes held for one codemode parent. */
const MAX_NESTED_NOTES = 64;

type ContentBlock = { type: string; text?: string };

export interface FeedbackHubOptions {
	/** Persists one entry (`pi.appendEntry`); the caller contains and reports its failures. */
	appendEntry?: (customType: string, data: RepairEntryData | LeakEntryData) => void;
	lifecycle?: RepairLifecycle;
	/** A note now waits for its call's result (the `tool_result` handler is due). */
	onHold?: () => void;
}

function entryFor(toolCallId: string, tool: string, feedback: RepairFeedback): RepairEntryData {
	const entry: RepairEntryData = {
		toolCallId,
		tool,
		rules: [...feedback.rules],
		stages: [...(feedback.stages ?? [])],
		outcome: feedback.outcome ?? "repaired",
	};
	if (feedback.profile !== undefined) entry.profile = feedback.profile;
	if (feedback.model !== undefined) entry.model = feedback.model;
	if (feedback.fingerprint !== undefined) entry.fingerprint = feedback.fingerprint;
	return entry;
}

/** Reads a persisted leak entry back, or `undefined` when it is not one. */
export function leakFromEntry(data: unknown): LeakEntryData | undefined {
	if (typeof data !== "object" || data === null) return undefined;
	const record = data as Record<string, unknown>;
	if (record.outcome !== "stripped" && record.outcome !== "observed") return undefined;
	if (typeof record.count !== "number" || !Number.isSafeInteger(record.count) || record.count < 0) return undefined;
	const grammars = Array.isArray(record.grammars) ? record.grammars.filter((g) => typeof g === "string") : [];
	return { outcome: record.outcome, grammars, count: record.count };
}

/** Reads a persisted entry back into indicator info (never with notes: they are not persisted). */
export function feedbackFromEntry(data: unknown): { toolCallId: string; feedback: RepairFeedback } | undefined {
	if (typeof data !== "object" || data === null) return undefined;
	const record = data as Record<string, unknown>;
	if (typeof record.toolCallId !== "string") return undefined;
	const strings = (value: unknown) =>
		Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
	const feedback: RepairFeedback = { rules: strings(record.rules), notes: [], stages: strings(record.stages) };
	for (const key of ["profile", "model", "fingerprint"] as const) {
		if (typeof record[key] === "string") feedback[key] = record[key];
	}
	if (record.outcome === "repaired" || record.outcome === "recovered") feedback.outcome = record.outcome;
	return { toolCallId: record.toolCallId, feedback };
}

export class RepairFeedbackHub {
	readonly lifecycle: RepairLifecycle;
	private readonly appendEntry: FeedbackHubOptions["appendEntry"];
	private readonly onHold: FeedbackHubOptions["onHold"];
	/** Indicator info by call ID, for the result renderer and the footer tally. */
	private readonly shown = new Map<string, RepairFeedback>();
	/** Notes of nested codemode calls, by parent call ID. */
	private readonly nested = new Map<string, string[]>();
	/** Leaked calls stripped or observed this session (text, not calls: they have no call ID). */
	private readonly leaks = { stripped: 0, observed: 0 };

	constructor(options: FeedbackHubOptions = {}) {
		this.lifecycle = options.lifecycle ?? new RepairLifecycle();
		this.appendEntry = options.appendEntry;
		this.onHold = options.onHold;
	}

	/** A call judged at `message_end` (repaired, rescued, renamed or promoted): its note, bound to its ID. */
	bind(toolCallId: string, toolName: string, feedback: RepairFeedback): void {
		// merge() associates a new ID and combines with an earlier note for a known one.
		this.lifecycle.merge(toolCallId, feedback);
		this.show(toolCallId, this.lifecycle.peek(toolCallId) ?? feedback);
		this.onHold?.();
		this.persist(toolCallId, toolName, feedback);
	}

	/** True while a note waits for a call's result (its own, or a codemode parent's). */
	get holding(): boolean {
		return this.lifecycle.associatedCount > 0 || this.nested.size > 0;
	}

	/**
	 * `tool_result`: the content the model should see, or `undefined` to leave it
	 * alone. Nested results are never changed; their notes go to the parent.
	 */
	onToolResult<T extends ContentBlock>(
		toolCallId: string,
		parentToolCallId: string | undefined,
		content: readonly T[],
	): T[] | undefined {
		const own = this.lifecycle.take(toolCallId);
		const fromNested = this.nested.get(toolCallId);
		if (fromNested !== undefined) this.nested.delete(toolCallId);
		const notes = [...(own?.notes ?? []), ...(fromNested ?? [])];
		if (notes.length === 0) return undefined;
		if (parentToolCallId !== undefined) {
			this.holdForParent(parentToolCallId, notes);
			return undefined;
		}
		return attachRepairNotes(content, notes);
	}

	/** Indicator info for one call (rules, and notes while the session holds them). */
	info(toolCallId: string): RepairFeedback | undefined {
		return this.shown.get(toolCallId);
	}

	/** Repaired or recovered calls shown this session. */
	get repairCount(): number {
		return this.shown.size;
	}

	/** The same calls by outcome, and the leaked text stripped or observed, for the footer. */
	get tally(): SessionTally {
		let recovered = 0;
		for (const feedback of this.shown.values()) if (feedback.outcome === "recovered") recovered++;
		return { repaired: this.shown.size - recovered, recovered, ...this.leaks };
	}

	/** Leaked text in one message was stripped or observed instead of promoted: count it and persist the count. */
	noteLeak(leak: LeakEntryData): void {
		this.leaks[leak.outcome] += leak.count;
		this.appendEntry?.(LEAK_ENTRY_TYPE, { outcome: leak.outcome, grammars: [...leak.grammars], count: leak.count });
	}

	/** Rebuilds indicator info from the session's persisted entries. */
	restore(entries: readonly unknown[]): void {
		// The entries are the whole session, so the leak counts are rebuilt from them, not added to.
		this.leaks.stripped = 0;
		this.leaks.observed = 0;
		for (const entry of entries) {
			const record = entry as { type?: unknown; customType?: unknown; data?: unknown };
			if (record?.type !== "custom") continue;
			if (record.customType === LEAK_ENTRY_TYPE) {
				const leak = leakFromEntry(record.data);
				if (leak !== undefined) this.leaks[leak.outcome] += leak.count;
				continue;
			}
			if (record.customType !== REPAIR_ENTRY_TYPE) continue;
			const restored = feedbackFromEntry(record.data);
			if (restored === undefined) continue;
			const known = this.shown.get(restored.toolCallId);
			this.show(restored.toolCallId, known ? combineFeedback(known, restored.feedback) : restored.feedback);
		}
	}

	/**
	 * `turn_end`: every call of the turn has had its result by now, so a note
	 * still held belongs to a call that never ran (blocked by another
	 * extension, or refused by pi's validation); held nested notes likewise.
	 */
	endTurn(): void {
		this.lifecycle.clear();
		this.nested.clear();
	}

	clear(): void {
		this.lifecycle.clear();
		this.shown.clear();
		this.nested.clear();
		this.leaks.stripped = 0;
		this.leaks.observed = 0;
	}

	private show(toolCallId: string, feedback: RepairFeedback): void {
		setNewest(this.shown, toolCallId, feedback, MAX_SHOWN);
	}

	private holdForParent(parentToolCallId: string, notes: readonly string[]): void {
		const held = this.nested.get(parentToolCallId) ?? [];
		for (const note of notes) if (held.length < MAX_NESTED_NOTES) held.push(note);
		setNewest(this.nested, parentToolCallId, held, MAX_NESTED_PARENTS);
	}

	private persist(toolCallId: string, toolName: string, feedback: RepairFeedback): void {
		this.appendEntry?.(REPAIR_ENTRY_TYPE, entryFor(toolCallId, toolName, feedback));
	}
}
