/**
 * Plain text (letters, digits, `_`, whitespace and `.,!?'-`) holds no tool-call
 * grammar, so detection answers it without running a family: a reply like
 * "done" costs one character scan instead of thirteen families' first run.
 *
 * The claim is checked against the families themselves, never against the
 * shortcut: every fixture and every rendered call of every family holds a
 * character outside the plain set, and plain text, family keywords included,
 * gives no candidate when every family runs over it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createScanContext } from "../../src/grammar/fences.ts";
import { collectCandidates, detectGrammarLeaks } from "../../src/grammar/parse.ts";
import { reasoningSpans } from "../../src/grammar/reasoning.ts";
import { mayHoldMarkup } from "../../src/grammar/scan.ts";
import { GRAMMAR_NAMES, type GrammarName } from "../../src/grammar/types.ts";
import { callArbitrary, loadFixtures, type Renderer } from "./families/family-fixtures.ts";
import { FAMILY_TOKENS } from "./families/family-tokens.ts";
import { seeded } from "./seed.ts";

const FIXTURE_FAMILIES = [
	"dsml",
	"gemma",
	"glm",
	"granite",
	"harmony",
	"invoke",
	"kimi",
	"kimi-xtml",
	"llama",
	"minimax-text",
	"mistral",
	"olmo",
	"qwen",
];

const renderers: Array<{ grammar: GrammarName; renderer: Renderer }> = [];
for (const grammar of GRAMMAR_NAMES) {
	renderers.push({
		grammar,
		renderer: (await import(new URL(`./render/${grammar}.ts`, import.meta.url).href)) as Renderer,
	});
}

/** Every candidate the thirteen families report for `text`, before selection. */
function everyFamily(text: string) {
	return collectCandidates(createScanContext(text));
}

/** Each family's tokens and keywords with everything outside the plain set taken out. */
const PLAIN_WORDS = [
	...new Set(
		Object.values(FAMILY_TOKENS)
			.flatMap((family) => [...family.tokens, ...family.units])
			.flatMap((token) => token.split(/[^A-Za-z0-9_\s.,!?'-]+/))
			.filter((word) => word !== ""),
	),
	"tool_call",
	"TOOL_CALLS",
	"functions.read",
	"to functions.bash",
	"call read",
	"python_tag",
	"invoke name read",
	"function_calls",
	"read path notes.txt",
	"bash command 'ls -la'",
];

const PLAIN_CHARS = [..."abcXYZ019_ \n\t.,!?'-"];
const plainText = fc
	.array(fc.oneof(fc.constantFrom(...PLAIN_WORDS), fc.constantFrom(...PLAIN_CHARS)), { maxLength: 40 })
	.map((parts) => parts.join(""));

describe("plain text", () => {
	it("the plain words really are plain", () => {
		for (const word of PLAIN_WORDS) expect(mayHoldMarkup(word)).toBe(false);
		expect(mayHoldMarkup("done")).toBe(false);
		expect(mayHoldMarkup("All set. It's done!")).toBe(false);
	});

	it("every family fixture that yields a candidate holds a character outside the plain set", () => {
		let checked = 0;
		for (const family of FIXTURE_FAMILIES) {
			for (const fixture of loadFixtures(family)) {
				if (everyFamily(fixture.text).length === 0) continue;
				checked++;
				expect(mayHoldMarkup(fixture.text), `${family}/${fixture.variant}`).toBe(true);
			}
		}
		expect(checked).toBeGreaterThan(100);
	});

	it("every rendered call of every family holds a character outside the plain set", () => {
		for (const { grammar, renderer } of renderers) {
			fc.assert(
				fc.property(
					callArbitrary.filter((call) => renderer.renderable(call)),
					(call) => {
						expect(mayHoldMarkup(renderer.render(call)), grammar).toBe(true);
					},
				),
				seeded(100),
			);
		}
	});

	it("plain text, family keywords included, gives no candidate from any family", () => {
		fc.assert(
			fc.property(plainText, (text) => {
				expect(mayHoldMarkup(text)).toBe(false);
				expect(everyFamily(text)).toEqual([]);
			}),
			seeded(2000),
		);
	});

	it("detection answers plain text with no candidate, and still finds a call once a marker is added", () => {
		expect(detectGrammarLeaks("done")).toEqual([]);
		const call = '<tool_call>{"name": "read", "arguments": {"path": "notes.txt"}}</tool_call>';
		expect(detectGrammarLeaks(`done ${call}`).map((candidate) => candidate.name)).toEqual(["read"]);
	});

	it("reasoning tags are never plain, so plain text holds no reasoning span", () => {
		for (const tagged of [
			"<think>x</think>",
			"[THINK]x[/THINK]",
			"\u25c1think\u25b7x\u25c1/think\u25b7",
			"<thinking>x",
		]) {
			expect(mayHoldMarkup(tagged), tagged).toBe(true);
			expect(reasoningSpans(tagged).length, tagged).toBeGreaterThan(0);
		}
		expect(reasoningSpans("think about it, then thinking is done")).toEqual([]);
	});
});
