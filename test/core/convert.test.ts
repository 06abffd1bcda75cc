import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { convertToSchema } from "../../src/core/convert.ts";

const numbers = Type.Object({ n: Type.Optional(Type.Number()), i: Type.Optional(Type.Integer()) });

describe("numeric strings become numbers only where the schema wants a number", () => {
	it("converts decimal JSON number text", () => {
		expect(convertToSchema(numbers, { n: "7" })).toEqual({ n: 7 });
		expect(convertToSchema(numbers, { n: "-0.25" })).toEqual({ n: -0.25 });
	});

	it("leaves empty, padded, hex, exponent, non-numeric and infinite text alone", () => {
		for (const text of ["", "  ", " 7 ", "0x10", "1e3", "+1", "07", "1.", "abc", "Infinity", "-Infinity", "NaN"]) {
			const input = { n: text };
			expect(convertToSchema(numbers, input)).toBe(input);
		}
	});

	it("requires an integer for an integer field", () => {
		expect(convertToSchema(numbers, { i: "4" })).toEqual({ i: 4 });
		const fractional = { i: "4.5" };
		expect(convertToSchema(numbers, fractional)).toBe(fractional);
	});
});

describe("scalars become strings or booleans only by their exact text", () => {
	const schema = Type.Object({ s: Type.Optional(Type.String()), b: Type.Optional(Type.Boolean()) });

	it("turns a number into its decimal text, never a boolean into true/false", () => {
		expect(convertToSchema(schema, { s: 4164 })).toEqual({ s: "4164" });
		for (const value of [false, true, 1e21, 1e-7]) {
			const input = { s: value };
			expect(convertToSchema(schema, input)).toBe(input);
		}
	});

	it("reads true/false case-insensitively for a boolean field and nothing else", () => {
		expect(convertToSchema(schema, { b: "TRUE" })).toEqual({ b: true });
		expect(convertToSchema(schema, { b: "False" })).toEqual({ b: false });
		for (const other of ["yes", "1", 1, 0]) {
			const input = { b: other };
			expect(convertToSchema(schema, input)).toBe(input);
		}
	});
});

describe("conversion never invents values", () => {
	it("never turns null into a string, a number or a boolean", () => {
		const schema = Type.Object({ s: Type.String(), n: Type.Number(), b: Type.Boolean() });
		const input = { s: null, n: null, b: null };
		expect(convertToSchema(schema, input)).toBe(input);
	});

	it("never wraps a value into an array or unwraps one", () => {
		const schema = Type.Object({ list: Type.Array(Type.String()), one: Type.String() });
		const input = { list: "a", one: ["a"] };
		expect(convertToSchema(schema, input)).toBe(input);
		const root = { a: 1 };
		expect(convertToSchema(Type.Array(Type.Object({ a: Type.Number() })), root)).toBe(root);
	});

	it("never trades an object for an array", () => {
		const schema = Type.Object({ o: Type.Object({}), a: Type.Array(Type.Number()) });
		const input = { o: [], a: {} };
		expect(convertToSchema(schema, input)).toBe(input);
	});
});

describe("the walk follows the schema's structure", () => {
	it("converts array items and nested properties, copy-on-write", () => {
		const schema = Type.Object({
			items: Type.Array(Type.String()),
			nested: Type.Object({ n: Type.Number() }),
			untouched: Type.Object({ keep: Type.String() }),
		});
		const input = { items: [1, "b", 2], nested: { n: "3" }, untouched: { keep: "k" } };
		const out = convertToSchema(schema, input) as typeof input;
		expect(out).toEqual({ items: ["1", "b", "2"], nested: { n: 3 }, untouched: { keep: "k" } });
		expect(out.untouched).toBe(input.untouched);
		expect(input.items).toEqual([1, "b", 2]);
	});

	it("converts under schema-form additionalProperties", () => {
		const schema = Type.Record(Type.String(), Type.Number());
		const plain = { type: "object", additionalProperties: { type: "number" } };
		expect(convertToSchema(plain as never, { a: "1" })).toEqual({ a: 1 });
		expect(convertToSchema(schema, { a: "1" })).toEqual({ a: 1 });
	});

	it("keeps a value that already matches a union branch and otherwise takes the first branch that passes", () => {
		const schema = Type.Object({ u: Type.Union([Type.Number(), Type.Boolean()]) });
		const valid = { u: true };
		expect(convertToSchema(schema, valid)).toBe(valid);
		expect(convertToSchema(schema, { u: "5" })).toEqual({ u: 5 });
		expect(convertToSchema(schema, { u: "true" })).toEqual({ u: true });
	});

	it("works for plain JSON Schema the same as for TypeBox", () => {
		const plain = {
			type: "object",
			properties: {
				path: { type: "string" },
				limit: { type: "integer" },
				flags: { type: "array", items: { type: "boolean" } },
			},
		};
		expect(convertToSchema(plain as never, { path: 5, limit: "2", flags: ["true"] })).toEqual({
			path: "5",
			limit: 2,
			flags: [true],
		});
	});

	it("returns the same reference when nothing needs converting", () => {
		const schema = Type.Object({ path: Type.String(), n: Type.Optional(Type.Number()) });
		const input = { path: "/a", n: 1, extra: "7" };
		expect(convertToSchema(schema, input)).toBe(input);
	});

	it("keeps an own __proto__ key as inert data when copying", () => {
		const schema = Type.Object({ n: Type.Number() });
		const input = JSON.parse('{"n":"1","__proto__":{"polluted":true}}') as Record<string, unknown>;
		const out = convertToSchema(schema, input) as Record<string, unknown>;
		expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
		expect(Object.hasOwn(out, "__proto__")).toBe(true);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});
});
