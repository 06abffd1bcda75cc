import { describe, expect, it } from "vitest";
import { readsAsListLiteral } from "../../../src/core/list-literal.ts";
import type { IssueSite } from "../../../src/core/schema-repair/issue-sites.ts";
import { ISSUE_RULES, type RuleContext } from "../../../src/core/schema-repair/rules.ts";

const context: RuleContext = { toolName: "demo" };

/** The first rule of the table that applies to a site, applied. */
function fire(site: IssueSite): { id: string; note: string } | undefined {
	const rule = ISSUE_RULES.find((candidate) => candidate.applies(site, context));
	return rule === undefined ? undefined : { id: rule.id, note: rule.apply(site, context) };
}

describe("the rule table", () => {
	// Aliases are preprocessing rows (the engine config is translated into them), so the table renames nothing.
	it("has the original rules after the alias rename first, in order, the late-2026 shape rules before wrapping", () => {
		expect(ISSUE_RULES.map((rule) => rule.id)).toEqual([
			"dropNullOrUndefinedField",
			"dropEmptyObjectPlaceholder",
			"parseJsonStringifiedArray",
			"parseJsonStringifiedObject",
			"dropEmptyStringForOptionalField",
			"parseJsonWithRawControlCharacters",
			"unwrapSameNameWrapper",
			"unwrapSingletonArray",
			"rebuildFlattenedKeys",
			"wrapBareStringAsArray",
		]);
	});
});

describe("no rename", () => {
	it("never consults inherited names as aliases or canonical keys", () => {
		const parent = {};
		expect(fire({ parent, key: "constructor", keyword: "required" })).toBeUndefined();
		expect(fire({ parent: { other: "x", file_path: "/a" }, key: "path", keyword: "required" })).toBeUndefined();
	});
});

describe("dropNullOrUndefinedField", () => {
	it("deletes a present null and names null in its note", () => {
		const parent: Record<string, unknown> = { limit: null };
		const fired = fire({ parent, key: "limit", keyword: "type", expectedType: "number" });
		expect(fired?.id).toBe("dropNullOrUndefinedField");
		expect(parent).toEqual({});
		expect(fired?.note).toContain("null");
		expect(fired?.note).toContain("limit");
	});

	it("never drops an array element", () => {
		const parent = [null];
		expect(fire({ parent, key: 0, keyword: "type", expectedType: "string" })).toBeUndefined();
		expect(parent).toEqual([null]);
	});
});

describe("dropEmptyObjectPlaceholder", () => {
	it("deletes {} only where an array is expected", () => {
		const parent: Record<string, unknown> = { tags: {} };
		expect(fire({ parent, key: "tags", keyword: "type", expectedType: "array" })?.id).toBe(
			"dropEmptyObjectPlaceholder",
		);
		expect(parent).toEqual({});
		expect(fire({ parent: { tags: {} }, key: "tags", keyword: "type", expectedType: "string" })).toBeUndefined();
		expect(fire({ parent: { tags: { a: 1 } }, key: "tags", keyword: "type", expectedType: "array" })).toBeUndefined();
	});
});

describe("parsing JSON text", () => {
	it("parses trimmed array text where an array is expected, in an array parent too", () => {
		const parent = [' ["a"] '];
		expect(fire({ parent, key: 0, keyword: "type", expectedType: "array" })?.id).toBe("parseJsonStringifiedArray");
		expect(parent).toEqual([["a"]]);
	});

	it("parses object text where an object is expected and names the key", () => {
		const parent: Record<string, unknown> = { opts: '{"a":1}' };
		const fired = fire({ parent, key: "opts", keyword: "type", expectedType: "object" });
		expect(fired?.id).toBe("parseJsonStringifiedObject");
		expect(parent).toEqual({ opts: { a: 1 } });
		expect(fired?.note).toContain("opts");
	});

	it("never parses text where a string is expected", () => {
		expect(fire({ parent: { s: "[1]" }, key: "s", keyword: "type", expectedType: "string" })).toBeUndefined();
	});

	it("does not parse object text as an array or array text as an object", () => {
		expect(fire({ parent: { o: "[1]" }, key: "o", keyword: "type", expectedType: "object" })).toBeUndefined();
	});
});

describe("wrapBareStringAsArray", () => {
	it("wraps a plain string where an array is expected", () => {
		const parent: Record<string, unknown> = { ids: "p" };
		expect(fire({ parent, key: "ids", keyword: "type", expectedType: "array" })?.id).toBe("wrapBareStringAsArray");
		expect(parent).toEqual({ ids: ["p"] });
	});

	it("never wraps a list literal, broken or Python-style", () => {
		for (const text of ['["a",', "['a', 'b']", "  [1, 2"]) {
			expect(readsAsListLiteral(text)).toBe(true);
			const parent = { ids: text };
			expect(fire({ parent, key: "ids", keyword: "type", expectedType: "array" })).toBeUndefined();
			expect(parent.ids).toBe(text);
		}
	});
});
