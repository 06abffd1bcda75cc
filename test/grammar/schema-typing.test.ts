import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { schemaTypes, typeArgumentsFromSchema } from "../../src/grammar/schema-typing.ts";

const plain = {
	type: "object",
	properties: {
		path: { type: "string" },
		limit: { type: "integer" },
		ratio: { type: "number" },
		force: { type: "boolean" },
		tags: { type: "array", items: { type: "string" } },
		meta: { type: "object" },
		either: { anyOf: [{ type: "string" }, { type: "null" }] },
	},
};

describe("typing recovered values from the schema", () => {
	it("gives a string field its source text when the coerced value is not a string", () => {
		expect(typeArgumentsFromSchema({ path: 5 }, plain, { path: "5" })).toEqual({ path: "5" });
		expect(typeArgumentsFromSchema({ path: { a: 1 } }, plain, { path: '{"a": 1}' })).toEqual({ path: '{"a": 1}' });
	});

	it("leaves a non-string without source text alone", () => {
		expect(typeArgumentsFromSchema({ path: 5 }, plain)).toEqual({ path: 5 });
	});

	it("converts exact text to the wanted non-string type", () => {
		expect(
			typeArgumentsFromSchema({ limit: "20", ratio: "0.5", force: "true", tags: '["a"]', meta: '{"k": 1}' }, plain),
		).toEqual({ limit: 20, ratio: 0.5, force: true, tags: ["a"], meta: { k: 1 } });
	});

	it.each([
		["limit", "2.5"],
		["limit", "0x10"],
		["limit", " "],
		["force", "yes"],
		["tags", "['a']"],
		["tags", '{"a": 1}'],
	])("never guesses: %s = %j stays as it is", (key, value) => {
		expect(typeArgumentsFromSchema({ [key]: value }, plain)).toEqual({ [key]: value });
	});

	it("keeps a value already of an allowed type", () => {
		expect(typeArgumentsFromSchema({ either: null, limit: 3 }, plain)).toEqual({ either: null, limit: 3 });
	});

	it("keeps unknown fields and works without properties", () => {
		expect(typeArgumentsFromSchema({ other: "5" }, plain)).toEqual({ other: "5" });
		expect(typeArgumentsFromSchema({ a: "5" }, { type: "object" })).toEqual({ a: "5" });
	});

	it("reads TypeBox schemas like plain ones", () => {
		const schema = Type.Object({ path: Type.String(), limit: Type.Optional(Type.Integer()) });
		expect(typeArgumentsFromSchema({ path: 7, limit: "7" }, schema, { path: "7" })).toEqual({ path: "7", limit: 7 });
	});

	it("collects types from type arrays, anyOf, const and enum", () => {
		expect([...schemaTypes({ type: ["string", "null"] })]).toEqual(["string", "null"]);
		expect([...schemaTypes({ enum: [1, "a"] })].sort()).toEqual(["number", "string"]);
		expect([...schemaTypes({ const: true })]).toEqual(["boolean"]);
	});

	it("does not mutate the arguments", () => {
		const args = { limit: "1" };
		typeArgumentsFromSchema(args, plain);
		expect(args).toEqual({ limit: "1" });
	});
});
