import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cloneJson, jsonEqual } from "../../src/core/clone.ts";
import { isRecord } from "../../src/core/json-value.ts";

describe("isRecord", () => {
	it("accepts non-null non-array objects", () => {
		expect(isRecord({})).toBe(true);
		expect(isRecord(Object.create(null))).toBe(true);
	});
	it("rejects null, arrays and primitives", () => {
		expect(isRecord(null)).toBe(false);
		expect(isRecord([])).toBe(false);
		expect(isRecord("x")).toBe(false);
		expect(isRecord(1)).toBe(false);
		expect(isRecord(undefined)).toBe(false);
	});
});

describe("cloneJson", () => {
	it("returns primitives unchanged", () => {
		expect(cloneJson(1)).toBe(1);
		expect(cloneJson("s")).toBe("s");
		expect(cloneJson(null)).toBe(null);
		expect(cloneJson(true)).toBe(true);
	});

	it("copies nested containers so the copy shares no object with the source", () => {
		const source = { a: [1, { b: "c" }], d: { e: null } };
		const copy = cloneJson(source);
		expect(copy).toEqual(source);
		expect(copy).not.toBe(source);
		expect(copy.a).not.toBe(source.a);
		expect(copy.a[1]).not.toBe(source.a[1]);
		expect(copy.d).not.toBe(source.d);
	});

	it("keeps an own __proto__ key as an inert data property", () => {
		const source = JSON.parse('{"__proto__":{"polluted":true},"x":1}') as Record<string, unknown>;
		const copy = cloneJson(source);
		expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
		expect(Object.hasOwn(copy, "__proto__")).toBe(true);
		expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
		expect(Object.keys(copy)).toEqual(["__proto__", "x"]);
	});

	it("turns null-prototype records into plain objects", () => {
		const source = Object.create(null) as Record<string, unknown>;
		source.k = "v";
		const copy = cloneJson(source);
		expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
		expect(copy).toEqual({ k: "v" });
	});

	it("copies shared acyclic references per occurrence", () => {
		const shared = { v: 1 };
		const copy = cloneJson({ a: shared, b: shared });
		expect(copy.a).toEqual(shared);
		expect(copy.a).not.toBe(copy.b);
	});

	it("throws a TypeError on functions, symbols and cycles", () => {
		expect(() => cloneJson({ f: () => 1 })).toThrow(TypeError);
		expect(() => cloneJson([Symbol("s")])).toThrow(TypeError);
		const cyclic: Record<string, unknown> = {};
		cyclic.self = cyclic;
		expect(() => cloneJson(cyclic)).toThrow(TypeError);
	});

	it("produces a value structurally equal to any JSON value", () => {
		fc.assert(
			fc.property(fc.jsonValue(), (value) => {
				expect(jsonEqual(cloneJson(value), value)).toBe(true);
			}),
		);
	});
});

describe("jsonEqual", () => {
	it("ignores key order", () => {
		expect(jsonEqual({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBe(true);
	});
	it("distinguishes arrays from records and differing lengths", () => {
		expect(jsonEqual([], {})).toBe(false);
		expect(jsonEqual([1], [1, 2])).toBe(false);
		expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
		expect(jsonEqual({ a: 1, b: 2 }, { a: 1 })).toBe(false);
	});
	it("compares leaves strictly", () => {
		expect(jsonEqual("1", 1)).toBe(false);
		expect(jsonEqual(null, {})).toBe(false);
		expect(jsonEqual({ a: { b: "x" } }, { a: { b: "y" } })).toBe(false);
	});
	it("agrees with comparing stable JSON text for arbitrary values", () => {
		fc.assert(
			fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
				const sameText = JSON.stringify(sortDeep(a)) === JSON.stringify(sortDeep(b));
				expect(jsonEqual(a, b)).toBe(sameText);
			}),
		);
	});
});

function sortDeep(value: unknown): unknown {
	if (Array.isArray(value)) {
		return value.map(sortDeep);
	}
	if (isRecord(value)) {
		return Object.fromEntries(
			Object.keys(value)
				.sort()
				.map((key) => [key, sortDeep(value[key])]),
		);
	}
	return value;
}
