import { describe, expect, it } from "vitest";
import { createFenceIndex, createScanContext, fenceEnds } from "../../src/grammar/fences.ts";
import { GRAMMAR_NAMES } from "../../src/grammar/types.ts";

/** The definition, spelled out: an odd number of ``` runs completed before the offset. */
function naiveInside(text: string, offset: number): boolean {
	return (text.slice(0, offset).split("```").length - 1) % 2 === 1;
}

describe("code-fence index (§2.6)", () => {
	it("marks offsets after an opening fence and before its closer", () => {
		const text = "a ```\nb\n``` c";
		const inside = createFenceIndex(text);
		expect(inside(0)).toBe(false);
		expect(inside(6)).toBe(true);
		expect(inside(text.length)).toBe(false);
	});

	it("counts only triple backticks, greedily: four are one fence, six are two", () => {
		expect(fenceEnds("````").length).toBe(1);
		expect(fenceEnds("``````").length).toBe(2);
		expect(createFenceIndex("~~~\nx")(4)).toBe(false);
		expect(createFenceIndex("`x`")(2)).toBe(false);
	});

	it("agrees with the naive count at every offset of mixed text", () => {
		const text = "x ``` y ```` z `` ``` w ``````` q ```\n~~~ ``` end";
		const inside = createFenceIndex(text);
		for (let offset = 0; offset <= text.length; offset++) expect(inside(offset)).toBe(naiveInside(text, offset));
	});

	it("builds a context with every family enabled by default", () => {
		expect([...createScanContext("t").enabled]).toEqual([...GRAMMAR_NAMES]);
		expect([...createScanContext("t", ["glm"]).enabled]).toEqual(["glm"]);
	});
});
