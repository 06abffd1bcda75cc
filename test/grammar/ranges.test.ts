import { describe, expect, it } from "vitest";
import { capNewlineRuns, cutRanges, dropSpaceBeforeNewlines, removeRanges } from "../../src/grammar/ranges.ts";

describe("removeRanges", () => {
	it("cuts ranges in any order and tolerates overlaps and duplicates", () => {
		expect(
			cutRanges("0123456789", [
				{ start: 6, end: 8 },
				{ start: 1, end: 3 },
				{ start: 2, end: 4 },
				{ start: 6, end: 8 },
			]),
		).toBe("04589");
	});

	it("drops spaces and tabs before newlines, then caps newline runs at two, then trims", () => {
		const text = "  Intro \t\n \n\nCALL\n\n\n\nOutro  ";
		const start = text.indexOf("CALL");
		expect(removeRanges(text, [{ start, end: start + 4 }])).toBe("Intro\n\nOutro");
	});

	it("keeps spaces that are not before a newline", () => {
		expect(dropSpaceBeforeNewlines("a  b \nc")).toBe("a  b\nc");
	});

	it("leaves one or two newlines as they are", () => {
		expect(capNewlineRuns("a\nb\n\nc\n\n\n\n\nd")).toBe("a\nb\n\nc\n\nd");
	});

	it("handles a megabyte of spaces without a newline", () => {
		const text = `${" ".repeat(1 << 20)}x`;
		expect(removeRanges(text, [{ start: 0, end: 1 }])).toBe("x");
	});
});
