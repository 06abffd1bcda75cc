/**
 * `parseToolGrammarLeaks` and the shared detection step the driver builds on:
 * run the enabled family steps over one text, drop empty and fenced
 * candidates, select (§2.6 + decisions §4.4).
 *
 * A step that throws (it never should) is treated as having found nothing,
 * so one family's bug cannot break another's detection.
 */
import { FAMILY_STEPS } from "./families/index.ts";
import { createScanContext } from "./fences.ts";
import { selectCandidates } from "./select.ts";
import type { GrammarCandidate, GrammarName, RecoveredToolCall, ScanContext } from "./types.ts";
import { GRAMMAR_NAMES } from "./types.ts";

/** Every raw candidate of the enabled steps, in collection order. */
export function collectCandidates(context: ScanContext): GrammarCandidate[] {
	const found: GrammarCandidate[] = [];
	for (const step of FAMILY_STEPS) {
		if (!step.grammars.some((g) => context.enabled.has(g))) continue;
		let candidates: GrammarCandidate[];
		try {
			candidates = step.parse(context);
		} catch {
			continue;
		}
		for (const candidate of candidates) {
			if (!context.enabled.has(candidate.grammar)) continue;
			if (!(candidate.end > candidate.start) || context.isInsideFence(candidate.start)) continue;
			found.push(candidate);
		}
	}
	return found;
}

function enabledSet(grammars: Iterable<GrammarName> | undefined): Set<GrammarName> {
	const known = new Set<string>(GRAMMAR_NAMES);
	const enabled = new Set<GrammarName>();
	for (const g of grammars ?? GRAMMAR_NAMES) if (known.has(g)) enabled.add(g);
	return enabled;
}

/** Selected candidates (strip-only ones included) of one text. */
export function detectGrammarLeaks(text: string, grammars?: Iterable<GrammarName>): GrammarCandidate[] {
	if (typeof text !== "string" || text === "") return [];
	const context = createScanContext(text, enabledSet(grammars));
	return selectCandidates(collectCandidates(context), text);
}

/** The calls written as text in `text`: no gates, no stripping; strip-only markers are left out. */
export function parseToolGrammarLeaks(text: string, grammars?: Iterable<GrammarName>): RecoveredToolCall[] {
	try {
		return detectGrammarLeaks(text, grammars)
			.filter((candidate) => !candidate.stripOnly)
			.map((candidate) => ({ name: candidate.name, arguments: candidate.arguments, grammar: candidate.grammar }));
	} catch {
		return [];
	}
}
