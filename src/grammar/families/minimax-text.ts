/**
 * Family `minimax-text`: MiniMax-Text-01's TypeScript-style calls.
 *
 * Recognises `<function_call>` (ASCII case-insensitive) followed, before the
 * next `<function_call>`, by `functions.NAME(` … `)`, usually wrapped in a
 * typescript fence:
 *
 *     <function_call>```typescript
 *     functions.read({"path": "CHANGELOG.md"})
 *     ```
 *
 * The text between the parens is a JSON object (normalized like every JSON argument body: a nested `arguments` is unwrapped), else the
 * call has `{}`. The range runs from `<function_call>` to the closing paren,
 * extended over the closing ``` when the call was opened inside a fence (the
 * original reached for the next ``` anywhere later, which could swallow prose
 * and the opening fence of an unrelated block), and over a directly following
 * `</function_call>`.
 *
 * Linear: `<function_call>` and `functions.` are found with `indexOf` on the
 * ASCII-lowered text from forward-only cursors (the next `functions.NAME(` is
 * remembered between openers); the paren match uses the context's shared,
 * budgeted `BracketMatcher`.
 */
import {
	argumentsFromJsonText,
	bracketMatcherFor,
	type CaselessText,
	caselessTextOf,
	codeOpenParenthesis,
	readIdentifier,
	skipWhitespace,
} from "../scan.ts";
import type { GrammarCandidate, ScanContext } from "../types.ts";

const OPENER = "<function_call>";
const CLOSER = "</function_call>";
const FUNCTIONS = "functions.";
const FENCE = "```";

interface FunctionsCall {
	/** Offset of `functions.`. */
	at: number;
	name: string;
	/** Offset of the `(`. */
	paren: number;
}

/** `functions.NAME` + optional whitespace + `(` starting exactly at `at`. */
function functionsCallAt(text: string, at: number): FunctionsCall | undefined {
	const ident = readIdentifier(text, at + FUNCTIONS.length);
	if (!ident) return undefined;
	const paren = skipWhitespace(text, ident.end);
	return text.charCodeAt(paren) === codeOpenParenthesis ? { at, name: ident.name, paren } : undefined;
}

/** First `functions.NAME(` at or after the query offset; queries never move backwards. */
function functionsCallFinder(text: string, lower: CaselessText): (from: number) => FunctionsCall | undefined {
	let cached: FunctionsCall | undefined;
	let exhausted = false;
	return (from) => {
		if (exhausted) return undefined;
		if (cached && cached.at >= from) return cached;
		let at = lower.indexOf(FUNCTIONS, from);
		while (at !== -1) {
			const call = functionsCallAt(text, at);
			if (call) {
				cached = call;
				return call;
			}
			at = lower.indexOf(FUNCTIONS, at + 1);
		}
		exhausted = true;
		return undefined;
	};
}

/** End of the candidate: the closing fence when the call was fenced, then an optional closer tag. */
function rangeEnd(text: string, lower: CaselessText, opener: number, call: FunctionsCall, close: number): number {
	let end = close;
	if (text.slice(opener, call.at).includes(FENCE)) {
		const fence = skipWhitespace(text, end);
		if (text.startsWith(FENCE, fence)) end = fence + FENCE.length;
	}
	const tag = skipWhitespace(text, end);
	if (lower.startsWith(CLOSER, tag)) end = tag + CLOSER.length;
	return end;
}

/** Every MiniMax-Text-01 call in the scanned text. */
export function parseMinimaxText(context: ScanContext): GrammarCandidate[] {
	const text = context.text;
	const lower = caselessTextOf(context);
	const matcher = bracketMatcherFor(context);
	const nextCall = functionsCallFinder(text, lower);
	const out: GrammarCandidate[] = [];
	let opener = lower.indexOf(OPENER);
	while (opener !== -1) {
		const bodyStart = opener + OPENER.length;
		const following = lower.indexOf(OPENER, bodyStart);
		const call = nextCall(bodyStart);
		// No `functions.NAME(` after this opener means none after any later opener either.
		if (!call) break;
		if (following !== -1 && call.at > following) {
			opener = following;
			continue;
		}
		const close = matcher.closeOf("(", call.paren);
		if (close === -1 || context.isInsideFence(opener)) {
			opener = following;
			continue;
		}
		const end = rangeEnd(text, lower, opener, call, close);
		out.push({
			name: call.name,
			arguments: argumentsFromJsonText(text.slice(call.paren + 1, close - 1)),
			grammar: "minimax-text",
			start: opener,
			end,
		});
		opener = lower.indexOf(OPENER, end);
	}
	return out;
}
