/**
 * The argument shapes models send in late 2026 (control characters, singleton arrays, flattened keys, same-name wrappers), each
 * driven through the real pipeline with pi's built-in schemas or a small
 * custom one: fixtures written after public reports, near-misses that must
 * stay refused, and properties over generated values.
 */
import fc from "fast-check";
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { flattenedPath, rebuildFlattened } from "../../../src/core/flattened-keys.ts";
import { builtin, custom, deepFreeze, ruleIds } from "../../support/pipeline-helpers.ts";

const RUNS = { numRuns: 200 };

/** JSON text of `value` with the escapes of line breaks and tabs inside its strings turned back into the raw characters. */
function withRawControlCharacters(value: unknown): string {
	const raw: Record<string, string> = { n: "\n", t: "\t", r: "\r" };
	return JSON.stringify(value).replace(/\\(.)/g, (pair, letter: string) => raw[letter] ?? pair);
}

describe("parseJsonWithRawControlCharacters (pi#8521, pi#2681, little-coder#127)", () => {
	it("parses a stringified edits array whose texts hold raw newlines and tabs, byte for byte", () => {
		// Shape of the failing call in little-coder#127: multi-line Python inside a stringified edits array.
		const edits = [
			{ oldText: 'def parse_peers(text):\n    """\n    Parse', newText: "def parse_peers(text):\n\t# parse\n" },
		];
		const input = deepFreeze({ path: "netkit/bgp.py", edits: withRawControlCharacters(edits) });
		expect(() => JSON.parse(input.edits)).toThrow();
		const result = builtin("edit", input);
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "netkit/bgp.py", edits });
		expect(ruleIds(result)).toEqual(["parseJsonWithRawControlCharacters"]);
		expect(result.changes[0]?.note).toContain('"edits"');
		expect(result.changes[0]?.note).not.toContain("parse_peers");
	});

	it("parses an object field the same way, and a todos-style list of objects", () => {
		const schema = Type.Object({
			todos: Type.Array(Type.Object({ title: Type.String() })),
			meta: Type.Object({ note: Type.String() }),
		});
		const input = { todos: '[{"title": "line one\nline two"}]', meta: '{"note": "a\tb"}' };
		const result = custom(schema, input);
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ todos: [{ title: "line one\nline two" }], meta: { note: "a\tb" } });
		expect(ruleIds(result)).toEqual(["parseJsonWithRawControlCharacters", "parseJsonWithRawControlCharacters"]);
	});

	it("never decodes a string field, however JSON-like", () => {
		const input = { path: "a.json", content: '[{"oldText": "a\nb"}]' };
		const result = builtin("write", input);
		expect(result.outcome).toBe("valid");
		expect(result.args).toBe(input);
	});

	it("refuses text that stays broken after escaping, or breaks outside a string", () => {
		for (const edits of [
			'[{"oldText": "a\nb", "newText": "c"', // cut off
			'[{"oldText": "a\\\nb", "newText": "c"}]', // a backslash before a raw line break is no escape
			'[{"oldText": "a"\u0001, "newText": "c"}]', // a control character between tokens
			"[{'oldText': 'a\nb', 'newText': 'c'}]", // Python quotes
		]) {
			const input = { path: "a", edits };
			const result = builtin("edit", input);
			expect(result.outcome, edits).toBe("unrepairable");
			expect(result.args).toBe(input);
		}
	});

	it("leaves well-formed JSON text to the plain parse rule", () => {
		const result = builtin("edit", { path: "a", edits: '[{"oldText":"a\\nb","newText":"c"}]' });
		expect(ruleIds(result)).toEqual(["parseJsonStringifiedArray"]);
	});

	it("property: any edits list sent as JSON text with raw line breaks and tabs comes back exactly", () => {
		const text = fc.string({ unit: fc.constantFrom("a", "n", "t", " ", "\n", "\t", "\r", '"', "\\", "é", "{", "]") });
		fc.assert(
			fc.property(fc.array(fc.record({ oldText: text, newText: text }), { minLength: 1, maxLength: 4 }), (edits) => {
				const result = builtin("edit", { path: "f", edits: withRawControlCharacters(edits) });
				expect(result.outcome).toBe("repaired");
				expect(result.args).toEqual({ path: "f", edits });
			}),
			RUNS,
		);
	});
});

describe("unwrapSingletonArray", () => {
	const keys = Type.Object({
		keys: Type.String(),
		count: Type.Optional(Type.Integer()),
		submit: Type.Optional(Type.Boolean()),
	});

	it('unwraps ["Enter"] where a string is wanted, [5] for an integer, [true] for a boolean', () => {
		const result = custom(keys, { keys: ["Enter"], count: [5], submit: [true] });
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ keys: "Enter", count: 5, submit: true });
		expect(ruleIds(result)).toEqual(["unwrapSingletonArray", "unwrapSingletonArray", "unwrapSingletonArray"]);
		expect(result.changes[0]?.note).toContain('"keys"');
		expect(result.changes[0]?.note).not.toContain("Enter");
	});

	it("keeps a content string exactly, trailing newline included", () => {
		const result = builtin("write", { path: "a", content: ["x\n"] });
		expect(result.args).toEqual({ path: "a", content: "x\n" });
	});

	it("refuses more than one element, an empty list, a nested list, null and a wrong-typed element", () => {
		for (const value of [["Enter", "Enter"], [], [["Enter"]], [null], [{}]]) {
			const input = { keys: value };
			const result = custom(keys, input);
			expect(result.outcome, JSON.stringify(value)).toBe("unrepairable");
			expect(result.args).toBe(input);
		}
		// "5" in a list is not the number 5 in a list: no conversion through the unwrap.
		expect(custom(keys, { keys: "a", count: ["5"] }).outcome).toBe("unrepairable");
		expect(custom(keys, { keys: "a", count: [1.5] }).outcome).toBe("unrepairable");
	});

	it("property: a one-element list of a string becomes that string; two elements are always refused", () => {
		fc.assert(
			fc.property(fc.string(), fc.string(), (a, b) => {
				expect(custom(keys, { keys: [a] }).args).toEqual({ keys: a });
				expect(custom(keys, { keys: [a, b] }).outcome).toBe("unrepairable");
			}),
			RUNS,
		);
	});
});

describe("rebuildFlattenedKeys", () => {
	it("rebuilds edits[0].oldText / edits[0].newText into the edits list", () => {
		const input = deepFreeze({
			path: "a.ts",
			"edits[0].oldText": "a",
			"edits[0].newText": "b",
			"edits[1].oldText": "c",
			"edits[1].newText": "d",
		});
		const result = builtin("edit", input);
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({
			path: "a.ts",
			edits: [
				{ oldText: "a", newText: "b" },
				{ oldText: "c", newText: "d" },
			],
		});
		expect(ruleIds(result)).toEqual(["rebuildFlattenedKeys"]);
		expect(result.changes[0]?.note).toContain("4 flattened keys");
	});

	it("rebuilds dotted object paths", () => {
		const schema = Type.Object({
			opts: Type.Object({ mode: Type.String(), depth: Type.Object({ max: Type.Number() }) }),
		});
		const result = custom(schema, { "opts.mode": "fast", "opts.depth.max": 3 });
		expect(result.args).toEqual({ opts: { mode: "fast", depth: { max: 3 } } });
	});

	it("refuses gaps, conflicts, unreadable keys, leading zeros and a present field", () => {
		const cases: Record<string, unknown>[] = [
			{ path: "a", "edits[0].oldText": "a", "edits[0].newText": "b", "edits[2].oldText": "c", "edits[2].newText": "d" },
			{ path: "a", "edits[1].oldText": "a", "edits[1].newText": "b" },
			{ path: "a", "edits[0]": "x", "edits[0].oldText": "a" },
			{ path: "a", "edits[0].oldText": "a", "edits.0.newText": "b" },
			{ path: "a", "edits[0]oldText": "a", "edits[0].newText": "b" },
			{ path: "a", "edits[00].oldText": "a", "edits[00].newText": "b" },
			{ path: "a", "edits[0].oldText": "a", "edits[0].newText": "b", edits: "x" },
			{ path: "a", "edits[99999].oldText": "a" },
		];
		for (const input of cases) {
			const result = builtin("edit", input);
			expect(result.outcome, JSON.stringify(input)).toBe("unrepairable");
			expect(result.args).toBe(input);
		}
	});

	it("never moves a key the schema itself declares", () => {
		const schema = Type.Object({ edits: Type.Array(Type.String()), "edits[0]": Type.Optional(Type.String()) });
		expect(custom(schema, { "edits[0]": "x" }).outcome).toBe("unrepairable");
	});

	it("reads paths strictly", () => {
		expect(flattenedPath("edits[0].oldText", "edits")).toEqual([0, "oldText"]);
		expect(flattenedPath("editsX", "edits")).toBeUndefined();
		expect(flattenedPath("edits[0]..a", "edits")).toBeUndefined();
		expect(flattenedPath("edits[-1]", "edits")).toBeUndefined();
		expect(rebuildFlattened({ "a.__proto__.x": 1 }, "a")).toEqual(JSON.parse('{"__proto__":{"x":1}}'));
		expect(Object.getPrototypeOf(rebuildFlattened({ "a.__proto__": 1 }, "a"))).toBe(Object.prototype);
	});

	it("property: any edits list, flattened, rebuilds exactly; dropping a middle entry is refused", () => {
		fc.assert(
			fc.property(
				fc.array(fc.record({ oldText: fc.string(), newText: fc.string() }), { minLength: 1, maxLength: 5 }),
				(edits) => {
					const flat: Record<string, unknown> = { path: "p" };
					edits.forEach((edit, index) => {
						flat[`edits[${index}].oldText`] = edit.oldText;
						flat[`edits[${index}].newText`] = edit.newText;
					});
					expect(builtin("edit", flat).args).toEqual({ path: "p", edits });
					if (edits.length >= 3) {
						const gapped = { ...flat };
						delete gapped["edits[1].oldText"];
						delete gapped["edits[1].newText"];
						expect(builtin("edit", gapped).outcome).toBe("unrepairable");
					}
				},
			),
			RUNS,
		);
	});
});

describe("unwrapSameNameWrapper", () => {
	const edits = [{ oldText: "a", newText: "b" }];

	it('unwraps edits: \'{"edits":[…]}\' and edits: {"edits": […]}', () => {
		for (const wrapped of [JSON.stringify({ edits }), { edits }]) {
			const result = builtin("edit", deepFreeze({ path: "a", edits: wrapped }));
			expect(result.outcome).toBe("repaired");
			expect(result.args).toEqual({ path: "a", edits });
			expect(ruleIds(result)).toEqual(["unwrapSameNameWrapper"]);
		}
	});

	it("unwraps a wrapper whose text holds raw line breaks", () => {
		const multi = [{ oldText: "a\nb", newText: "c\td" }];
		const result = builtin("edit", { path: "a", edits: withRawControlCharacters({ edits: multi }) });
		expect(result.args).toEqual({ path: "a", edits: multi });
	});

	it("refuses a wrapper with another key, another name, or an inner value of the wrong type", () => {
		for (const wrapped of [
			{ edits, extra: 1 },
			{ changes: edits },
			{ edits: "not a list" },
			JSON.stringify({ edits: { oldText: "a" } }),
			{ edits: { edits } },
		]) {
			const input = { path: "a", edits: wrapped };
			expect(builtin("edit", input).outcome, JSON.stringify(wrapped)).toBe("unrepairable");
		}
	});

	it("property: any edits list inside one same-name wrapper, as text or object, comes back exactly", () => {
		fc.assert(
			fc.property(
				fc.array(fc.record({ oldText: fc.string(), newText: fc.string() }), { minLength: 1, maxLength: 4 }),
				fc.boolean(),
				(list, asText) => {
					const wrapped = asText ? JSON.stringify({ edits: list }) : { edits: list };
					expect(builtin("edit", { path: "p", edits: wrapped }).args).toEqual({ path: "p", edits: list });
				},
			),
			RUNS,
		);
	});
});
