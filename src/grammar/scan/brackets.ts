/**
 * Bracket matching with a work budget, for every family that asks for "the
 * balanced JSON at this `{`" or "the `)` of this call".
 *
 * Quote rule: outside a quoted run, `"` or `'` opens a run closed by the same
 * character; inside a run, a backslash escapes the next character. Only the
 * requested bracket kind is counted. A `'` right after a letter or digit is an
 * apostrophe (`it's`), not a quote, so prose around a call cannot make its
 * brackets look quoted.
 *
 * Linear: a per-text matcher (`bracketMatcherFor`) remembers every match it
 * learns during a walk and spends at most a fixed multiple of the text length
 * in total, so asking at each `{` stays linear even on adversarial input (a
 * megabyte of `{"name"` without a closer). Past the cap, unknown brackets
 * answer "unbalanced": a call there is missed (its text stays as it is)
 * rather than the scan going quadratic. Real model output does not come near
 * the cap.
 */
import {
	codeBackslash,
	codeCloseParenthesis,
	codeClosingBrace,
	codeClosingBracket,
	codeDoubleQuote,
	codeOpeningBrace,
	codeOpeningBracket,
	codeOpenParenthesis,
	codeSingleQuote,
	isApostrophe,
} from "./chars.ts";
import { indexOfBefore, OffsetList, perContext } from "./cursor.ts";

export type BracketKind = "{" | "[" | "(";

const OPENER: Record<BracketKind, number> = {
	"{": codeOpeningBrace,
	"[": codeOpeningBracket,
	"(": codeOpenParenthesis,
};

/** A balanced span: `text.slice(start, end)` starts with the opener and ends with its closer. */
export interface BalancedSpan {
	start: number;
	end: number;
	text: string;
}

/** Total walking allowed per text: this many steps per character, plus a floor for short texts. */
const WORK_PER_CHAR = 12;
const WORK_FLOOR = 1 << 16;
/**
 * Remembered matches stay in a `Map` while they are fewer than one per this
 * many characters; past that (only adversarial text has so many brackets) a
 * typed array the size of the text holds them in less memory.
 */
const CHARS_PER_SPARSE_ENTRY = 8;

/**
 * Finds matching closers in one text. Every walk records the matches of all
 * three bracket kinds it sees outside quotes (a walk that starts outside a
 * quote at an opener follows the same path from there on, so those matches are
 * facts about the text). A spent work budget makes further unknown queries
 * answer "unbalanced": a safety bound, never reached by real model output.
 */
export class BracketMatcher {
	readonly text: string;
	/**
	 * What walks learned, per opener offset (an offset holds at most one
	 * opener): absent/0 unknown, -1 never closed, else the offset just after
	 * its closer. A `Map` first; a dense table once it grows, so ordinary
	 * text never pays for a table the size of the text.
	 */
	private sparse: Map<number, number> | undefined = new Map();
	private dense: Int32Array | undefined;
	private budget: number;
	private readonly braces = new OffsetList(64);
	private readonly brackets = new OffsetList(64);
	private readonly parens = new OffsetList(64);

	constructor(text: string) {
		this.text = text;
		this.budget = text.length * WORK_PER_CHAR + WORK_FLOOR;
	}

	/**
	 * Index just after the closer matching the opener at `open`, or -1 when it
	 * is not closed before `limit`. `text[open]` must be the opener of `kind`.
	 */
	closeOf(kind: BracketKind, open: number, limit = this.text.length): number {
		if (this.text.charCodeAt(open) !== OPENER[kind]) return -1;
		const memo = this.recall(open);
		if (memo !== 0) return memo === -1 || memo > limit ? -1 : memo;
		return this.walk(OPENER[kind], open, Math.min(limit, this.text.length));
	}

	private recall(offset: number): number {
		return this.dense ? (this.dense[offset] ?? 0) : (this.sparse?.get(offset) ?? 0);
	}

	private remember(offset: number, value: number): void {
		if (this.dense) {
			this.dense[offset] = value;
			return;
		}
		this.sparse ??= new Map();
		const sparse = this.sparse;
		sparse.set(offset, value);
		if (sparse.size * CHARS_PER_SPARSE_ENTRY > this.text.length) {
			const dense = new Int32Array(this.text.length);
			for (const [at, known] of sparse) dense[at] = known;
			this.dense = dense;
			this.sparse = undefined;
		}
	}

	private walk(opener: number, open: number, end: number): number {
		const text = this.text;
		// One set of stacks per matcher, emptied per walk (walks never nest): small
		// texts walk often, and allocating three typed arrays each time showed.
		const { braces, brackets, parens } = this;
		braces.length = 0;
		brackets.length = 0;
		parens.length = 0;
		const primary = opener === codeOpeningBrace ? braces : opener === codeOpeningBracket ? brackets : parens;
		let quote = 0;
		// The walk may not spend more than what is left of the text's budget.
		const stop = Math.min(end, open + Math.max(0, this.budget));
		let i = open;
		for (; i < stop; i++) {
			const c = text.charCodeAt(i);
			if (quote !== 0) {
				if (c === codeBackslash) i++;
				else if (c === quote) quote = 0;
				continue;
			}
			switch (c) {
				case codeDoubleQuote:
					quote = c;
					continue;
				case codeSingleQuote:
					if (!isApostrophe(text, i)) quote = c;
					continue;
				case codeOpeningBrace:
					braces.push(i);
					continue;
				case codeOpeningBracket:
					brackets.push(i);
					continue;
				case codeOpenParenthesis:
					parens.push(i);
					continue;
				case codeClosingBrace: {
					const from = braces.pop();
					if (from !== -1) this.remember(from, i + 1);
					break;
				}
				case codeClosingBracket: {
					const from = brackets.pop();
					if (from !== -1) this.remember(from, i + 1);
					break;
				}
				case codeCloseParenthesis: {
					const from = parens.pop();
					if (from !== -1) this.remember(from, i + 1);
					break;
				}
				default:
					continue;
			}
			if (primary.length === 0) {
				this.budget -= i + 1 - open;
				return i + 1;
			}
		}
		this.budget -= stop - open;
		if (stop === text.length) {
			// Reached the end of the text: openers still open there never close.
			for (const stack of [braces, brackets, parens]) {
				for (let k = 0; k < stack.length; k++) this.remember(stack.items[k] ?? 0, -1);
			}
		}
		return -1;
	}
}

/** The context's shared bracket matcher (one per scanned text). */
export const bracketMatcherFor = perContext((context) => new BracketMatcher(context.text));

/** Index of the first `{` or `[` at or after `from` and before `limit`, or -1. */
function firstJsonOpener(text: string, from: number, limit = text.length): number {
	const brace = indexOfBefore(text, "{", from, limit);
	const bracket = indexOfBefore(text, "[", from, limit);
	if (brace === -1) return bracket;
	if (bracket === -1) return brace;
	return Math.min(brace, bracket);
}

/**
 * The first balanced JSON-looking span in `text` at or after `from`:
 * the first `{` or `[` and its quote-aware matching closer before `limit`.
 * Undefined when that first opener is not closed. Pass a `matcher` (from
 * `bracketMatcherFor`) when calling repeatedly over the same text.
 */
export function extractFirstBalancedJson(
	text: string,
	from = 0,
	limit = text.length,
	matcher?: BracketMatcher,
): BalancedSpan | undefined {
	const start = firstJsonOpener(text, from, limit);
	if (start === -1) return undefined;
	const kind: BracketKind = text.charCodeAt(start) === codeOpeningBrace ? "{" : "[";
	const end = (matcher && matcher.text === text ? matcher : new BracketMatcher(text)).closeOf(kind, start, limit);
	if (end === -1) return undefined;
	return { start, end, text: text.slice(start, end) };
}

/**
 * Index just after the `)` matching the `(` at `open` (quote-aware), or -1
 * when it is not closed before `limit`.
 */
export function findMatchingParen(text: string, open: number, limit = text.length, matcher?: BracketMatcher): number {
	return (matcher && matcher.text === text ? matcher : new BracketMatcher(text)).closeOf("(", open, limit);
}
