/**
 * Shared scanning helpers for every grammar family (extension-contract §2.5).
 *
 * Everything here walks forward with an index; there is no regular expression
 * over unbounded input. Bracket and paren matching go through a per-text
 * matcher (`bracketMatcherFor`) that remembers every match it learns during a
 * walk and spends at most a fixed multiple of the text length in total, so a
 * family that asks for "the balanced JSON at each `{`" stays linear even on
 * adversarial input (a megabyte of `{"name"` without a closer).
 *
 * Quote rule used by all matchers: outside a quoted run, `"` or `'` opens a
 * run closed by the same character; inside a run, a backslash escapes the next
 * character. Only the requested bracket kind is counted. One refinement of
 * §2.5: a `'` right after a letter or digit is an apostrophe (`it's`), not a
 * quote, so prose around a call cannot make its brackets look quoted.
 *
 * Safety bound: the matcher's total walking is capped at a fixed multiple of
 * the text length. Past the cap, unknown brackets answer "unbalanced", so a
 * call there is missed (its text stays as it is) rather than the scan going
 * quadratic. Real model output does not come near the cap.
 */
import type { ScanContext } from "./types.ts";

// ---------------------------------------------------------------------------
// Character classes and cursor utilities

const CODE_A = 65;
const CODE_Z = 90;
const CODE_LA = 97;
const CODE_LZ = 122;
const CODE_0 = 48;
const CODE_9 = 57;

export function isAsciiLetter(code: number): boolean {
	return (code >= CODE_A && code <= CODE_Z) || (code >= CODE_LA && code <= CODE_LZ);
}

export function isDigit(code: number): boolean {
	return code >= CODE_0 && code <= CODE_9;
}

/** First character of an identifier: `[A-Za-z_]`. */
export function isIdentifierStart(code: number): boolean {
	return isAsciiLetter(code) || code === 95;
}

/** Later characters of an identifier: `[\w.-]`. */
export function isIdentifierPart(code: number): boolean {
	return isIdentifierStart(code) || isDigit(code) || code === 46 || code === 45;
}

/** Space, tab, newline, carriage return, form feed or vertical tab. */
export function isWhitespace(code: number): boolean {
	return code === 32 || code === 9 || code === 10 || code === 13 || code === 12 || code === 11;
}

/** End (exclusive) of the identifier (`[A-Za-z_][\w.-]*`) starting exactly at `from`, or -1. */
function identifierEnd(text: string, from: number): number {
	if (from < 0 || from >= text.length || !isIdentifierStart(text.charCodeAt(from))) return -1;
	let end = from + 1;
	while (end < text.length && isIdentifierPart(text.charCodeAt(end))) end++;
	return end;
}

/** Reads an identifier (`[A-Za-z_][\w.-]*`) starting exactly at `from`; `end` is exclusive. */
export function readIdentifier(text: string, from: number): { name: string; end: number } | undefined {
	const end = identifierEnd(text, from);
	return end === -1 ? undefined : { name: text.slice(from, end), end };
}

/** True when the whole string is one identifier. */
export function isIdentifier(value: string): boolean {
	const read = readIdentifier(value, 0);
	return read !== undefined && read.end === value.length;
}

/** Index of the first non-whitespace character at or after `from` (or `limit`). */
export function skipWhitespace(text: string, from: number, limit = text.length): number {
	let i = from;
	while (i < limit && isWhitespace(text.charCodeAt(i))) i++;
	return i;
}

/** Index of the first non-space/tab character at or after `from` (newlines stop it). */
export function skipInlineSpace(text: string, from: number, limit = text.length): number {
	let i = from;
	while (i < limit) {
		const c = text.charCodeAt(i);
		if (c !== 32 && c !== 9) break;
		i++;
	}
	return i;
}

/** True when `text` has `literal` at `at` (case-sensitive). */
export function startsWithAt(text: string, literal: string, at: number): boolean {
	return text.startsWith(literal, at);
}

/**
 * `indexOf` that never looks past `limit`: -1 unless the literal lies wholly
 * inside `[from, limit)`. Searches a substring view, so the cost is bounded by
 * `limit - from` even when the literal occurs only far later (a plain
 * `indexOf` then would rescan the rest of the text for every caller).
 */
export function indexOfBefore(text: string | CaselessText, literal: string, from: number, limit = text.length): number {
	if (typeof text !== "string") return text.indexOfBefore(literal, from, limit);
	const end = Math.min(limit, text.length);
	if (end === text.length) return text.indexOf(literal, from);
	const start = Math.max(0, from);
	if (end - start < literal.length) return -1;
	const at = text.slice(start, end).indexOf(literal);
	return at === -1 ? -1 : start + at;
}

/** Start of the line holding `offset` (the index after the preceding newline, or 0). */
export function lineStartOf(text: string, offset: number): number {
	return text.lastIndexOf("\n", offset - 1) + 1;
}

/** End of the line holding `offset` (the index of the next newline, or the text length). */
export function lineEndOf(text: string, offset: number): number {
	const at = text.indexOf("\n", offset);
	return at === -1 ? text.length : at;
}

/** Offsets where lines start: 0 and every index right after a `\n`. */
export function lineStarts(text: string): number[] {
	const starts = [0];
	let at = text.indexOf("\n");
	while (at !== -1) {
		starts.push(at + 1);
		at = text.indexOf("\n", at + 1);
	}
	return starts;
}

/**
 * A growable list of offsets on a typed array. Plain arrays of tens of
 * thousands of numbers cost several times more to grow (each regrowth is a
 * new large heap object), which made big texts slower per character.
 */
export class OffsetList {
	/** Backing storage; only the first `length` entries are meaningful. */
	items: Int32Array;
	length = 0;

	constructor(capacity = 16) {
		this.items = new Int32Array(capacity);
	}

	push(value: number): void {
		if (this.length === this.items.length) {
			const grown = new Int32Array(this.items.length * 2);
			grown.set(this.items);
			this.items = grown;
		}
		this.items[this.length++] = value;
	}

	/** Removes and returns the last offset, or -1 when empty (stack use). */
	pop(): number {
		return this.length === 0 ? -1 : (this.items[--this.length] ?? -1);
	}

	/** The offsets pushed so far (a view, not a copy). */
	view(): Int32Array {
		return this.items.subarray(0, this.length);
	}
}

/**
 * The text lower-cased with every offset kept: `toLowerCase` when it keeps
 * the length, else only the ASCII letters (full Unicode lower-casing can grow
 * a string, e.g. U+0130). Used for case-insensitive literal search: search
 * the lowered copy with a lower-case ASCII needle.
 */
export function asciiLowerCase(text: string): string {
	// Lower-casing never shortens a string; an equal length means every
	// character mapped to one of the same width, so offsets still line up.
	const full = text.toLowerCase();
	if (full.length === text.length) return full;
	const parts: string[] = [];
	let chunkStart = 0;
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (c >= CODE_A && c <= CODE_Z) {
			if (i > chunkStart) parts.push(text.slice(chunkStart, i));
			parts.push(String.fromCharCode(c + 32));
			chunkStart = i + 1;
		}
	}
	if (chunkStart < text.length) parts.push(text.slice(chunkStart));
	return parts.join("");
}

const KELVIN_SIGN = "\u212a";

/** True for the code of a lower-case ASCII letter. */
function isLowerLetter(code: number): boolean {
	return code >= CODE_LA && code <= CODE_LZ;
}

/**
 * Case-insensitive search for lower-case ASCII literals in a text, without a
 * lower-cased copy of it: lower-casing a megabyte costs more than all the
 * family scans together. A literal is found by `indexOf` on its first
 * non-letter character (most start with `<`, `[` or `|`), then the rest is
 * compared ASCII-case-insensitively; an all-letter literal is found from its
 * rarest letter in both cases, each remembered between queries so a forward
 * walk never rescans a stretch.
 *
 * Literals that open like a tag (`<tool_call>`, `</parameter>`, `<|python_tag|>`)
 * are looked up instead in an index of the text's `<` grouped by the folded
 * characters after them, built in one pass on first use and shared by every
 * family, so a text full of unrelated tags is walked once, not once per literal.
 *
 * Answers are those of searching `asciiLowerCase(text)`: the only character
 * outside ASCII that full lower-casing turns into ASCII is the Kelvin sign
 * (U+212A, to `k`), so a text holding one is searched through that lowered
 * copy, as before.
 */
export class CaselessText {
	readonly source: string;
	readonly length: number;
	/** The lower-cased copy, only for texts holding a Kelvin sign. */
	private readonly lowered: string | undefined;
	/** Per ASCII letter code: the `from` of the last search and its answer. */
	private lastFrom: Int32Array | undefined;
	private lastAt: Int32Array | undefined;
	/** Tag-like `<` offsets by `tagKeyAt`, built on the first tag-like search. */
	private tags: Map<number, Int32Array> | undefined;

	/** `lowered`: the lowered copy of `source`, `null` when it needs none, left out to decide here. */
	constructor(source: string, lowered?: string | null) {
		this.source = source;
		this.length = source.length;
		if (lowered === undefined) this.lowered = source.includes(KELVIN_SIGN) ? asciiLowerCase(source) : undefined;
		else this.lowered = lowered ?? undefined;
	}

	/** The lower-cased character code at `at` (ASCII letters folded). */
	charCodeAt(at: number): number {
		if (this.lowered !== undefined) return this.lowered.charCodeAt(at);
		const c = this.source.charCodeAt(at);
		return c >= CODE_A && c <= CODE_Z ? c + 32 : c;
	}

	/** True when the lower-case `needle` is at `at`, ignoring ASCII case. */
	startsWith(needle: string, at = 0): boolean {
		if (this.lowered !== undefined) return this.lowered.startsWith(needle, at);
		const from = Math.min(Math.max(0, at), this.length);
		return this.matchesAt(needle, from);
	}

	/** First offset at or after `from` of the lower-case `needle`, ignoring ASCII case, or -1. */
	indexOf(needle: string, from = 0): number {
		if (this.lowered !== undefined) return this.lowered.indexOf(needle, from);
		const start = Math.min(Math.max(0, from), this.length);
		if (needle.length === 0) return start;
		const anchor = anchorOf(needle);
		if (anchor === -1) return -1;
		const tagged = this.tagOffsetsFor(needle);
		if (tagged !== undefined) return this.firstTagMatch(tagged, needle, start, this.length);
		const text = this.source;
		if (anchor < needle.length) {
			const ch = needle[anchor] as string;
			let at = text.indexOf(ch, start + anchor);
			while (at !== -1) {
				if (this.matchesAt(needle, at - anchor)) return at - anchor;
				at = text.indexOf(ch, at + 1);
			}
			return -1;
		}
		// Every character is a letter: follow both cases of its rarest one.
		const k = rarestLetterOf(needle);
		const lowerCode = needle.charCodeAt(k);
		let pos = start + k;
		for (;;) {
			const small = this.nextOf(lowerCode, pos);
			const big = this.nextOf(lowerCode - 32, pos);
			const at = small === -1 ? big : big === -1 ? small : Math.min(small, big);
			if (at === -1) return -1;
			if (this.matchesAt(needle, at - k)) return at - k;
			pos = at + 1;
		}
	}

	/** Last offset at or before `from` of the lower-case `needle`, ignoring ASCII case, or -1. */
	lastIndexOf(needle: string, from = Number.POSITIVE_INFINITY): number {
		if (this.lowered !== undefined) return this.lowered.lastIndexOf(needle, from);
		let at = Math.min(Number.isNaN(from) ? this.length : Math.max(0, from), this.length - needle.length);
		for (; at >= 0; at--) if (this.matchesAt(needle, at)) return at;
		return -1;
	}

	/**
	 * `indexOf` that never looks past `limit` (see `indexOfBefore`): the search
	 * runs over a view of `[from, limit)`, so its cost is bounded by that stretch.
	 */
	indexOfBefore(needle: string, from: number, limit = this.length): number {
		const end = Math.min(limit, this.length);
		if (end === this.length) return this.indexOf(needle, from);
		const start = Math.max(0, from);
		if (end - start < needle.length) return -1;
		const tagged = this.lowered === undefined && anchorOf(needle) !== -1 ? this.tagOffsetsFor(needle) : undefined;
		if (tagged !== undefined) return this.firstTagMatch(tagged, needle, start, end);
		const view = new CaselessText(this.source.slice(start, end), this.lowered?.slice(start, end) ?? null);
		const at = view.indexOf(needle);
		return at === -1 ? -1 : start + at;
	}

	/** Every start of `needle` in `[from, limit)`, non-overlapping and ascending (see `allIndexesOf`). */
	allIndexesOf(needle: string, from = 0, limit = this.length): Int32Array {
		const found = new OffsetList();
		if (needle === "") return found.view();
		const end = Math.min(limit, this.length);
		const tagged = this.lowered === undefined && anchorOf(needle) !== -1 ? this.tagOffsetsFor(needle) : undefined;
		if (tagged === undefined) {
			let at = this.indexOfBefore(needle, from, end);
			while (at !== -1) {
				found.push(at);
				at = this.indexOfBefore(needle, at + needle.length, end);
			}
			return found.view();
		}
		// One walk over the needle's tag offsets instead of a search per occurrence.
		let next = Math.max(0, from);
		for (const at of tagged) {
			if (at < next) continue;
			if (at + needle.length > end) break;
			if (this.matchesAt(needle, at)) {
				found.push(at);
				next = at + needle.length;
			}
		}
		return found.view();
	}

	/**
	 * For a needle opening like a tag (`<` and a letter, or `</`/`<|` and a
	 * letter): the offsets of every `<` in the text followed by the same
	 * folded characters, ascending. Undefined for other needles.
	 */
	private tagOffsetsFor(needle: string): Int32Array | undefined {
		if (needle.charCodeAt(0) !== 60) return undefined;
		const key = tagKeyAt(needle, 0);
		if (key === -1) return undefined;
		this.tags ??= buildTagIndex(this.source);
		return this.tags.get(key) ?? NO_OFFSETS;
	}

	/** First offset of `offsets` at or after `from` where `needle` matches and ends by `limit`, or -1. */
	private firstTagMatch(offsets: Int32Array, needle: string, from: number, limit: number): number {
		let low = 0;
		let high = offsets.length;
		while (low < high) {
			const mid = (low + high) >>> 1;
			if ((offsets[mid] ?? 0) < from) low = mid + 1;
			else high = mid;
		}
		for (let i = low; i < offsets.length; i++) {
			const at = offsets[i] ?? 0;
			if (at + needle.length > limit) return -1;
			if (this.matchesAt(needle, at)) return at;
		}
		return -1;
	}

	private matchesAt(needle: string, at: number): boolean {
		if (at < 0 || at + needle.length > this.length) return false;
		const text = this.source;
		for (let i = 0; i < needle.length; i++) {
			const n = needle.charCodeAt(i);
			const c = text.charCodeAt(at + i);
			// A lowered text holds no upper-case ASCII letter, so a needle with one never matches.
			if ((c !== n && !(isLowerLetter(n) && c === n - 32)) || (n >= CODE_A && n <= CODE_Z)) return false;
		}
		return true;
	}

	/** `indexOf` of one character for queries that mostly move forward: a still-valid last answer is reused. */
	private nextOf(code: number, from: number): number {
		// Codes are ASCII letters; -1 marks a code not searched yet.
		this.lastFrom ??= new Int32Array(128).fill(-1);
		this.lastAt ??= new Int32Array(128);
		const lastFrom = this.lastFrom[code] ?? -1;
		if (lastFrom !== -1 && from >= lastFrom) {
			const last = this.lastAt[code] ?? -1;
			if (last === -1 || last >= from) return last;
		}
		const at = this.source.indexOf(String.fromCharCode(code), from);
		this.lastFrom[code] = from;
		this.lastAt[code] = at;
		return at;
	}
}

const NO_OFFSETS = new Int32Array(0);

/** The character code at `at` with ASCII letters lower-cased (NaN past the end). */
function foldedAt(text: string, at: number): number {
	const c = text.charCodeAt(at);
	return c >= CODE_A && c <= CODE_Z ? c + 32 : c;
}

/**
 * Key of the tag-like opening at the `<` at `at`: the folded letter after it,
 * or `/` or `|` and the folded letter after that; -1 for any other opening.
 * Every occurrence of a needle shares the needle's own key.
 */
function tagKeyAt(text: string, at: number): number {
	const first = foldedAt(text, at + 1);
	if (isLowerLetter(first)) return first;
	if (first !== 47 && first !== 124) return -1;
	const second = foldedAt(text, at + 2);
	return isLowerLetter(second) ? first * 65536 + second : -1;
}

/** Every `<` with a tag-like key, grouped by key; one pass over the `<` of the text. */
function buildTagIndex(text: string): Map<number, Int32Array> {
	const index = new Map<number, OffsetList>();
	let at = text.indexOf("<");
	while (at !== -1) {
		const key = tagKeyAt(text, at);
		if (key !== -1) {
			let list = index.get(key);
			if (list === undefined) {
				list = new OffsetList();
				index.set(key, list);
			}
			list.push(at);
		}
		// Runs of `<` are stepped over directly: a search per character costs far more.
		at = text.charCodeAt(at + 1) === 60 ? at + 1 : text.indexOf("<", at + 1);
	}
	const views = new Map<number, Int32Array>();
	for (const [key, list] of index) views.set(key, list.view());
	return views;
}

/** Lower-case letters from most to least frequent in English prose. */
const LETTERS_BY_FREQUENCY = "etaoinshrdlcumwfgypbvkjxqz";

/** Index in an all-letter needle of its least frequent letter: fewer false hits to check. */
function rarestLetterOf(needle: string): number {
	let best = 0;
	let bestRank = -1;
	for (let i = 0; i < needle.length; i++) {
		const rank = LETTERS_BY_FREQUENCY.indexOf(needle[i] as string);
		if (rank > bestRank) {
			best = i;
			bestRank = rank;
		}
	}
	return best;
}

/**
 * Index of the first non-letter of a lower-case needle, `needle.length` when
 * it is all letters, or -1 when it holds an upper-case ASCII letter (which a
 * lowered text never contains, so such a needle is never found).
 */
function anchorOf(needle: string): number {
	let anchor = -1;
	for (let i = 0; i < needle.length; i++) {
		const c = needle.charCodeAt(i);
		if (c >= CODE_A && c <= CODE_Z) return -1;
		if (anchor === -1 && !isLowerLetter(c)) anchor = i;
	}
	return anchor === -1 ? needle.length : anchor;
}

const lowerCache = new WeakMap<ScanContext, CaselessText>();

/** The context's text for case-insensitive literal search, built once per context. */
export function lowerTextOf(context: ScanContext): CaselessText {
	let lower = lowerCache.get(context);
	if (lower === undefined) {
		lower = new CaselessText(context.text);
		lowerCache.set(context, lower);
	}
	return lower;
}

/**
 * A `'` right after a letter or digit (`it's`, `don't`) is an apostrophe, not
 * the start of a quoted run: Python and JSON literals never start there, and
 * treating prose apostrophes as quotes would make every bracket after one
 * look quoted.
 */
export function isApostrophe(text: string, at: number): boolean {
	if (at === 0) return false;
	const before = text.charCodeAt(at - 1);
	return isAsciiLetter(before) || isDigit(before);
}

// ---------------------------------------------------------------------------
// Bracket matching

export type BracketKind = "{" | "[" | "(";

const OPENER: Record<BracketKind, number> = { "{": 123, "[": 91, "(": 40 };

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
 * Remembered matches stay in a hash table while they are fewer than one per
 * this many characters; past that a table the size of the text is smaller.
 */
const CHARS_PER_SPARSE_ENTRY = 8;

/**
 * Offset -> value (never 0) on open addressing over typed arrays: a
 * `Map<number, number>` costs several times more per entry, and a table the
 * size of the text means allocating megabytes for a few thousand brackets.
 */
class OffsetTable {
	private keys = new Int32Array(64).fill(-1);
	private values = new Int32Array(64);
	private bits = 6;
	size = 0;

	private slotOf(key: number): number {
		const mask = this.keys.length - 1;
		let slot = Math.imul(key, 0x9e3779b1) >>> (32 - this.bits);
		while (this.keys[slot] !== key && this.keys[slot] !== -1) slot = (slot + 1) & mask;
		return slot;
	}

	/** The stored value, or 0 when `key` is absent. */
	get(key: number): number {
		const slot = this.slotOf(key);
		return this.keys[slot] === key ? (this.values[slot] ?? 0) : 0;
	}

	set(key: number, value: number): void {
		let slot = this.slotOf(key);
		if (this.keys[slot] !== key) {
			if ((this.size + 1) * 2 > this.keys.length) {
				this.grow();
				slot = this.slotOf(key);
			}
			this.keys[slot] = key;
			this.size++;
		}
		this.values[slot] = value;
	}

	forEach(visit: (key: number, value: number) => void): void {
		for (let slot = 0; slot < this.keys.length; slot++) {
			const key = this.keys[slot] ?? -1;
			if (key !== -1) visit(key, this.values[slot] ?? 0);
		}
	}

	private grow(): void {
		const keys = this.keys;
		const values = this.values;
		this.bits++;
		this.keys = new Int32Array(keys.length * 2).fill(-1);
		this.values = new Int32Array(keys.length * 2);
		for (let slot = 0; slot < keys.length; slot++) {
			const key = keys[slot] ?? -1;
			if (key === -1) continue;
			const to = this.slotOf(key);
			this.keys[to] = key;
			this.values[to] = values[slot] ?? 0;
		}
	}
}

/** 1 for the ASCII characters a bracket walk acts on outside quotes: quotes and the three bracket pairs. */
const WALK_STOPS = new Uint8Array(128);
for (const c of [34, 39, 40, 41, 91, 93, 123, 125]) WALK_STOPS[c] = 1;

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
	 * its closer. A hash table first; a dense table once it grows, so ordinary
	 * text never pays for a table the size of the text.
	 */
	private sparse: OffsetTable | undefined = new OffsetTable();
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
		this.sparse ??= new OffsetTable();
		const sparse = this.sparse;
		sparse.set(offset, value);
		if (sparse.size * CHARS_PER_SPARSE_ENTRY > this.text.length) {
			const dense = new Int32Array(this.text.length);
			sparse.forEach((at, known) => {
				dense[at] = known;
			});
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
		const primary = opener === 123 ? braces : opener === 91 ? brackets : parens;
		let quote = 0;
		// The walk may not spend more than what is left of the text's budget.
		const stop = Math.min(end, open + Math.max(0, this.budget));
		let i = open;
		for (; i < stop; i++) {
			const c = text.charCodeAt(i);
			if (quote !== 0) {
				if (c === 92) i++;
				else if (c === quote) quote = 0;
				continue;
			}
			// Most characters are neither quotes nor brackets: one table load rules them out.
			if (c >= 128 || WALK_STOPS[c] === 0) continue;
			switch (c) {
				case 34:
					quote = c;
					continue;
				case 39:
					if (!isApostrophe(text, i)) quote = c;
					continue;
				case 123:
					braces.push(i);
					continue;
				case 91:
					brackets.push(i);
					continue;
				case 40:
					parens.push(i);
					continue;
				case 125: {
					const from = braces.pop();
					if (from !== -1) this.remember(from, i + 1);
					break;
				}
				case 93: {
					const from = brackets.pop();
					if (from !== -1) this.remember(from, i + 1);
					break;
				}
				case 41: {
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

const matcherCache = new WeakMap<ScanContext, BracketMatcher>();

/** The context's shared bracket matcher (one per scanned text). */
export function bracketMatcherFor(context: ScanContext): BracketMatcher {
	let matcher = matcherCache.get(context);
	if (matcher === undefined) {
		matcher = new BracketMatcher(context.text);
		matcherCache.set(context, matcher);
	}
	return matcher;
}

/** Index of the first `{` or `[` at or after `from` and before `limit`, or -1. */
export function firstJsonOpener(text: string, from: number, limit = text.length): number {
	const brace = indexOfBefore(text, "{", from, limit);
	const bracket = indexOfBefore(text, "[", from, limit);
	if (brace === -1) return bracket;
	if (bracket === -1) return brace;
	return Math.min(brace, bracket);
}

/**
 * The first balanced JSON-looking span in `text` at or after `from` (§2.5):
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
	const kind: BracketKind = text.charCodeAt(start) === 123 ? "{" : "[";
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

// ---------------------------------------------------------------------------
// Values

export function isPlainObject(value: unknown): value is Record<string, unknown> {
	if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
	const proto = Object.getPrototypeOf(value) as unknown;
	return proto === Object.prototype || proto === null;
}

/** `JSON.parse` that reports failure as `undefined` wrapped in `{ ok: false }`. */
export function tryParseJson(text: string): { ok: true; value: unknown } | { ok: false } {
	try {
		return { ok: true, value: JSON.parse(text) as unknown };
	} catch {
		return { ok: false };
	}
}

function startsLikeJsonValue(v: string): boolean {
	const c = v.charCodeAt(0);
	if (c === 91 || c === 123 || c === 34 || isDigit(c)) return true;
	if (c === 45) return isDigit(v.charCodeAt(1));
	return v.startsWith("true") || v.startsWith("false") || v.startsWith("null");
}

/**
 * Loose value coercion (§2.5) of an already-trimmed value: JSON when it starts
 * like a JSON value and parses, the raw string otherwise.
 */
export function maybeParseJsonValue(value: string): unknown {
	if (value === "" || !startsLikeJsonValue(value)) return value;
	const parsed = tryParseJson(value);
	return parsed.ok ? parsed.value : value;
}

/** `JSON.parse(value)`, or the original string when it does not parse. */
export function parseJsonValueOrString(value: string): unknown {
	const parsed = tryParseJson(value);
	return parsed.ok ? parsed.value : value;
}

/** Nesting limit for `arguments`-inside-`arguments` unwrapping. */
const MAX_UNWRAP_DEPTH = 8;

/**
 * Argument normalization (§2.5): JSON text is parsed and normalized again; an
 * object whose `arguments` holds a string or object is unwrapped when that
 * yields an object; other plain objects are returned as is; anything else is
 * undefined (callers use `{}`).
 */
export function normalizeArgumentsObject(value: unknown, depth = 0): Record<string, unknown> | undefined {
	if (depth > MAX_UNWRAP_DEPTH) return undefined;
	if (typeof value === "string") {
		const parsed = tryParseJson(value.trim());
		return parsed.ok ? normalizeArgumentsObject(parsed.value, depth + 1) : undefined;
	}
	if (!isPlainObject(value)) return undefined;
	const inner = value.arguments;
	if (typeof inner === "string" || isPlainObject(inner)) {
		const unwrapped = normalizeArgumentsObject(inner, depth + 1);
		if (unwrapped !== undefined) return unwrapped;
	}
	return value;
}

/** A call read from a JSON object: name and arguments only. */
export interface JsonCall {
	name: string;
	arguments: Record<string, unknown>;
}

/**
 * Call from a JSON object (§2.5): name from `name`, `function_name` or
 * `function.name`; arguments from `arguments`, `args`, `parameters` or
 * `function.arguments`, normalized, default `{}`.
 */
export function callFromJsonObject(value: unknown): JsonCall | undefined {
	if (!isPlainObject(value)) return undefined;
	const fn = isPlainObject(value.function) ? value.function : undefined;
	const rawName = value.name ?? value.function_name ?? fn?.name;
	if (typeof rawName !== "string") return undefined;
	const name = rawName.trim();
	if (name === "") return undefined;
	const source = value.arguments ?? value.args ?? value.parameters ?? fn?.arguments;
	return { name, arguments: normalizeArgumentsObject(source) ?? {} };
}

/** One call per object for a JSON array, one call for a call object, none otherwise. */
export function callsFromJson(value: unknown): JsonCall[] {
	if (Array.isArray(value)) {
		const calls: JsonCall[] = [];
		for (const item of value) {
			const call = callFromJsonObject(item);
			if (call) calls.push(call);
		}
		return calls;
	}
	const call = callFromJsonObject(value);
	return call ? [call] : [];
}

// ---------------------------------------------------------------------------
// Pythonic calls: `name(key="value", flag=True)`

/**
 * Index of the first `code` at or after `from` that lies outside quotes and
 * outside `()`, `[]`, `{}` nesting (counted from `from`), or -1. At such an
 * index nesting and quoting are both closed, so a walk may resume right after it.
 */
function indexOfTopLevel(text: string, code: number, from = 0): number {
	let depth = 0;
	let quote = 0;
	for (let i = from; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (quote !== 0) {
			if (c === 92) i++;
			else if (c === quote) quote = 0;
			continue;
		}
		if (c === 34 || (c === 39 && !isApostrophe(text, i))) quote = c;
		else if (c === 40 || c === 91 || c === 123) depth++;
		else if ((c === 41 || c === 93 || c === 125) && depth > 0) depth--;
		else if (c === code && depth === 0) return i;
	}
	return -1;
}

/** Splits `text` on commas outside quotes and outside `()`, `[]`, `{}` nesting. */
export function splitTopLevel(text: string, separator = 44): string[] {
	const pieces: string[] = [];
	let start = 0;
	for (let at = indexOfTopLevel(text, separator); at !== -1; at = indexOfTopLevel(text, separator, start)) {
		pieces.push(text.slice(start, at));
		start = at + 1;
	}
	pieces.push(text.slice(start));
	return pieces;
}

/** Index of the first `=` outside quotes and nesting, or -1. */
function topLevelEquals(text: string): number {
	return indexOfTopLevel(text, 61);
}

function isDecimalNumber(v: string): boolean {
	let i = 0;
	if (v.charCodeAt(0) === 43 || v.charCodeAt(0) === 45) i = 1;
	const intStart = i;
	while (i < v.length && isDigit(v.charCodeAt(i))) i++;
	if (i === intStart) return false;
	if (i === v.length) return true;
	if (v.charCodeAt(i) !== 46) return false;
	i++;
	const fracStart = i;
	while (i < v.length && isDigit(v.charCodeAt(i))) i++;
	return i > fracStart && i === v.length;
}

/** Unescapes `\'`, `\"` and `\\` in the inside of a quoted Python string. */
function unescapePythonQuoted(inner: string): string {
	if (!inner.includes("\\")) return inner;
	let out = "";
	for (let i = 0; i < inner.length; i++) {
		const c = inner[i];
		const next = inner[i + 1];
		if (c === "\\" && (next === "'" || next === '"' || next === "\\")) {
			out += next;
			i++;
		} else {
			out += c;
		}
	}
	return out;
}

/** Replaces the bare words True/False/None (outside quotes) with JSON literals. */
function pythonWordsToJson(text: string): string {
	let out = "";
	let quote = 0;
	let i = 0;
	while (i < text.length) {
		const c = text.charCodeAt(i);
		if (quote !== 0) {
			out += text[i];
			if (c === 92 && i + 1 < text.length) {
				out += text[i + 1];
				i += 2;
				continue;
			}
			if (c === quote) quote = 0;
			i++;
			continue;
		}
		if (c === 34 || (c === 39 && !isApostrophe(text, i))) {
			quote = c;
			out += text[i];
			i++;
			continue;
		}
		if (isIdentifierStart(c) && (i === 0 || !isIdentifierPart(text.charCodeAt(i - 1)))) {
			const word = readIdentifier(text, i);
			if (word) {
				out +=
					word.name === "True" ? "true" : word.name === "False" ? "false" : word.name === "None" ? "null" : word.name;
				i = word.end;
				continue;
			}
		}
		out += text[i];
		i++;
	}
	return out;
}

/** Converts one pythonic argument value (§2.5). */
export function parsePythonicValue(raw: string): unknown {
	const v = raw.trim();
	if (v === "True") return true;
	if (v === "False") return false;
	if (v === "None") return null;
	if (isDecimalNumber(v)) return Number(v);
	const first = v.charCodeAt(0);
	if (v.length >= 2 && (first === 39 || first === 34) && v.charCodeAt(v.length - 1) === first) {
		return unescapePythonQuoted(v.slice(1, -1));
	}
	const parsed = tryParseJson(pythonWordsToJson(v));
	return parsed.ok ? parsed.value : v;
}

/** Keyword arguments of a pythonic call's argument text; positional pieces are ignored. */
export function parsePythonicArgs(argsText: string): Record<string, unknown> {
	const args: Record<string, unknown> = {};
	if (argsText.trim() === "") return args;
	for (const piece of splitTopLevel(argsText)) {
		const eq = topLevelEquals(piece);
		if (eq === -1) continue;
		const key = piece.slice(0, eq).trim();
		if (!isIdentifier(key)) continue;
		setOwn(args, key, parsePythonicValue(piece.slice(eq + 1)));
	}
	return args;
}

/** A pythonic call found in text, with the span from its name to its closing paren. */
export interface PythonicCall extends JsonCall {
	/** Offset of the line start (leading whitespace included). */
	lineStart: number;
	/** Offset of the call name. */
	start: number;
	/** Offset just after the closing paren. */
	end: number;
}

/**
 * The pythonic call whose line starts at `lineStart`: optional whitespace,
 * an identifier, optional spaces, `(`, and a quote-aware matching `)` before
 * `limit` (which may be on a later line).
 */
export function pythonicCallAtLine(
	text: string,
	lineStart: number,
	limit = text.length,
	matcher?: BracketMatcher,
): PythonicCall | undefined {
	const start = skipInlineSpace(text, lineStart, limit);
	// The name is cut out only once a `(` follows: most lines start with a plain word.
	const identEnd = identifierEnd(text, start);
	if (identEnd === -1 || identEnd > limit) return undefined;
	const open = skipInlineSpace(text, identEnd, limit);
	if (open >= limit || text.charCodeAt(open) !== 40) return undefined;
	const end = findMatchingParen(text, open, limit, matcher);
	if (end === -1) return undefined;
	return {
		name: text.slice(start, identEnd),
		arguments: parsePythonicArgs(text.slice(open + 1, end - 1)),
		lineStart,
		start,
		end,
	};
}

/**
 * Every line-leading pythonic call in `text[from, limit)` (§2.5): at `from`
 * or right after a newline. Scanning resumes after each call's closing paren.
 */
export function parsePythonicCalls(
	text: string,
	from = 0,
	limit = text.length,
	matcher?: BracketMatcher,
): PythonicCall[] {
	const calls: PythonicCall[] = [];
	const shared = matcher && matcher.text === text ? matcher : new BracketMatcher(text);
	let lineStart = from;
	while (lineStart < limit) {
		const call = pythonicCallAtLine(text, lineStart, limit, shared);
		let next: number;
		if (call) {
			calls.push(call);
			next = text.indexOf("\n", call.end);
		} else {
			next = text.indexOf("\n", lineStart);
		}
		if (next === -1 || next >= limit) break;
		lineStart = next + 1;
	}
	return calls;
}

// ---------------------------------------------------------------------------
// Markup helpers

/**
 * The value of `attr="..."` or `attr='...'` inside `text[from, to)` (a tag's
 * inside), matched case-insensitively on the attribute name and only where
 * the name starts a word. Undefined when absent or unterminated.
 */
export function attributeValue(text: string, from: number, to: number, attr: string): string | undefined {
	const lower = asciiLowerCase(text.slice(from, to));
	const needle = attr.toLowerCase();
	let at = lower.indexOf(needle);
	while (at !== -1) {
		const before = at === 0 ? 32 : lower.charCodeAt(at - 1);
		let i = at + needle.length;
		if (!isIdentifierPart(before) || at === 0) {
			i = skipInlineSpace(lower, i);
			if (lower.charCodeAt(i) === 61) {
				i = skipInlineSpace(lower, i + 1);
				const quote = lower.charCodeAt(i);
				if (quote === 34 || quote === 39) {
					const close = lower.indexOf(String.fromCharCode(quote), i + 1);
					if (close === -1) return undefined;
					return text.slice(from + i + 1, from + close);
				}
			}
		}
		at = lower.indexOf(needle, at + needle.length);
	}
	return undefined;
}

/** Every start offset of `needle` in `haystack` (non-overlapping, ascending). */
export function allIndexesOf(
	haystack: string | CaselessText,
	needle: string,
	from = 0,
	limit = haystack.length,
): Int32Array {
	if (typeof haystack !== "string") return haystack.allIndexesOf(needle, from, limit);
	const found = new OffsetList();
	if (needle === "") return found.view();
	let at = indexOfBefore(haystack, needle, from, limit);
	while (at !== -1) {
		found.push(at);
		at = indexOfBefore(haystack, needle, at + needle.length, limit);
	}
	return found.view();
}

/** Removes one surrounding markdown fence (```lang … ```) from already-trimmed text. */
export function unwrapMarkdownFence(text: string): string {
	if (!text.startsWith("```")) return text;
	const firstNewline = text.indexOf("\n");
	if (firstNewline === -1) return text;
	let inner = text.slice(firstNewline + 1);
	const trimmedEnd = inner.trimEnd();
	if (trimmedEnd.endsWith("```")) inner = trimmedEnd.slice(0, -3);
	return inner.trim();
}

/** Parses a call body as JSON calls: first balanced JSON, else the whole text. */
export function callsFromJsonText(text: string): JsonCall[] {
	const span = extractFirstBalancedJson(text);
	const parsed = tryParseJson(span ? span.text : text);
	return parsed.ok ? callsFromJson(parsed.value) : [];
}

/** A complete XML-ish tag `<name attrs>` or `</name>` found in text. */
export interface MarkupTag {
	start: number;
	/** Just after `>`. */
	end: number;
	/** Lower-case tag name as searched. */
	name: string;
	closing: boolean;
	/** The attribute text lies in `[attrStart, attrEnd)`. */
	attrStart: number;
	attrEnd: number;
}

/**
 * Every complete `<name …>` and `</name>` for the given lower-case names,
 * ascending by start. Attribute text may not hold `<`, `>` or reach past the
 * next `<`, so each tag is read in time proportional to its own length.
 */
export function findMarkupTags(lower: CaselessText, names: readonly string[]): MarkupTag[] {
	const tags: MarkupTag[] = [];
	for (const name of names) {
		for (const closing of [false, true]) {
			const needle = closing ? `</${name}` : `<${name}`;
			for (const start of allIndexesOf(lower, needle)) {
				const nameEnd = start + needle.length;
				const next = lower.charCodeAt(nameEnd);
				if (next !== 62 && !isWhitespace(next)) continue;
				let k = nameEnd;
				while (k < lower.length) {
					const c = lower.charCodeAt(k);
					if (c === 62 || c === 60) break;
					k++;
				}
				if (lower.charCodeAt(k) !== 62) continue;
				tags.push({ start, end: k + 1, name, closing, attrStart: nameEnd, attrEnd: k });
			}
		}
	}
	tags.sort((a, b) => a.start - b.start);
	return tags;
}

/** `table[k]` = index of the first tag at or after `k` that is the closer `</name>`, or -1. */
export function nextCloserTable(tags: readonly MarkupTag[], name: string): Int32Array {
	const next = new Int32Array(tags.length + 1).fill(-1);
	for (let k = tags.length - 1; k >= 0; k--) {
		const tag = tags[k];
		next[k] = tag?.closing && tag.name === name ? k : (next[k + 1] ?? -1);
	}
	return next;
}

/** Index of the first tag whose start is `>= offset` (binary search), or `tags.length`. */
export function firstTagAtOrAfter(tags: readonly { start: number }[], offset: number): number {
	let low = 0;
	let high = tags.length;
	while (low < high) {
		const mid = (low + high) >>> 1;
		if ((tags[mid]?.start ?? 0) < offset) low = mid + 1;
		else high = mid;
	}
	return low;
}

/**
 * Sets an own, enumerable property even for keys like `__proto__`, which a
 * plain assignment would turn into a prototype change (losing the argument).
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
	Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Anything searchable with `indexOf(needle, from)`: a string or a {@link CaselessText}. */
export interface Searchable {
	indexOf(needle: string, from?: number): number;
}

/**
 * `indexOf` for queries whose start never decreases: the last answer is reused
 * while it still lies ahead, so repeated searches never rescan the same
 * stretch (a text without the needle is searched to its end once, not once per
 * query).
 */
export function forwardFinder(haystack: Searchable, needle: string): (from: number) => number {
	let lastFrom = 0;
	let last = -2;
	return (from) => {
		if (last !== -2 && from >= lastFrom && (last === -1 || last >= from)) return last;
		lastFrom = from;
		last = haystack.indexOf(needle, from);
		return last;
	};
}

/**
 * Arguments written as a JSON object in the body of a call element that has
 * no parameter tags: the first balanced JSON value (or the whole trimmed
 * body), normalized; `{}` when it is not an argument object.
 */
export function argumentsFromJsonBody(body: string): Record<string, unknown> {
	const trimmed = body.trim();
	if (trimmed.startsWith('"')) return argumentObjectOf(tryParseJson(trimmed)) ?? {};
	const span = extractFirstBalancedJson(body);
	const parsed = tryParseJson(span ? span.text : body.trim());
	return (parsed.ok ? normalizeArgumentsObject(parsed.value) : undefined) ?? {};
}

/**
 * The argument object a parsed body stands for: the object itself or, when
 * the model encoded its arguments twice (a JSON string holding the object,
 * seen with Kimi: MoonshotAI/kimi-cli#2406, tridz-dev/huf#676), the object
 * that string holds, decoded exactly once more. Undefined for anything else.
 */
export function argumentObjectOf(
	parsed: { ok: true; value: unknown } | { ok: false },
): Record<string, unknown> | undefined {
	if (!parsed.ok) return undefined;
	if (isPlainObject(parsed.value)) return parsed.value;
	if (typeof parsed.value !== "string") return undefined;
	const inner = tryParseJson(parsed.value.trim());
	return inner.ok && isPlainObject(inner.value) ? inner.value : undefined;
}
