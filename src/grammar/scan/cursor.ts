/**
 * Cursor helpers: skipping space, bounded literal search, growable offset
 * lists and forward-only finders. Every helper moves one index forward and
 * never rescans what an earlier call already passed.
 */
import type { ScanContext } from "../types.ts";
import { codeSpace, codeTab, isWhitespace } from "./chars.ts";

/** Index of the first non-whitespace character at or after `from` (or `limit`). */
export function skipWhitespace(text: string, from: number, limit = text.length): number {
	let i = from;
	while (i < limit && isWhitespace(text.charCodeAt(i))) i++;
	return i;
}

/** True when `text[from, to)` is only whitespace. */
export function isBlankText(text: string, from: number, to: number): boolean {
	return skipWhitespace(text, from, to) >= to;
}

/** Index of the first non-space/tab character at or after `from` (newlines stop it). */
export function skipInlineSpace(text: string, from: number, limit = text.length): number {
	let i = from;
	while (i < limit) {
		const c = text.charCodeAt(i);
		if (c !== codeSpace && c !== codeTab) break;
		i++;
	}
	return i;
}

/**
 * `indexOf` that never looks past `limit`: -1 unless the literal lies wholly
 * inside `[from, limit)`. Searches a substring view, so the cost is bounded by
 * `limit - from` even when the literal occurs only far later (a plain
 * `indexOf` then would rescan the rest of the text for every caller).
 */
export function indexOfBefore(
	text: string | BoundedSearchable,
	literal: string,
	from: number,
	limit = text.length,
): number {
	if (typeof text !== "string") return text.indexOfBefore(literal, from, limit);
	const end = Math.min(limit, text.length);
	if (end === text.length) return text.indexOf(literal, from);
	const start = Math.max(0, from);
	if (end - start < literal.length) return -1;
	const at = text.slice(start, end).indexOf(literal);
	return at === -1 ? -1 : start + at;
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

/** A text with its own bounded search (a `CaselessText`), which `indexOfBefore` hands the search to. */
export interface BoundedSearchable {
	readonly length: number;
	indexOfBefore(literal: string, from: number, limit: number): number;
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

/** The one binary search: the first index in `[0, length)` whose ascending key is `>= value`, or `length`. */
export function lowerBound(length: number, keyAt: (index: number) => number, value: number): number {
	let low = 0;
	let high = length;
	while (low < high) {
		const mid = (low + high) >>> 1;
		if (keyAt(mid) < value) low = mid + 1;
		else high = mid;
	}
	return low;
}

/** Index of the first entry of the ascending `sorted` that is `>= value`, or `sorted.length`. */
export function firstIndexAtOrAfter(sorted: ArrayLike<number>, value: number): number {
	return lowerBound(sorted.length, (index) => sorted[index] ?? 0, value);
}

/**
 * True when, at or after `end`, the next offset of the ascending `closers`
 * comes before the next of the ascending `openers` (or there is no opener
 * left): a closer with no opener follows, so the element that ended at `end`
 * ended early (its value held that closer) and its value was cut.
 */
export function strayCloserFollows(openers: ArrayLike<number>, closers: ArrayLike<number>, end: number): boolean {
	const close = closers[firstIndexAtOrAfter(closers, end)];
	if (close === undefined) return false;
	const open = openers[firstIndexAtOrAfter(openers, end)];
	return open === undefined || close < open;
}

/**
 * `build` memoized per scan context: every family step that asks for the
 * same derived index of a text (its caseless view, its bracket matches, a
 * family's tag list) shares the one built first.
 */
export function perContext<T>(build: (context: ScanContext) => T): (context: ScanContext) => T {
	const cache = new WeakMap<ScanContext, T>();
	return (context) => {
		let value = cache.get(context);
		if (value === undefined) {
			value = build(context);
			cache.set(context, value);
		}
		return value;
	};
}
