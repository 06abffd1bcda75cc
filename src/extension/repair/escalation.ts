/**
 * Repeat-failure escalation: when one tool fails with the
 * same failure fingerprint for the third time in a session, the retry message
 * also spells out the tool's expected argument shape, built from its schema.
 * A model that keeps making the same mistake is usually missing the shape, not
 * the error text.
 *
 * Counts are per session (cleared on session start and shutdown) and bounded;
 * they hold tool names and fingerprints only.
 */
import { describeExpectedShape } from "../../core/issues.ts";
import type { TSchema } from "../../core/types.ts";
import { setNewest } from "../host/bounded-map.ts";

/** The failure count at which the shape is added (and every count after it). */
export const ESCALATION_THRESHOLD = 3;
/** Distinct (tool, fingerprint) pairs remembered per session. */
const MAX_TRACKED_FAILURES = 256;

export class RepeatFailureTracker {
	private readonly counts = new Map<string, number>();

	/** Records one failure and returns how many times this (tool, fingerprint) pair has failed. */
	record(toolName: string, fingerprint: string | undefined): number {
		if (fingerprint === undefined) return 1;
		const key = `${toolName}\u0000${fingerprint}`;
		const count = (this.counts.get(key) ?? 0) + 1;
		setNewest(this.counts, key, count, MAX_TRACKED_FAILURES);
		return count;
	}

	clear(): void {
		this.counts.clear();
	}
}

/** Adds the expected shape to a retry message once the failure count reaches the threshold. */
export function escalateRetryMessage(message: string, toolName: string, schema: TSchema, failureCount: number): string {
	if (failureCount < ESCALATION_THRESHOLD) return message;
	const shape = describeExpectedShape(schema);
	return `${message}\n\nThis is attempt ${failureCount} with the same problem. The ${toolName} tool expects these arguments:\n${shape}`;
}
