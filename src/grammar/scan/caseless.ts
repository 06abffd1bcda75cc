/**
 * Case-insensitive literal search over one text (`CaselessText`), shared by
 * every family through `caselessTextOf`: model grammars are matched ignoring
 * ASCII case, and lower-casing a megabyte costs more than all the family
 * scans together, so the text is searched in place.
 */
import { caseOffset, codeBar, codeLessThan, codeSlash, isLowerLetter, isUpperLetter } from "./chars.ts";
import { firstIndexAtOrAfter, indexOfBefore, OffsetList, perContext } from "./cursor.ts";

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
		if (isUpperLetter(c)) {
			if (i > chunkStart) parts.push(text.slice(chunkStart, i));
			parts.push(String.fromCharCode(c + caseOffset));
			chunkStart = i + 1;
		}
	}
	if (chunkStart < text.length) parts.push(text.slice(chunkStart));
	return parts.join("");
}

const KELVIN_SIGN = "\u212a";

/**
 * Case-insensitive search for lower-case ASCII literals in a text, without a
 * lower-cased copy of it: lower-casing a megabyte costs more than all the
 * family scans together. A literal is found by `indexOf` on its first
 * non-letter character (most start with `<`, `[` or `|`), then the rest is
 * compared ASCII-case-insensitively; an all-letter literal is found from its
 * rarest letter in both cases, each remembered between queries so a forward
 * walk never rescans a stretch (without the memo, a letter absent in one case
 * would be searched to the end of the text once per query: quadratic).
 * Starting from the rarest letter rather than the first cuts the false hits to
 * check: the bench measured 1.2–1.3x faster on prose at 16–64 KB.
 *
 * Literals that open like a tag (`<tool_call>`, `</parameter>`, `<|python_tag|>`)
 * are looked up instead in an index of the text's `<` grouped by the folded
 * characters after them, built in one pass on first use and shared by every
 * family, so a text full of unrelated tags is walked once, not once per
 * literal: the bench measured 1.5–1.7x faster on fenced markdown at 4–64 KB.
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
		return isUpperLetter(c) ? c + caseOffset : c;
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
			const big = this.nextOf(lowerCode - caseOffset, pos);
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
		if (needle.charCodeAt(0) !== codeLessThan) return undefined;
		const key = tagKeyAt(needle, 0);
		if (key === -1) return undefined;
		this.tags ??= buildTagIndex(this.source);
		return this.tags.get(key) ?? NO_OFFSETS;
	}

	/** First offset of `offsets` at or after `from` where `needle` matches and ends by `limit`, or -1. */
	private firstTagMatch(offsets: Int32Array, needle: string, from: number, limit: number): number {
		for (let i = firstIndexAtOrAfter(offsets, from); i < offsets.length; i++) {
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
			if ((c !== n && !(isLowerLetter(n) && c === n - caseOffset)) || isUpperLetter(n)) return false;
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
	return isUpperLetter(c) ? c + caseOffset : c;
}

/**
 * Key of the tag-like opening at the `<` at `at`: the folded letter after it,
 * or `/` or `|` and the folded letter after that; -1 for any other opening.
 * Every occurrence of a needle shares the needle's own key.
 */
function tagKeyAt(text: string, at: number): number {
	const first = foldedAt(text, at + 1);
	if (isLowerLetter(first)) return first;
	if (first !== codeSlash && first !== codeBar) return -1;
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
		at = text.charCodeAt(at + 1) === codeLessThan ? at + 1 : text.indexOf("<", at + 1);
	}
	const views = new Map<number, Int32Array>();
	for (const [key, list] of index) views.set(key, list.view());
	return views;
}

/** Lower-case letters from most to least frequent in English prose (what `rarestLetterOf` ranks by). */
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
		if (isUpperLetter(c)) return -1;
		if (anchor === -1 && !isLowerLetter(c)) anchor = i;
	}
	return anchor === -1 ? needle.length : anchor;
}

/** The context's text for case-insensitive literal search, built once per context. */
export const caselessTextOf = perContext((context) => new CaselessText(context.text));

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
