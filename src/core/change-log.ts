/**
 * The change record of one result, kept small whatever the input size.
 *
 * A rule that fires at many locations (an alias in each of 100 edits) makes
 * identical changes; they are reported once, with a count. Where distinct
 * changes still outnumber the bound (one per key of a large record, say), the
 * changes of each rule are reported once, with the first note and a count.
 * Every rule ID and stage that fired stays on the record.
 */
import type { RepairChange } from "./types.ts";

/** More distinct changes than this are folded per rule. */
export const MAX_REPORTED_CHANGES = 16;
/** A note quoting a huge value is cut here. */
export const MAX_NOTE_LENGTH = 1000;

interface Group {
	change: RepairChange;
	count: number;
}

function groupBy(changes: readonly RepairChange[], keyOf: (change: RepairChange) => string): Group[] {
	const groups = new Map<string, Group>();
	for (const change of changes) {
		const key = keyOf(change);
		const group = groups.get(key);
		if (group === undefined) groups.set(key, { change, count: 1 });
		else group.count++;
	}
	return [...groups.values()];
}

function counted(group: Group, similar: boolean): RepairChange {
	if (group.count === 1) return shortened(group.change);
	const tally = similar
		? ` (This and ${group.count - 1} similar changes were made in this call.)`
		: ` (Made ${group.count} times in this call.)`;
	return { ...group.change, note: `${shortened(group.change).note}${tally}` };
}

function shortened(change: RepairChange): RepairChange {
	return change.note.length <= MAX_NOTE_LENGTH
		? change
		: { ...change, note: `${change.note.slice(0, MAX_NOTE_LENGTH)}…` };
}

/** `changes` with identical entries merged and counted; the input itself when nothing repeats. */
export function condenseChanges(changes: readonly RepairChange[]): readonly RepairChange[] {
	const identical = groupBy(changes, (change) => `${change.ruleId}\u0000${change.stage}\u0000${change.note}`);
	if (identical.length <= MAX_REPORTED_CHANGES) {
		const condensed = identical.map((group) => counted(group, false));
		return condensed.every((change, index) => change === changes[index]) ? changes : condensed;
	}
	return groupBy(changes, (change) => `${change.ruleId}\u0000${change.stage}`).map((group) => counted(group, true));
}
