/**
 * The code-fence index of one scanned text (extension-contract §2.6): an
 * offset is inside a fence when an odd number of triple-backtick runs end at or
 * before it. Only ``` counts (no `~~~`, no single backticks); runs are taken
 * greedily left to right, so four backticks are one fence plus one stray
 * backtick, six are two fences.
 *
 * Built in one pass (O(n)); each query is a binary search (O(log n)) over the
 * sorted fence end offsets, so checking every candidate of a long text with
 * many fences stays linear overall.
 */
import { OffsetList } from "./scan.ts";
import type { GrammarName, ScanContext } from "./types.ts";
import { GRAMMAR_NAMES } from "./types.ts";

const FENCE = "```";

/** End offsets (exclusive) of every greedy ``` occurrence, ascending. */
export function fenceEnds(text: string): Int32Array {
	const ends = new OffsetList();
	let at = text.indexOf(FENCE);
	while (at !== -1) {
		ends.push(at + FENCE.length);
		at = text.indexOf(FENCE, at + FENCE.length);
	}
	return ends.view();
}

/** How many entries of the ascending `ends` are `<= offset`. */
function countAtOrBefore(ends: Int32Array, offset: number): number {
	let low = 0;
	let high = ends.length;
	while (low < high) {
		const mid = (low + high) >>> 1;
		if ((ends[mid] ?? 0) <= offset) low = mid + 1;
		else high = mid;
	}
	return low;
}

/** The fence test over a precomputed index: odd count of fences completed before `offset`. */
export function createFenceIndex(text: string): (offset: number) => boolean {
	const ends = fenceEnds(text);
	if (ends.length === 0) return () => false;
	return (offset) => countAtOrBefore(ends, offset) % 2 === 1;
}

/** A scan context for `text` with the given families enabled (default: all). */
export function createScanContext(text: string, enabled?: Iterable<GrammarName>): ScanContext {
	const isInsideFence = createFenceIndex(text);
	return {
		text,
		isInsideFence,
		enabled: new Set<GrammarName>(enabled ?? GRAMMAR_NAMES),
	};
}
