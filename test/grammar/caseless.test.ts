import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { allIndexesOf, asciiLowerCase, CaselessText, indexOfBefore } from "../../src/grammar/scan.ts";
import { seeded } from "./seed.ts";

/** Characters that exercise every path: tag openers, folding, the Kelvin sign and the growing U+0130. */
const PIECES = [
	"<",
	"/",
	"|",
	">",
	"_",
	" ",
	"t",
	"T",
	"o",
	"O",
	"l",
	"k",
	"K",
	"\u212a",
	"\u0130",
	"i",
	"n",
	"v",
	"e",
];
const NEEDLES = ["<tool>", "</tool", "<|tol", "<t", "tool_", "invoke", "<think>", "k", "ol>", "<", "<<", "</"];

const texts = fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((parts) => parts.join(""));
const offsets = fc.integer({ min: -2, max: 45 });

describe("caseless literal search answers exactly as a search of the lower-cased text", () => {
	it("indexOf, lastIndexOf, startsWith and charCodeAt", () => {
		fc.assert(
			fc.property(texts, fc.constantFrom(...NEEDLES), offsets, (text, needle, from) => {
				const lower = asciiLowerCase(text);
				const caseless = new CaselessText(text);
				expect(caseless.indexOf(needle, from)).toBe(lower.indexOf(needle, from));
				expect(caseless.lastIndexOf(needle, from)).toBe(lower.lastIndexOf(needle, from));
				expect(caseless.startsWith(needle, from)).toBe(lower.startsWith(needle, from));
				if (from >= 0 && from < text.length) expect(caseless.charCodeAt(from)).toBe(lower.charCodeAt(from));
			}),
			seeded(3000),
		);
	});

	it("bounded and repeated searches", () => {
		fc.assert(
			fc.property(texts, fc.constantFrom(...NEEDLES), offsets, offsets, (text, needle, from, limit) => {
				const lower = asciiLowerCase(text);
				const caseless = new CaselessText(text);
				expect(indexOfBefore(caseless, needle, from, limit)).toBe(indexOfBefore(lower, needle, from, limit));
				expect(allIndexesOf(caseless, needle, from, limit)).toEqual(allIndexesOf(lower, needle, from, limit));
			}),
			seeded(3000),
		);
	});

	it("never finds a needle holding an upper-case letter, as a lowered text holds none", () => {
		expect(new CaselessText("<TOOL>").indexOf("<TOOL>")).toBe(-1);
		expect(new CaselessText("<TOOL>").lastIndexOf("<TOOL>")).toBe(-1);
	});

	it("folds the Kelvin sign to k only where full lower-casing keeps the length", () => {
		expect(new CaselessText("<thin\u212a>").indexOf("<think>")).toBe(0);
		expect(new CaselessText("\u0130<thin\u212a>").indexOf("<think>")).toBe(-1);
	});
});
