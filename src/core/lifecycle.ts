/**
 * Bridges a repair computed before the call has an ID (`prepareArguments`)
 * to the tool-call ID and, later, to the call's result.
 *
 * Pending repairs wait in a FIFO keyed by tool name and key-order-insensitive
 * arguments, so identical calls are matched in the order they were repaired.
 * Both stores are bounded by a TTL and a size cap; the clock is injectable.
 */
import { stableSerialize } from "./stable-serialize.ts";
import type { RepairFeedback, RepairLifecycleOptions } from "./types.ts";

interface PendingEntry {
	key: string;
	timestamp: number;
	feedback: RepairFeedback;
}

interface AssociatedEntry {
	feedback: RepairFeedback;
	timestamp: number;
}

function pendingKey(toolName: string, args: unknown): string {
	return `${toolName}\u0000${stableSerialize(args)}`;
}

function copyFeedback(feedback: RepairFeedback): RepairFeedback {
	const copy: RepairFeedback = { ...feedback, rules: [...feedback.rules], notes: [...feedback.notes] };
	if (feedback.stages !== undefined) {
		copy.stages = [...feedback.stages];
	}
	return copy;
}

function unique(values: readonly string[]): string[] {
	return [...new Set(values)];
}

/**
 * Both feedbacks in one (a promoted call that then needed argument repair
 * keeps both notes): rules and stages de-duplicated in order, notes
 * concatenated, and `first`'s profile, model, outcome and fingerprint kept
 * where set.
 */
export function combineFeedback(first: RepairFeedback, second: RepairFeedback): RepairFeedback {
	const combined: RepairFeedback = {
		...second,
		...definedFields(first),
		rules: unique([...first.rules, ...second.rules]),
		notes: [...first.notes, ...second.notes],
	};
	if (first.stages !== undefined || second.stages !== undefined) {
		combined.stages = unique([...(first.stages ?? []), ...(second.stages ?? [])]);
	}
	return combined;
}

export class RepairLifecycle {
	private readonly ttlMs: number;
	private readonly maxPending: number;
	private readonly maxAssociated: number;
	private readonly now: () => number;
	private pending: PendingEntry[] = [];
	private readonly associated = new Map<string, AssociatedEntry>();

	constructor(options: RepairLifecycleOptions = {}) {
		this.ttlMs = options.ttlMs ?? 300000;
		this.maxPending = options.maxPending ?? 128;
		this.maxAssociated = options.maxAssociated ?? 256;
		this.now = options.now ?? Date.now;
	}

	/** Number of repairs still waiting for their call ID (no cleanup first). */
	get pendingCount(): number {
		return this.pending.length;
	}

	/** Number of notes bound to a call ID and not yet taken (no cleanup first). */
	get associatedCount(): number {
		return this.associated.size;
	}

	/** Queues feedback for a repaired call whose ID is not known yet. */
	enqueue(toolName: string, args: unknown, feedback: RepairFeedback): void {
		this.cleanup();
		this.pending.push({ key: pendingKey(toolName, args), timestamp: this.now(), feedback: copyFeedback(feedback) });
		while (this.pending.length > this.maxPending) {
			this.pending.shift();
		}
	}

	/** Moves the oldest pending feedback for these arguments to `toolCallId` and returns it. */
	correlate(toolName: string, args: unknown, toolCallId: string): RepairFeedback | undefined {
		this.cleanup();
		const key = pendingKey(toolName, args);
		const index = this.pending.findIndex((entry) => entry.key === key);
		if (index === -1) {
			return undefined;
		}
		const [entry] = this.pending.splice(index, 1);
		const source = entry!.feedback;
		const feedback: RepairFeedback = {
			rules: source.rules,
			notes: source.notes,
			stages: source.stages,
			profile: source.profile,
			model: source.model,
			outcome: source.outcome,
			fingerprint: source.fingerprint,
		};
		this.store(toolCallId, feedback);
		return feedback;
	}

	/** Associates a copy of `feedback` with a call whose ID is known up front. */
	associate(toolCallId: string, feedback: RepairFeedback): void {
		this.cleanup();
		this.store(toolCallId, copyFeedback(feedback));
	}

	/**
	 * Combines `feedback` with what is already associated with `toolCallId`
	 * (`combineFeedback`, the existing entry first). With nothing associated
	 * yet this is `associate`.
	 */
	merge(toolCallId: string, feedback: RepairFeedback): void {
		this.cleanup();
		const existing = this.associated.get(toolCallId)?.feedback;
		if (existing === undefined) {
			this.store(toolCallId, copyFeedback(feedback));
			return;
		}
		const merged = combineFeedback(existing, feedback);
		this.store(toolCallId, merged);
	}

	/** The feedback associated with `toolCallId`, left in place. */
	peek(toolCallId: string): RepairFeedback | undefined {
		this.cleanup();
		return this.associated.get(toolCallId)?.feedback;
	}

	/** The feedback associated with `toolCallId`, removed. */
	take(toolCallId: string): RepairFeedback | undefined {
		this.cleanup();
		const entry = this.associated.get(toolCallId);
		this.associated.delete(toolCallId);
		return entry?.feedback;
	}

	/** Drops entries older than the TTL; an entry exactly `ttlMs` old survives. */
	cleanup(): void {
		const cutoff = this.now() - this.ttlMs;
		let stale = 0;
		while (stale < this.pending.length && this.pending[stale]!.timestamp < cutoff) {
			stale++;
		}
		if (stale > 0) {
			this.pending = this.pending.slice(stale);
		}
		for (const [id, entry] of this.associated) {
			if (entry.timestamp < cutoff) {
				this.associated.delete(id);
			}
		}
	}

	clear(): void {
		this.pending = [];
		this.associated.clear();
	}

	/** Sets the entry (an existing ID keeps its eviction position), then evicts the oldest beyond the cap. */
	private store(toolCallId: string, feedback: RepairFeedback): void {
		this.associated.set(toolCallId, { feedback, timestamp: this.now() });
		while (this.associated.size > this.maxAssociated) {
			const oldest = this.associated.keys().next().value as string;
			this.associated.delete(oldest);
		}
	}
}

/** The fields of `feedback` that are set, so a spread does not overwrite with `undefined`. */
function definedFields(feedback: RepairFeedback): Partial<RepairFeedback> {
	const fields: Partial<RepairFeedback> = {};
	for (const [key, value] of Object.entries(feedback)) {
		if (value !== undefined) {
			(fields as Record<string, unknown>)[key] = value;
		}
	}
	return fields;
}
