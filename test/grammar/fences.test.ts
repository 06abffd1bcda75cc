import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createQuotedIndex, createScanContext, quotedRegions } from "../../src/grammar/fences.ts";
import { GRAMMAR_NAMES } from "../../src/grammar/types.ts";
import { seeded } from "./seed.ts";

/** The quoted state at the offset of `marker` (which must occur once). */
function quotedAt(text: string, marker: string): boolean {
	const at = text.indexOf(marker);
	expect(at).toBeGreaterThanOrEqual(0);
	return createQuotedIndex(text)(at);
}

describe("quoted-region index", () => {
	it.each([
		["a backtick fence", "a\n```\nQ\n```\nP"],
		["a tilde fence", "a\n~~~ text\nQ\n~~~\nP"],
		["a fence closed only by the same character", "```\n~~~\nQ\n```\nP"],
		["a fence closed only by at least its length", "````\n```\nQ\n````\nP"],
		["a fence whose closer may be longer", "```\nQ\n`````\nP"],
		["an unclosed fence, to the end", "P\n```\nQ"],
		["a fence indented up to three spaces", "P\n   ```\nQ\n   ```\nP"],
		["a fence after a list marker", "- ```\n  Q\n  ```\nP"],
		["indented code after a blank line", "P\n\n    Q\n\nP"],
		["indented code at the start", "    Q\nP"],
		["indented code with a blank line inside", "P\n\n    x\n\n    Q\nP"],
		["a blockquote line", "P\n> Q\n\nP"],
		["a lazy blockquote line", "> x\nQ\n\nP"],
		["a single-backtick span", "P `Q` P"],
		["a double-backtick span holding a backtick", "P `` ` Q `` P"],
		["a span across lines of one paragraph", "P `x\nQ` P"],
		["a line-leading <pre>", "P\n<pre>\nQ\n</pre>\nP"],
		["an in-line <Pre>", "P <Pre class='x'>Q</pre> P"],
		["an unclosed <pre>", "P\n<pre>\nQ"],
	])("quotes %s and nothing outside it", (_form, text) => {
		expect(quotedAt(text, "Q")).toBe(true);
		const last = text.lastIndexOf("P");
		if (last > text.indexOf("Q")) expect(createQuotedIndex(text)(last)).toBe(false);
	});

	it.each([
		["a fence mark in the middle of a line", "The mark ``` here\nP"],
		["a fence mark in a JSON string", '{"fence": "```"}\nP'],
		["a backtick fence whose info string holds a backtick", "```a`b\nP"],
		["a stray backtick", "a ` b\nP"],
		["a span that would cross a blank line", "a ` b\n\nP ` c"],
		["a span that would cross into a list item", "- a ` b\n- P ` c"],
		["an escaped backtick", "\\`P` c"],
		["indented text continuing a paragraph", "a\n    P"],
		["a four-space-indented closer line inside a fence, which is content", "```\n    ```\nQ\n```\nP"],
		["text after a blank line ends a blockquote", "> a\n\nP"],
	])("does not quote the P after %s", (_form, text) => {
		expect(quotedAt(text, "P")).toBe(false);
	});

	it("keeps a four-space-indented closer from closing its fence", () => {
		expect(quotedAt("```\n    ```\nQ\n```\nP", "Q")).toBe(true);
	});

	it("opens a new fence at a closer less indented than a list item's fence", () => {
		expect(quotedAt("- ```\n  x\n```\nQ\n```\nP", "Q")).toBe(true);
	});

	it("returns sorted, disjoint regions", () => {
		const { starts, ends } = quotedRegions("`a` `b`\n\n```\nx\n```\n> q\n\n    code\n");
		for (let i = 0; i < starts.length; i++) {
			expect(ends[i] ?? 0).toBeGreaterThan(starts[i] ?? 0);
			if (i > 0) expect(starts[i] ?? 0).toBeGreaterThan(ends[i - 1] ?? 0);
		}
		expect(starts.length).toBe(5);
	});

	it("builds a context with every family enabled by default", () => {
		expect([...createScanContext("t").enabled]).toEqual([...GRAMMAR_NAMES]);
		expect([...createScanContext("t", ["glm"]).enabled]).toEqual(["glm"]);
	});
});

type Block =
	| { kind: "prose"; words: string[] }
	| { kind: "fence"; char: "`" | "~"; length: number; inner: number }
	| { kind: "indented" }
	| { kind: "quote" }
	| { kind: "span"; length: number };

/**
 * A document of top-level blocks separated by blank lines. Every quoted block
 * holds one `Q#`, every prose block one `P#`; fences hold shorter fence lines
 * of their own character and full fence lines of the other one, which must
 * not close them.
 */
function render(blocks: Block[]): { text: string; quoted: string[]; prose: string[] } {
	const quoted: string[] = [];
	const prose: string[] = [];
	const out = blocks.map((block, i): string => {
		switch (block.kind) {
			case "prose":
				prose.push(`P${i}#`);
				return `w ${block.words.join(" ")} P${i}# end`;
			case "fence": {
				quoted.push(`Q${i}#`);
				const fence = block.char.repeat(block.length);
				const other = (block.char === "`" ? "~" : "`").repeat(block.length + 1);
				const inner = block.char.repeat(Math.min(block.inner, block.length - 1));
				return `${fence}lang\n${inner}\n${other}\n  ${inner}\nQ${i}#\n${fence}`;
			}
			case "indented":
				quoted.push(`Q${i}#`);
				return `    code line\n\n    Q${i}#`;
			case "quote":
				quoted.push(`Q${i}#`);
				return `> quoted\n> Q${i}#`;
			case "span": {
				prose.push(`P${i}#`);
				quoted.push(`Q${i}#`);
				const ticks = "`".repeat(block.length);
				const shorter = "`".repeat(block.length - 1);
				return `say ${ticks} ${shorter} Q${i}# ${ticks} then P${i}#`;
			}
			default:
				return "";
		}
	});
	return { text: out.join("\n\n"), quoted, prose };
}

const block: fc.Arbitrary<Block> = fc.oneof(
	fc.record({
		kind: fc.constant("prose" as const),
		words: fc.array(fc.constantFrom("a", "b`", "``", "x ```", "~~~ y", "\\`", "<p>", "c"), { maxLength: 5 }),
	}),
	fc.record({
		kind: fc.constant("fence" as const),
		char: fc.constantFrom("`" as const, "~" as const),
		length: fc.integer({ min: 3, max: 6 }),
		inner: fc.integer({ min: 1, max: 5 }),
	}),
	fc.constant({ kind: "indented" as const }),
	fc.constant({ kind: "quote" as const }),
	fc.record({ kind: fc.constant("span" as const), length: fc.integer({ min: 2, max: 4 }) }),
);

describe("quoted-region index, generated documents", () => {
	it("quotes every marker in a quoted block and none in prose", () => {
		fc.assert(
			fc.property(fc.array(block, { maxLength: 12 }), (blocks) => {
				const { text, quoted, prose } = render(blocks);
				const inside = createQuotedIndex(text);
				for (const marker of quoted) expect(inside(text.indexOf(marker)), marker).toBe(true);
				for (const marker of prose) expect(inside(text.indexOf(marker)), marker).toBe(false);
			}),
			seeded(300),
		);
	});
});
