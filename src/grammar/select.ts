/**
 * Candidate selection (extension-contract §2.6, with decisions §4.4).
 *
 * Sort by start, longer first on equal starts (stable, so exact ties keep the
 * collection order); keep a candidate unless it overlaps a kept one with a
 * different range. Candidates sharing one range all survive: several calls
 * in one wrapper. Then, per shared range, only the first family's candidates
 * stay: when two families read the same text (bare JSON is both `mistral`
 * and `llama`), it is one call, promoted once, not one per family.
 *
 * O(k log k) in the number of candidates: kept candidates never overlap each
 * other unless identical, so one "furthest kept end" answers every overlap
 * question.
 */
import type { GrammarCandidate } from "./types.ts";

function byStartThenLongest(a: GrammarCandidate, b: GrammarCandidate): number {
	return a.start - b.start || b.end - b.start - (a.end - a.start);
}

/** The §2.6 walk: non-overlapping ranges, identical ranges kept together. */
export function selectNonOverlapping(candidates: readonly GrammarCandidate[]): GrammarCandidate[] {
	const sorted = candidates.filter((c) => c.end > c.start).sort(byStartThenLongest);
	const kept: GrammarCandidate[] = [];
	let last: GrammarCandidate | undefined;
	for (const candidate of sorted) {
		if (last && candidate.start < last.end) {
			if (candidate.start === last.start && candidate.end === last.end) kept.push(candidate);
			continue;
		}
		kept.push(candidate);
		last = candidate;
	}
	return kept;
}

/** Keeps, for each exact range, only the candidates of the first family that claimed it. */
export function oneFamilyPerRange(candidates: readonly GrammarCandidate[]): GrammarCandidate[] {
	const out: GrammarCandidate[] = [];
	let groupStart = -1;
	let groupEnd = -1;
	let groupGrammar = "";
	for (const candidate of candidates) {
		if (candidate.start !== groupStart || candidate.end !== groupEnd) {
			groupStart = candidate.start;
			groupEnd = candidate.end;
			groupGrammar = candidate.grammar;
		}
		if (candidate.grammar === groupGrammar) out.push(candidate);
	}
	return out;
}

/** Full selection: overlap resolution, then one family per range. */
export function selectCandidates(candidates: readonly GrammarCandidate[]): GrammarCandidate[] {
	return oneFamilyPerRange(selectNonOverlapping(candidates));
}
