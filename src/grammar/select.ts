/**
 * Candidate selection.
 *
 * Sort by start, longer first on equal starts (stable, so exact ties keep the
 * collection order); keep a candidate unless it overlaps a kept one with a
 * different range. Candidates sharing one range all survive: several calls
 * in one wrapper. Then, per shared range, only the first family's candidates
 * stay: when two families read the same text (bare JSON is both `mistral`
 * and `llama`), it is one call, promoted once, not one per family. Last, a
 * call written without any sentinel (bare JSON) that stands inside a sentence
 * is prose and goes; it still shadows what it overlaps, so a call quoted in a
 * JSON string of that prose does not surface either.
 *
 * O(k log k) in the number of candidates: kept candidates never overlap each
 * other unless identical, so one "furthest kept end" answers every overlap
 * question.
 */

import { standsInSentence } from "./provenance.ts";
import { codeSpace, codeTab } from "./scan.ts";
import type { GrammarCandidate } from "./types.ts";

function byStartThenLongest(a: GrammarCandidate, b: GrammarCandidate): number {
	return a.start - b.start || b.end - b.start - (a.end - a.start);
}

/** The overlap walk: non-overlapping ranges, identical ranges kept together. */
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

/**
 * How leak markup opens: a tag or special token (`<tool_call>`, `<｜DSML｜…`,
 * `<|start|>`) or Mistral's `[TOOL_CALLS]`. A candidate opening otherwise (bare
 * JSON, a `name(arg=…)` line, `invoke` lines whose brackets were eaten) could
 * be ordinary prose, so it is never deleted unless it became a call.
 */
const SENTINEL_OPENINGS = ["<", "[TOOL_CALLS]"] as const;

/** True when the candidate's text opens with a leak sentinel (after inline spaces). */
export function isSentinelFramed(text: string, candidate: GrammarCandidate): boolean {
	let at = candidate.start;
	while (at < candidate.end && (text.charCodeAt(at) === codeSpace || text.charCodeAt(at) === codeTab)) at++;
	return SENTINEL_OPENINGS.some((opening) => text.startsWith(opening, at));
}

/** Drops unframed candidates that stand inside a sentence: that is prose mentioning JSON, not a call. */
export function dropProse(text: string, candidates: readonly GrammarCandidate[]): GrammarCandidate[] {
	return candidates.filter((candidate) => isSentinelFramed(text, candidate) || !standsInSentence(text, candidate));
}

/** Full selection: overlap resolution, one family per range, then (given the text) no prose. */
export function selectCandidates(candidates: readonly GrammarCandidate[], text?: string): GrammarCandidate[] {
	const selected = oneFamilyPerRange(selectNonOverlapping(candidates));
	return text === undefined ? selected : dropProse(text, selected);
}
