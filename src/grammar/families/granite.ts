/**
 * `granite`: IBM Granite's bare pythonic call lines.
 *
 *   Let me look.
 *   grep(pattern="FIXME", path="src")
 *
 * Any line whose first non-blank content is `Identifier(` with a quote-aware
 * matching `)` (possibly on a later line) is one call; the range runs from the
 * line start (leading whitespace included) to the closing paren, and scanning
 * resumes on the line after it. Granite's JSON body inside `<tool_call>` is
 * read by `tool-call-wrapper.ts`.
 *
 * Linear: one pass over line starts; paren matching goes through the text's
 * shared, memoizing bracket matcher.
 */
import { bracketMatcherFor, callFields, pythonicCallAtLine } from "../scan.ts";
import type { GrammarCandidate, ScanContext } from "../types.ts";

/** Bare pythonic call lines outside fences. */
export function parseGranite(context: ScanContext): GrammarCandidate[] {
	const { text } = context;
	if (!text.includes("(")) return [];
	const matcher = bracketMatcherFor(context);
	const found: GrammarCandidate[] = [];
	let lineStart = 0;
	while (lineStart < text.length) {
		const call = context.isInsideFence(lineStart)
			? undefined
			: pythonicCallAtLine(text, lineStart, text.length, matcher);
		let next: number;
		if (call) {
			found.push({ ...callFields(call), grammar: "granite", start: lineStart, end: call.end });
			next = text.indexOf("\n", call.end);
		} else {
			next = text.indexOf("\n", lineStart);
		}
		if (next === -1) break;
		lineStart = next + 1;
	}
	return found;
}
