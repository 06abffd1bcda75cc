/**
 * The quoted-region index of one scanned text: which offsets lie in text the
 * assistant quotes rather than says, read the CommonMark way, so a call shown
 * as an example (or copied from a file) is never taken for a leak.
 *
 * Quoted are
 * - fenced code: a line opening with 3+ backticks or tildes (after its
 *   indentation and any list markers), closed only by a line of the same
 *   character, at least as long, indented at most three spaces, with nothing
 *   after it; an unclosed fence runs to the end of the text. A fence mark in
 *   the middle of a line opens nothing, and a backtick fence whose info string
 *   holds a backtick is not one;
 * - indented code: lines indented four or more columns that do not continue
 *   a paragraph;
 * - blockquotes: `>` lines and the lazy lines that continue them up to a blank
 *   line;
 * - `<pre>` … `</pre>` (any case): a line-leading one to the end of the line
 *   holding the closer, as an HTML block; one inside a line up to its closer;
 *   unclosed, to the end of the text;
 * - inline code spans of any backtick-run length, paired within one paragraph
 *   as CommonMark pairs them (a run closes only at the next run of the same
 *   length; a backslash-escaped backtick opens nothing);
 * - HTML `<code>` … `</code>` (any case) and comments `<!--` … `-->` outside
 *   the regions above, up to their closer or, unclosed, to the end of the text.
 *
 * Where the reading is uncertain it errs towards "quoted", which never runs or
 * deletes anything: a closer indented less than its fence (a list item ended)
 * also opens a new fence, and a fence indented four or more columns inside a
 * list closes only that way.
 *
 * One forward pass over the lines with `indexOf`, no regular expression; each
 * paragraph's backtick runs are paired in one backward and one forward walk,
 * and the literals (`` ` ``, `<pre`, `</pre`) are found by remembered forward
 * searches, so no stretch is searched twice. Each query is a binary search.
 */
import {
	CaselessText,
	caselessTextOf,
	codeAsterisk,
	codeBackslash,
	codeBacktick,
	codeCloseParenthesis,
	codeDot,
	codeGreaterThan,
	codeLessThan,
	codeMinus,
	codePlus,
	codeReturn,
	codeSpace,
	codeTab,
	codeTilde,
	firstIndexAtOrAfter,
	forwardFinder,
	isDigit,
	OffsetList,
} from "./scan.ts";
import type { GrammarName, ScanContext } from "./types.ts";
import { GRAMMAR_NAMES } from "./types.ts";

/** Sorted, disjoint quoted regions `[starts[i], ends[i])`. */
export interface QuotedRegions {
	starts: Int32Array;
	ends: Int32Array;
}

/** Length of the run of `code` starting at `at` (stops at `limit`). */
function runLength(text: string, at: number, code: number, limit: number): number {
	let end = at;
	while (end < limit && text.charCodeAt(end) === code) end++;
	return end - at;
}

/** True when `text[from, to)` holds only spaces, tabs or a carriage return. */
function isBlank(text: string, from: number, to: number): boolean {
	for (let i = from; i < to; i++) {
		const c = text.charCodeAt(i);
		if (c !== codeSpace && c !== codeTab && c !== codeReturn) return false;
	}
	return true;
}

/** End of a list marker (`-`, `*`, `+`, `1.`, `1)` and the spaces after it) at `at`, or -1. */
function listMarkerEnd(text: string, at: number, limit: number): number {
	const c = text.charCodeAt(at);
	let after = -1;
	if (c === codeMinus || c === codeAsterisk || c === codePlus) after = at + 1;
	else {
		let digits = at;
		while (digits < limit && digits - at < 9 && isDigit(text.charCodeAt(digits))) digits++;
		const close = text.charCodeAt(digits);
		if (digits > at && (close === codeDot || close === codeCloseParenthesis)) after = digits + 1;
	}
	if (after === -1) return -1;
	if (after === limit) return after;
	const next = text.charCodeAt(after);
	if (next !== codeSpace && next !== codeTab) return -1;
	let end = after;
	while (end < limit && (text.charCodeAt(end) === codeSpace || text.charCodeAt(end) === codeTab)) end++;
	return end;
}

/** The fence opened at `at` (run of 3+ backticks or tildes; a backtick info string holds no backtick). */
function fenceAt(text: string, at: number, limit: number): { char: number; length: number } | undefined {
	const char = text.charCodeAt(at);
	if (char !== codeBacktick && char !== codeTilde) return undefined;
	const length = runLength(text, at, char, limit);
	if (length < 3) return undefined;
	if (char === codeBacktick)
		for (let i = at + length; i < limit; i++) if (text.charCodeAt(i) === codeBacktick) return undefined;
	return { char, length };
}

/** True when `<pre` opens a tag at `at` (followed by `>`, whitespace or the end of the line). */
function preTagAt(lower: CaselessText, at: number, limit: number): boolean {
	if (!lower.startsWith("<pre", at)) return false;
	const next = at + 4;
	if (next >= limit) return true;
	const c = lower.charCodeAt(next);
	return c === codeGreaterThan || c === codeSpace || c === codeTab || c === codeReturn;
}

/**
 * Collects regions, merging overlaps as they come. They come almost always in
 * ascending order (a paragraph's spans before the next block); the rare one
 * that does not makes `finish` sort and merge once.
 */
class RegionList {
	private starts = new OffsetList();
	private ends = new OffsetList();
	private sorted = true;

	add(start: number, end: number): void {
		if (end <= start) return;
		const last = this.starts.length - 1;
		if (last >= 0 && start < (this.starts.items[last] ?? 0)) this.sorted = false;
		else if (last >= 0 && this.sorted && start <= (this.ends.items[last] ?? 0)) {
			if (end > (this.ends.items[last] ?? 0)) this.ends.items[last] = end;
			return;
		}
		this.starts.push(start);
		this.ends.push(end);
	}

	finish(): QuotedRegions {
		if (!this.sorted) {
			const s = this.starts.view();
			const e = this.ends.view();
			const order = Array.from({ length: s.length }, (_, i) => i).sort((a, b) => (s[a] ?? 0) - (s[b] ?? 0));
			this.starts = new OffsetList();
			this.ends = new OffsetList();
			this.sorted = true;
			for (const i of order) this.add(s[i] ?? 0, e[i] ?? 0);
		}
		return { starts: this.starts.view(), ends: this.ends.view() };
	}
}

/** Remembered forward searches over the text, shared by every paragraph (they are read in text order). */
interface Finders {
	backtick(from: number): number;
	pre(from: number): number;
	preCloser(from: number): number;
}

/**
 * Inline code spans and in-line `<pre>` elements of one paragraph
 * `text[from, to)`. Runs pair as CommonMark pairs them: an opener (minus an
 * escaped first backtick) closes at the next run of exactly its length.
 */
function addInlineRegions(
	text: string,
	lower: CaselessText,
	from: number,
	to: number,
	regions: RegionList,
	finders: Finders,
): void {
	const firstTick = finders.backtick(from);
	const firstPre = finders.pre(from);
	const hasTick = firstTick !== -1 && firstTick < to;
	if (!hasTick && (firstPre === -1 || firstPre >= to)) return;
	const runStart: number[] = [];
	const runLengths: number[] = [];
	for (let at = hasTick ? firstTick : -1; at !== -1 && at < to; ) {
		const length = runLength(text, at, codeBacktick, to);
		runStart.push(at);
		runLengths.push(length);
		at = finders.backtick(at + length);
	}
	const count = runStart.length;
	// Backward walk: the next run of the same length, and of one less (for an escaped opener).
	const nextSame = new Int32Array(count).fill(-1);
	const nextShorter = new Int32Array(count).fill(-1);
	const latest = new Map<number, number>();
	for (let i = count - 1; i >= 0; i--) {
		const length = runLengths[i] ?? 0;
		nextSame[i] = latest.get(length) ?? -1;
		nextShorter[i] = latest.get(length - 1) ?? -1;
		latest.set(length, i);
	}
	const spans: number[] = [];
	for (let i = 0; i < count; ) {
		const start = runStart[i] ?? 0;
		let escapes = 0;
		while (start - escapes - 1 >= from && text.charCodeAt(start - escapes - 1) === codeBackslash) escapes++;
		const escaped = escapes % 2 === 1;
		const close = (escaped ? nextShorter[i] : nextSame[i]) ?? -1;
		if (close === -1) {
			i++;
			continue;
		}
		const end = (runStart[close] ?? 0) + (runLengths[close] ?? 0);
		spans.push(escaped ? start + 1 : start, end);
		regions.add(escaped ? start + 1 : start, end);
		i = close + 1;
	}
	// An in-line <pre> outside every span quotes up to its closer, or to the end of the text.
	let span = 0;
	for (let at = firstPre; at !== -1 && at < to; at = finders.pre(at + 4)) {
		while (span < spans.length && (spans[span + 1] ?? 0) <= at) span += 2;
		if ((spans[span] ?? to) <= at || !preTagAt(lower, at, to)) continue;
		const closer = finders.preCloser(at + 4);
		const end = closer === -1 ? text.length : closer + "</pre>".length;
		regions.add(at, end);
		if (end >= to) return;
		at = end - 4;
	}
}

/** The quoted regions of `text` (see the file header); `lower` may share a caseless view already built. */
export function quotedRegions(text: string, lower = new CaselessText(text)): QuotedRegions {
	const regions = new RegionList();
	const length = text.length;
	if (length === 0) return regions.finish();
	const preCloser = forwardFinder(lower, "</pre");
	const finders: Finders = { backtick: forwardFinder(text, "`"), pre: forwardFinder(lower, "<pre"), preCloser };

	// Block state.
	let mode: "none" | "fence" | "indented" | "quote" = "none";
	let regionStart = 0;
	let regionEnd = 0;
	let fenceChar = 0;
	let fenceLength = 0;
	let fenceColumn = 0;
	// The open paragraph, for inline spans: [paragraphStart, paragraphEnd), -1 when none.
	let paragraphStart = -1;
	let paragraphEnd = -1;
	const closeParagraph = () => {
		if (paragraphStart !== -1) addInlineRegions(text, lower, paragraphStart, paragraphEnd, regions, finders);
		paragraphStart = -1;
	};

	let lineStart = 0;
	while (lineStart <= length) {
		const newline = text.indexOf("\n", lineStart);
		const lineEnd = newline === -1 ? length : newline;
		const next = newline === -1 ? length + 1 : newline + 1;
		if (mode === "fence") {
			// Most fenced lines are content: only one opening with spaces or the fence character can close it.
			const lead = text.charCodeAt(lineStart);
			if (lead !== fenceChar && lead !== codeSpace && lead !== codeTab) {
				lineStart = next;
				continue;
			}
		}
		let column = 0;
		let first = lineStart;
		while (first < lineEnd) {
			const c = text.charCodeAt(first);
			if (c === codeSpace) column++;
			else if (c === codeTab) column += 4 - (column % 4);
			else break;
			first++;
		}
		const blank = isBlank(text, first, lineEnd);

		if (mode === "fence") {
			if (!blank && column <= 3 && text.charCodeAt(first) === fenceChar) {
				const run = runLength(text, first, fenceChar, lineEnd);
				if (run >= fenceLength && isBlank(text, first + run, lineEnd)) {
					if (column >= fenceColumn) {
						regions.add(regionStart, lineEnd);
						mode = "none";
					} else {
						// Less indented than its fence: the list item ended, and this line opens a new fence.
						fenceLength = run;
						fenceColumn = column;
					}
				}
			}
			lineStart = next;
			continue;
		}
		if (mode === "indented") {
			if (blank || column >= 4) {
				if (!blank) regionEnd = lineEnd;
				lineStart = next;
				continue;
			}
			regions.add(regionStart, regionEnd);
			mode = "none";
		}
		if (mode === "quote") {
			if (blank) {
				regions.add(regionStart, regionEnd);
				mode = "none";
				lineStart = next;
				continue;
			}
			const opensFence = column <= 3 && fenceAt(text, first, lineEnd) !== undefined;
			if (!opensFence) {
				regionEnd = lineEnd;
				lineStart = next;
				continue;
			}
			regions.add(regionStart, regionEnd);
			mode = "none";
		}

		if (blank) {
			closeParagraph();
			lineStart = next;
			continue;
		}
		if (column >= 4 && paragraphStart === -1) {
			mode = "indented";
			regionStart = lineStart;
			regionEnd = lineEnd;
			lineStart = next;
			continue;
		}
		let content = first;
		let markers = false;
		for (let end = listMarkerEnd(text, content, lineEnd); end !== -1; end = listMarkerEnd(text, content, lineEnd)) {
			content = end;
			markers = true;
		}
		const c = text.charCodeAt(content);
		if (c === codeGreaterThan) {
			closeParagraph();
			mode = "quote";
			regionStart = lineStart;
			regionEnd = lineEnd;
			lineStart = next;
			continue;
		}
		const fence = fenceAt(text, content, lineEnd);
		if (fence !== undefined) {
			closeParagraph();
			mode = "fence";
			regionStart = lineStart;
			fenceChar = fence.char;
			fenceLength = fence.length;
			fenceColumn = column + (content - first);
			lineStart = next;
			continue;
		}
		if (c === codeLessThan && preTagAt(lower, content, lineEnd)) {
			closeParagraph();
			const closer = preCloser(content + 4);
			if (closer === -1) {
				regions.add(lineStart, length);
				break;
			}
			const closerLineEnd = text.indexOf("\n", closer);
			const end = closerLineEnd === -1 ? length : closerLineEnd;
			regions.add(lineStart, end);
			lineStart = end + 1;
			continue;
		}
		// A paragraph line. A list item or a heading starts a new paragraph; a heading is one line.
		const heading = c === 35;
		if (markers || heading) closeParagraph();
		if (paragraphStart === -1) paragraphStart = lineStart;
		paragraphEnd = lineEnd;
		if (heading) closeParagraph();
		lineStart = next;
	}
	closeParagraph();
	if (mode === "fence") regions.add(regionStart, length);
	else if (mode === "indented" || mode === "quote") regions.add(regionStart, regionEnd);
	return withHtmlRegions(text, lower, regions.finish());
}

/** HTML elements that quote: an opener and the closer that ends the quote. */
const HTML_QUOTES: ReadonlyArray<{ open: string; close: string; tag: boolean }> = [
	{ open: "<code", close: "</code>", tag: true },
	{ open: "<!--", close: "-->", tag: false },
];

/**
 * `base` plus the `<code>` elements and comments that open outside it. Each
 * opener is found once (forward searches); openers inside an earlier HTML
 * region are skipped by moving past it.
 */
function withHtmlRegions(text: string, lower: CaselessText, base: QuotedRegions): QuotedRegions {
	if (lower.indexOf("<code") === -1 && lower.indexOf("<!--") === -1) return base;
	const inBase = (offset: number) => {
		const at = lastStartingAtOrBefore(base.starts, offset);
		return at !== -1 && offset < (base.ends[at] ?? 0);
	};
	const found: Array<{ start: number; end: number }> = [];
	const openers = HTML_QUOTES.map((quote) => ({ quote, find: forwardFinder(lower, quote.open) }));
	let from = 0;
	while (from < text.length) {
		let best: { at: number; quote: (typeof HTML_QUOTES)[number] } | undefined;
		for (const { quote, find } of openers) {
			let at = find(from);
			while (at !== -1 && quote.tag && !tagEndsAt(lower, at + quote.open.length)) at = find(at + 1);
			if (at !== -1 && (best === undefined || at < best.at)) best = { at, quote };
		}
		if (best === undefined) break;
		if (inBase(best.at)) {
			from = best.at + 1;
			continue;
		}
		const closer = lower.indexOf(best.quote.close, best.at + best.quote.open.length);
		const end = closer === -1 ? text.length : closer + best.quote.close.length;
		found.push({ start: best.at, end });
		from = end;
	}
	if (found.length === 0) return base;
	const merged = new RegionList();
	for (let i = 0; i < base.starts.length; i++) merged.add(base.starts[i] ?? 0, base.ends[i] ?? 0);
	for (const region of found) merged.add(region.start, region.end);
	return merged.finish();
}

/** True when a tag name ends at `at`: `>`, whitespace, `/` or the end of the text. */
function tagEndsAt(lower: CaselessText, at: number): boolean {
	if (at >= lower.length) return true;
	const c = lower.charCodeAt(at);
	return c === codeGreaterThan || c === codeSpace || c === codeTab || c === codeReturn || c === 10 || c === 47;
}

/** Index of the last region starting at or before the whole-number `offset`, or -1. */
function lastStartingAtOrBefore(starts: Int32Array, offset: number): number {
	return firstIndexAtOrAfter(starts, offset + 1) - 1;
}

/** The quoted test over a precomputed index: true when `offset` lies in a quoted region. */
export function createQuotedIndex(text: string, lower?: CaselessText): (offset: number) => boolean {
	const { starts, ends } = quotedRegions(text, lower);
	if (starts.length === 0) return () => false;
	return (offset) => {
		const at = lastStartingAtOrBefore(starts, offset);
		return at !== -1 && offset < (ends[at] ?? 0);
	};
}

/**
 * A scan context for `text` with the given families enabled (default: all).
 * The quoted index is built on the first question, with the caseless view the
 * families share: most texts hold no leak marker and never ask.
 */
export function createScanContext(text: string, enabled?: Iterable<GrammarName>): ScanContext {
	let isQuoted: ((offset: number) => boolean) | undefined;
	const context: ScanContext = {
		text,
		isInsideFence: (offset) => {
			isQuoted ??= createQuotedIndex(text, caselessTextOf(context));
			return isQuoted(offset);
		},
		enabled: new Set<GrammarName>(enabled ?? GRAMMAR_NAMES),
	};
	return context;
}
