/**
 * Family `olmo`: AllenAI OLMo 3's `<function_calls>` block of pythonic calls
 * (extension-contract §2.10).
 *
 * Recognises `<function_calls>` … the next `</function_calls>` (ASCII
 * case-insensitive). Every line-leading pythonic call in the body is a call
 * (§2.5: keyword arguments only; `True`/`False`/`None` and JSON literals
 * both work); all calls of a block share the block's range. A block without
 * a closer, or without a call (an Anthropic-style `<invoke>` body, say),
 * yields nothing.
 *
 * Linear: the tags are found with `indexOf` on the ASCII-lowered text from a
 * forward-only cursor; the body is walked once by `parsePythonicCalls` with the
 * context's shared, budgeted `BracketMatcher`.
 */
import { bracketMatcherFor, lowerTextOf, parsePythonicCalls } from "../scan.ts";
import type { FamilyParser, GrammarCandidate, ScanContext } from "../types.ts";

const OPENER = "<function_calls>";
const CLOSER = "</function_calls>";

function parseBlocks(context: ScanContext): GrammarCandidate[] {
	const text = context.text;
	const lower = lowerTextOf(context);
	const matcher = bracketMatcherFor(context);
	const out: GrammarCandidate[] = [];
	let open = lower.indexOf(OPENER);
	while (open !== -1) {
		const bodyStart = open + OPENER.length;
		const close = lower.indexOf(CLOSER, bodyStart);
		// No closer after this opener means none after any later opener either.
		if (close === -1) break;
		const end = close + CLOSER.length;
		if (!context.isInsideFence(open)) {
			for (const call of parsePythonicCalls(text, bodyStart, close, matcher)) {
				out.push({ name: call.name, arguments: call.arguments, grammar: "olmo", start: open, end });
			}
		}
		open = lower.indexOf(OPENER, end);
	}
	return out;
}

export const parseOlmo: FamilyParser = (context) => {
	try {
		return parseBlocks(context);
	} catch {
		return [];
	}
};
