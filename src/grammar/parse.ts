/**
 * `parseToolGrammarLeaks` and the shared detection step the driver builds on:
 * run the enabled family steps over one text, drop empty and quoted
 * candidates, then keep one candidate per overlapping range.
 *
 * A family step that throws (a bug) is not caught here: the public entry
 * points contain it once and report it to their caller.
 */
import { FAMILY_STEPS } from "./families/index.ts";
import { createScanContext } from "./fences.ts";
import { mayHoldMarkup } from "./scan.ts";
import { selectCandidates } from "./select.ts";
import type { ContainedErrorReporter, GrammarCandidate, GrammarName, RecoveredToolCall, ScanContext } from "./types.ts";
import { GRAMMAR_NAMES } from "./types.ts";

/** Every raw candidate of the enabled steps, in collection order. */
export function collectCandidates(context: ScanContext): GrammarCandidate[] {
	const found: GrammarCandidate[] = [];
	for (const step of FAMILY_STEPS) {
		if (!step.grammars.some((g) => context.enabled.has(g))) continue;
		for (const candidate of step.parse(context)) {
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
	if (typeof text !== "string" || !mayHoldMarkup(text)) return [];
	const context = createScanContext(text, enabledSet(grammars));
	return selectCandidates(collectCandidates(context), text);
}

/**
 * The calls written as text in `text`: no gates, no stripping; strip-only
 * markers are left out. Never throws: an internal error is told to
 * `onContainedError` and the answer is no calls.
 */
export function parseToolGrammarLeaks(
	text: string,
	grammars?: Iterable<GrammarName>,
	onContainedError?: ContainedErrorReporter,
): RecoveredToolCall[] {
	try {
		return detectGrammarLeaks(text, grammars)
			.filter((candidate) => !candidate.stripOnly)
			.map((candidate) => ({ name: candidate.name, arguments: candidate.arguments, grammar: candidate.grammar }));
	} catch (error) {
		onContainedError?.("grammar:parse", error);
		return [];
	}
}
