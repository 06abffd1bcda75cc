/**
 * Family `olmo`: AllenAI OLMo 3's `<function_calls>` block of pythonic calls.
 *
 * Recognises `<function_calls>` … the next `</function_calls>` (ASCII
 * case-insensitive). Every line-leading pythonic call in the body is a call
 * (keyword arguments only; `True`/`False`/`None` and JSON literals both
 * read as values); all calls of a block share the block's range. A block without
 * a closer, or without a call (an Anthropic-style `<invoke>` body, say),
 * yields nothing.
 *
 * Linear: the tags and line breaks are found with `indexOf` from forward-only
 * cursors; parens are matched by the context's shared, budgeted
 * `BracketMatcher`, asked without a limit so that it remembers unclosed parens.
 */
import {
	type BracketMatcher,
	bracketMatcherFor,
	callFields,
	caselessTextOf,
	forwardFinder,
	type JsonCall,
	pythonicCallAtLine,
} from "../scan.ts";
import type { GrammarCandidate, ScanContext } from "../types.ts";

const OPENER = "<function_calls>";
const CLOSER = "</function_calls>";

/**
 * The line-leading pythonic calls of the body `[from, limit)`. Parens are
 * matched without a limit and a match past the body is then refused: the
 * same answer as a limited match, but an unclosed paren is learnt once by the
 * shared matcher instead of being walked again from every later line.
 */
function callsInBody(
	text: string,
	from: number,
	limit: number,
	matcher: BracketMatcher,
	nextNewline: (from: number) => number,
): JsonCall[] {
	const calls: JsonCall[] = [];
	let lineStart = from;
	while (lineStart < limit) {
		const call = pythonicCallAtLine(text, lineStart, text.length, matcher);
		const fits = call !== undefined && call.end <= limit;
		if (fits) calls.push(callFields(call));
		const next = nextNewline(fits ? call.end : lineStart);
		if (next === -1 || next >= limit) break;
		lineStart = next + 1;
	}
	return calls;
}

/** Every Olmo call in the scanned text. */
export function parseOlmo(context: ScanContext): GrammarCandidate[] {
	const text = context.text;
	const lower = caselessTextOf(context);
	const matcher = bracketMatcherFor(context);
	const out: GrammarCandidate[] = [];
	const nextNewline = forwardFinder(text, "\n");
	let open = lower.indexOf(OPENER);
	while (open !== -1) {
		const bodyStart = open + OPENER.length;
		const close = lower.indexOf(CLOSER, bodyStart);
		// No closer after this opener means none after any later opener either.
		if (close === -1) break;
		const end = close + CLOSER.length;
		if (!context.isInsideFence(open)) {
			for (const call of callsInBody(text, bodyStart, close, matcher, nextNewline)) {
				out.push({ ...callFields(call), grammar: "olmo", start: open, end });
			}
		}
		open = lower.indexOf(OPENER, end);
	}
	return out;
}
