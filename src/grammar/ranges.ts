/**
 * Range removal: cut the removed candidate ranges out
 * of a part's text, then tidy the whole result: spaces/tabs before a newline
 * go, runs of three or more newlines become two, and the ends are trimmed.
 * Only parts that had a range removed are tidied (callers decide that).
 *
 * Linear and regex-free: a forward copy, then one pass for the tidy-up (a
 * pattern like `[ \t]+\n` would rescan long space runs and go quadratic).
 */
import { codeNewline, codeSpace, codeTab } from "./scan.ts";

export interface TextRange {
	start: number;
	end: number;
}

/** Copies `text` without the given ranges; overlaps and duplicates are harmless. */
export function cutRanges(text: string, ranges: readonly TextRange[]): string {
	const sorted = [...ranges].sort((a, b) => a.start - b.start);
	const parts: string[] = [];
	let cursor = 0;
	for (const range of sorted) {
		const start = Math.max(0, Math.min(range.start, text.length));
		const end = Math.max(0, Math.min(range.end, text.length));
		if (start > cursor) parts.push(text.slice(cursor, start));
		if (end > cursor) cursor = end;
	}
	if (cursor < text.length) parts.push(text.slice(cursor));
	return parts.join("");
}

/** Drops every run of spaces/tabs that ends right before a newline. */
export function dropSpaceBeforeNewlines(text: string): string {
	const out: string[] = [];
	let chunkStart = 0;
	let i = 0;
	while (i < text.length) {
		const c = text.charCodeAt(i);
		if (c !== codeSpace && c !== codeTab) {
			i++;
			continue;
		}
		let j = i + 1;
		while (j < text.length && (text.charCodeAt(j) === codeSpace || text.charCodeAt(j) === codeTab)) j++;
		if (j < text.length && text.charCodeAt(j) === codeNewline) {
			out.push(text.slice(chunkStart, i));
			chunkStart = j;
		}
		i = j;
	}
	out.push(text.slice(chunkStart));
	return out.join("");
}

/** Replaces every run of three or more newlines with exactly two. */
export function capNewlineRuns(text: string): string {
	const out: string[] = [];
	let chunkStart = 0;
	let i = 0;
	while (i < text.length) {
		if (text.charCodeAt(i) !== codeNewline) {
			i++;
			continue;
		}
		let j = i + 1;
		while (j < text.length && text.charCodeAt(j) === codeNewline) j++;
		if (j - i >= 3) {
			out.push(text.slice(chunkStart, i), "\n\n");
			chunkStart = j;
		}
		i = j;
	}
	out.push(text.slice(chunkStart));
	return out.join("");
}

/** The tidy-up, in the original order: spaces before newlines first, then newline runs. */
export function tidyWhitespace(text: string): string {
	return capNewlineRuns(dropSpaceBeforeNewlines(text));
}

/** Removal in full: cut, tidy, trim. */
export function removeRanges(text: string, ranges: readonly TextRange[]): string {
	return tidyWhitespace(cutRanges(text, ranges)).trim();
}
