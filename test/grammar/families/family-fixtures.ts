/**
 * Fixture runner for the family tests, and the registry's view of the families for checks over all of them.
 *
 * A fixture is `test/grammar/fixtures/<family>/<variant>.txt` (the scanned
 * text, as a model would print it) plus `<variant>.json` beside it:
 * `{ description, candidates: [{ name, arguments, text?, stripOnly?, reasoning? }] }`
 * listing, in order, every candidate the family parser reports. `text` is the
 * exact substring the candidate's range covers; when absent, the range covers
 * the whole fixture without its surrounding whitespace.
 */
import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FAMILY_STEPS } from "../../../src/grammar/families/index.ts";
import { createScanContext } from "../../../src/grammar/fences.ts";
import type { FamilyParser, GrammarCandidate, GrammarName } from "../../../src/grammar/types.ts";
import { seeded } from "../seed.ts";

export interface ExpectedCandidate {
	name: string;
	arguments: Record<string, unknown>;
	text?: string;
	stripOnly?: boolean;
	reasoning?: boolean;
}

export interface FamilyFixture {
	variant: string;
	text: string;
	description: string;
	candidates: ExpectedCandidate[];
}

const FIXTURES = new URL("../fixtures/", import.meta.url);

export function loadFixtures(family: string): FamilyFixture[] {
	const dir = new URL(`${family}/`, FIXTURES);
	return readdirSync(dir)
		.filter((file) => file.endsWith(".txt"))
		.sort()
		.map((file) => {
			const variant = file.slice(0, -".txt".length);
			const text = readFileSync(new URL(file, dir), "utf8");
			const expected = JSON.parse(readFileSync(new URL(`${variant}.json`, dir), "utf8")) as {
				description: string;
				candidates: ExpectedCandidate[];
			};
			return { variant, text, description: expected.description, candidates: expected.candidates };
		});
}

/** A candidate as the fixtures describe it: covered text instead of offsets, flags only when set. */
export function describeCandidate(text: string, candidate: GrammarCandidate): ExpectedCandidate {
	const out: ExpectedCandidate = {
		name: candidate.name,
		arguments: candidate.arguments,
		text: text.slice(candidate.start, candidate.end),
	};
	if (candidate.stripOnly) out.stripOnly = true;
	if (candidate.reasoning) out.reasoning = true;
	return out;
}

/** Every grammar the family registry serves, in registry order: checks over "every family" iterate this. */
export const REGISTERED_GRAMMARS: readonly GrammarName[] = [...new Set(FAMILY_STEPS.flatMap((step) => step.grammars))];

/**
 * One grammar's share of the registry: every candidate the steps serving it
 * report, unselected, narrowed to its label (the `<tool_call>` wrapper serves
 * several grammars at once).
 */
export function registeredParser(grammar: GrammarName): FamilyParser {
	const steps = FAMILY_STEPS.filter((step) => step.grammars.includes(grammar));
	return (context) => steps.flatMap((step) => step.parse(context)).filter((found) => found.grammar === grammar);
}

export function runParser(parser: FamilyParser, text: string): GrammarCandidate[] {
	return parser(createScanContext(text));
}

/** One test per fixture of `family`: the parser reports exactly the listed candidates, labelled `grammar`. */
export function describeFixtures(family: string, grammar: GrammarName, parser: FamilyParser): void {
	describe(`${family} fixtures`, () => {
		const fixtures = loadFixtures(family);
		it("has fixtures to check", () => {
			expect(fixtures.length).toBeGreaterThan(5);
		});
		for (const fixture of fixtures) {
			it(`${fixture.variant}: ${fixture.description}`, () => {
				const found = runParser(parser, fixture.text);
				const expected = fixture.candidates.map((candidate) => ({
					...candidate,
					text: candidate.text ?? fixture.text.trim(),
				}));
				expect(found.map((candidate) => describeCandidate(fixture.text, candidate))).toEqual(expected);
				for (const candidate of found) expect(candidate.grammar).toBe(grammar);
			});
		}
	});
}

/**
 * Every prefix of every fixture (half-written markup, the way a stream is cut
 * off) parses without throwing, and never yields a candidate reaching past
 * the prefix.
 */
export function describeTruncation(family: string, parser: FamilyParser): void {
	describe(`${family} on cut-off text`, () => {
		it("never throws and keeps every range inside the text for every prefix of every fixture", () => {
			for (const fixture of loadFixtures(family)) {
				for (let cut = 0; cut <= fixture.text.length; cut++) {
					const prefix = fixture.text.slice(0, cut);
					for (const candidate of runParser(parser, prefix)) {
						expect(candidate.start).toBeGreaterThanOrEqual(0);
						expect(candidate.end).toBeGreaterThan(candidate.start);
						expect(candidate.end).toBeLessThanOrEqual(prefix.length);
					}
				}
			}
		});
	});
}

export interface Renderer {
	render(call: { name: string; arguments: Record<string, unknown> }): string;
	renderable(call: { name: string; arguments: Record<string, unknown> }): boolean;
}

/** Random calls: identifier-like names, JSON argument objects. */
export const callArbitrary = fc.record({
	name: fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.-]{0,15}$/),
	arguments: fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }),
});

/** Rendering a random call in the family's grammar and parsing it back gives the same call. */
export function describeRoundTrip(
	family: string,
	grammar: GrammarName,
	parser: FamilyParser,
	renderer: Renderer,
): void {
	describe(`${family} round trip`, () => {
		it("parses every rendered call back to the same name and arguments", () => {
			fc.assert(
				fc.property(
					callArbitrary.filter((call) => renderer.renderable(call)),
					(call) => {
						const text = renderer.render(call);
						const calls = runParser(parser, text).filter((candidate) => !candidate.stripOnly);
						expect(calls.length).toBeGreaterThan(0);
						const expected = JSON.parse(JSON.stringify(call.arguments)) as unknown;
						for (const candidate of calls) {
							expect(candidate.grammar).toBe(grammar);
							expect(candidate.name).toBe(call.name);
							expect(candidate.arguments).toEqual(expected);
						}
					},
				),
				seeded(300),
			);
		});
	});
}

/**
 * Long runs of a family's own tokens (markup opened and never closed, the
 * worst case for a scanner that searches ahead) come back without throwing,
 * with every range inside the text. No timing assertion: a scan that went
 * quadratic would run into the test timeout instead.
 */
export function describeAdversarial(family: string, parser: FamilyParser, units: readonly string[]): void {
	describe(`${family} on adversarial text`, () => {
		it.each(units.map((unit) => [unit]))("returns on 256 KiB of %j repeated", (unit) => {
			const text = unit.repeat(Math.ceil((256 * 1024) / unit.length));
			const found = runParser(parser, text);
			expect(Array.isArray(found)).toBe(true);
			for (const candidate of found) {
				expect(candidate.start).toBeGreaterThanOrEqual(0);
				expect(candidate.end).toBeLessThanOrEqual(text.length);
			}
		});
	});
}

function isPlainRecord(value: unknown): boolean {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Random soups of a family's tokens, JSON punctuation and short strings:
 * every candidate has a range inside the text and an argument object; a
 * strip-only marker has no name and no arguments, anything else a non-blank
 * name.
 */
export function describeTokenSoup(family: string, parser: FamilyParser, tokens: readonly string[]): void {
	describe(`${family} on token soup`, () => {
		const piece = fc.oneof(
			fc.constantFrom(...tokens),
			fc.constantFrom("{", "}", "[", "]", "(", ")", '"', "'", ":", ",", "\n", " ", "```", "\\"),
			fc.string({ maxLength: 6 }),
		);
		it("keeps every candidate well-formed", () => {
			fc.assert(
				fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
					const text = pieces.join("");
					for (const candidate of runParser(parser, text)) {
						expect(candidate.start).toBeGreaterThanOrEqual(0);
						expect(candidate.end).toBeGreaterThan(candidate.start);
						expect(candidate.end).toBeLessThanOrEqual(text.length);
						expect(isPlainRecord(candidate.arguments)).toBe(true);
						// A strip-only marker has neither a name nor arguments; every other candidate (a call,
						// an ambiguous call kept strip-only, DSML debris named for its target) has a name.
						if (candidate.stripOnly === true && candidate.name === "") {
							expect(candidate.arguments).toEqual({});
							expect(candidate.rawArguments).toBeUndefined();
						} else {
							expect(candidate.name.trim()).not.toBe("");
						}
					}
				}),
				seeded(400),
			);
		});
	});
}
