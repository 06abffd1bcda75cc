import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonEqual } from "../../src/core/clone.ts";
import { stableSerialize } from "../../src/core/stable-serialize.ts";

function shuffleKeys(value: unknown, seed: number): unknown {
	if (Array.isArray(value)) {
		return value.map((item) => shuffleKeys(item, seed));
	}
	if (typeof value === "object" && value !== null) {
		const keys = Object.keys(value);
		const rotated =
			keys.length === 0 ? keys : [...keys.slice(seed % keys.length), ...keys.slice(0, seed % keys.length)];
		const out: Record<string, unknown> = {};
		for (const key of rotated.reverse()) {
			Object.defineProperty(out, key, {
				value: shuffleKeys((value as Record<string, unknown>)[key], seed),
				enumerable: true,
				writable: true,
				configurable: true,
			});
		}
		return out;
	}
	return value;
}

describe("stableSerialize", () => {
	it("sorts keys at every level", () => {
		expect(stableSerialize({ b: 1, a: { d: 2, c: [3, { f: 1, e: 2 }] } })).toBe(
			'{"a":{"c":[3,{"e":2,"f":1}],"d":2},"b":1}',
		);
	});

	it("falls back to String for values with no JSON form", () => {
		expect(stableSerialize(undefined)).toBe("undefined");
		expect(stableSerialize(10n)).toBe("10");
	});

	it("serializes primitives as JSON", () => {
		expect(stableSerialize("s")).toBe('"s"');
		expect(stableSerialize(1)).toBe("1");
		expect(stableSerialize(null)).toBe("null");
	});

	it("drops properties whose value is undefined", () => {
		expect(stableSerialize({ a: undefined, b: 1 })).toBe('{"b":1}');
	});

	it("returns String(value) for a cyclic object", () => {
		const cyclic: Record<string, unknown> = {};
		cyclic.self = cyclic;
		expect(stableSerialize(cyclic)).toBe("[object Object]");
	});

	it("treats objects of any prototype by their own enumerable keys", () => {
		const nullProto = Object.create(null) as Record<string, unknown>;
		nullProto.b = 1;
		nullProto.a = 2;
		expect(stableSerialize(nullProto)).toBe('{"a":2,"b":1}');
	});

	it("keeps an own __proto__ key as data", () => {
		expect(stableSerialize(JSON.parse('{"__proto__":{"x":1},"a":1}'))).toBe('{"__proto__":{"x":1},"a":1}');
	});

	it("is insensitive to key order", () => {
		fc.assert(
			fc.property(fc.jsonValue(), fc.nat(), (value, seed) => {
				expect(stableSerialize(shuffleKeys(value, seed))).toBe(stableSerialize(value));
			}),
		);
	});

	it("loses no information: the text parses back to an equal value", () => {
		fc.assert(
			fc.property(fc.jsonValue(), (value) => {
				expect(jsonEqual(JSON.parse(stableSerialize(value)), value)).toBe(true);
			}),
		);
	});
});
