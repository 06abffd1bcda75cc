import { describe, expect, it } from "vitest";
import { oneFamilyPerRange, selectCandidates, selectNonOverlapping } from "../../src/grammar/select.ts";
import type { GrammarCandidate, GrammarName } from "../../src/grammar/types.ts";

const at = (start: number, end: number, grammar: GrammarName = "qwen", name = "x"): GrammarCandidate => ({
	name,
	arguments: {},
	grammar,
	start,
	end,
});

describe("selection keeps one candidate per overlapping range", () => {
	it("keeps the longer of two candidates starting together and drops what overlaps it", () => {
		const outer = at(0, 10);
		expect(selectNonOverlapping([at(2, 5), at(0, 4), outer])).toEqual([outer]);
	});

	it("keeps every candidate sharing a kept range, in collection order", () => {
		const a = at(0, 10, "qwen", "a");
		const b = at(0, 10, "qwen", "b");
		expect(selectNonOverlapping([a, b])).toEqual([a, b]);
	});

	it("keeps touching ranges (end equals start) and discards empty ones", () => {
		expect(selectNonOverlapping([at(0, 5), at(5, 9), at(7, 7)])).toEqual([at(0, 5), at(5, 9)]);
	});

	it("sorts by start", () => {
		expect(selectNonOverlapping([at(20, 30), at(0, 5)]).map((c) => c.start)).toEqual([0, 20]);
	});
});

describe("a range claimed by two families goes to the earlier one", () => {
	it("keeps only the first family's candidates for an exact range", () => {
		const mistral = [at(0, 9, "mistral", "a"), at(0, 9, "mistral", "b")];
		const llama = [at(0, 9, "llama", "a"), at(0, 9, "llama", "b")];
		expect(selectCandidates([...mistral, ...llama])).toEqual(mistral);
	});

	it("leaves different ranges of different families alone", () => {
		const list = [at(0, 5, "mistral"), at(6, 9, "llama")];
		expect(oneFamilyPerRange(list)).toEqual(list);
	});
});
