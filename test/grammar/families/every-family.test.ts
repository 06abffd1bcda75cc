/**
 * The adversarial and token-soup checks over every grammar family the
 * registry knows: a family added to the registry is covered by adding its
 * row to `family-tokens.ts` (the type check and the count below insist).
 */
import { describe, expect, it } from "vitest";
import { GRAMMAR_NAMES } from "../../../src/grammar/index.ts";
import { describeAdversarial, describeTokenSoup, REGISTERED_GRAMMARS, registeredParser } from "./family-fixtures.ts";
import { FAMILY_TOKENS } from "./family-tokens.ts";

describe("the family registry", () => {
	it("serves all 13 grammar families, each exactly once", () => {
		expect(REGISTERED_GRAMMARS).toHaveLength(13);
		expect([...REGISTERED_GRAMMARS].sort()).toEqual([...GRAMMAR_NAMES].sort());
	});

	it("has tokens for every family it serves and for no other", () => {
		expect(Object.keys(FAMILY_TOKENS).sort()).toEqual([...REGISTERED_GRAMMARS].sort());
	});
});

for (const grammar of REGISTERED_GRAMMARS) {
	const parser = registeredParser(grammar);
	describeAdversarial(grammar, parser, FAMILY_TOKENS[grammar].units);
	describeTokenSoup(grammar, parser, FAMILY_TOKENS[grammar].tokens);
}
