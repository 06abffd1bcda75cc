/**
 * Every registered family's fixtures read through the public
 * `parseToolGrammarLeaks` with every family enabled give what the fixture's
 * own family gives alone: no other family's scan steals, splits or
 * duplicates these leaks. The exceptions are listed with the family that
 * rightly claims the text.
 */
import { describe, expect, it } from "vitest";
import { parseToolGrammarLeaks } from "../../../src/grammar/index.ts";
import type { GrammarName } from "../../../src/grammar/types.ts";
import { loadFixtures, REGISTERED_GRAMMARS } from "./family-fixtures.ts";

/** `family/variant` → what every family together reads there instead, and why. */
const CLAIMED_ELSEWHERE: Record<string, { grammar: GrammarName; why: string }> = {
	"llama/bare-object": {
		grammar: "mistral",
		why: "bare JSON is promoted once, under the first family",
	},
	"olmo/invoke-body": { grammar: "invoke", why: "an Anthropic-style body is invoke XML" },
	"olmo/unclosed": { grammar: "granite", why: "a line-leading pythonic call outside a block is granite's" },
};

describe("every family's fixtures with every family enabled", () => {
	it("covers all 13 registered families", () => {
		expect(REGISTERED_GRAMMARS).toHaveLength(13);
	});

	for (const family of REGISTERED_GRAMMARS) {
		for (const fixture of loadFixtures(family)) {
			const key = `${family}/${fixture.variant}`;
			const claimed = CLAIMED_ELSEWHERE[key];
			if (claimed) {
				it(`${key} is read as ${claimed.grammar}: ${claimed.why}`, () => {
					const found = parseToolGrammarLeaks(fixture.text);
					expect(found.length).toBeGreaterThan(0);
					for (const call of found) expect(call.grammar).toBe(claimed.grammar);
				});
				continue;
			}
			it(`${key} reads the same as with ${family} alone`, () => {
				expect(parseToolGrammarLeaks(fixture.text)).toEqual(parseToolGrammarLeaks(fixture.text, [family]));
			});
		}
	}
});
