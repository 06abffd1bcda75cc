import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonEqual } from "../../src/core/clone.ts";
import {
	decodeJsonNoteFor,
	escapeJsonStringControlCharacters,
	recoverEnvelope,
	truncatedEnvelopeChange,
} from "../../src/core/envelope.ts";
import { isPlainObject, measureBytes, upperBoundBytes } from "../../src/core/json-value.ts";

const ruleIds = (result: { changes: { ruleId: string }[] }): string[] => result.changes.map((change) => change.ruleId);

function deepFreeze<T>(value: T): T {
	if (typeof value === "object" && value !== null) {
		for (const key of Object.keys(value)) {
			deepFreeze((value as Record<string, unknown>)[key]);
		}
		Object.freeze(value);
	}
	return value;
}

function nestedArrays(levels: number): unknown {
	let value: unknown = [];
	for (let level = 1; level < levels; level++) {
		value = [value];
	}
	return value;
}

describe("recoverEnvelope: decoding JSON-encoded envelopes", () => {
	it("decodes a JSON object string with one decode change and a tool-agnostic note", () => {
		const result = recoverEnvelope('{"dir":"/srv"}');
		expect(result.value).toEqual({ dir: "/srv" });
		expect(result.changes).toHaveLength(1);
		expect(result.changes[0]).toMatchObject({ ruleId: "envelope.decode-json", stage: "envelope" });
		expect(result.changes[0]!.note.length).toBeGreaterThan(0);
		expect(result.limited).toBe(false);
		expect(result.candidates).toEqual([]);
	});

	it("decodes a doubly encoded object and records one decode per layer", () => {
		const twice = JSON.stringify(JSON.stringify({ path: "/x" }));
		const result = recoverEnvelope(twice);
		expect(result.value).toEqual({ path: "/x" });
		expect(ruleIds(result)).toEqual(["envelope.decode-json", "envelope.decode-json"]);
	});

	it("gives up on a four-times encoded object and returns the original string unchanged", () => {
		let text: string = JSON.stringify({ path: "/x" });
		for (let layer = 1; layer < 4; layer++) {
			text = JSON.stringify(text);
		}
		const result = recoverEnvelope(text);
		expect(result.value).toBe(text);
		expect(result.changes).toEqual([]);
		expect(result.limited).toBe(false);
	});

	it("keeps the original text when the decoded value is not an object", () => {
		for (const text of ["5", "null", '"hi"', "[1,2]", "true"]) {
			const result = recoverEnvelope(text);
			expect(result.value).toBe(text);
			expect(result.changes).toEqual([]);
		}
	});

	it("never produces an empty object from text that is not an object", () => {
		expect(recoverEnvelope("").value).toBe("");
		expect(recoverEnvelope("not json").value).toBe("not json");
	});
});

describe("recoverEnvelope: control characters", () => {
	it("escapes a raw line feed in a string and records decode then escape", () => {
		const result = recoverEnvelope('{"msg":"line1\nline2"}');
		expect(result.value).toEqual({ msg: "line1\nline2" });
		expect(ruleIds(result)).toEqual(["envelope.decode-json", "envelope.escape-control-character"]);
	});

	it("does not record escaping needed only by the inner layer of a double encoding", () => {
		const inner = '{"a":"x\ny"}';
		const outer = JSON.stringify(inner);
		expect(outer).not.toContain("\n");
		const result = recoverEnvelope(outer);
		expect(result.value).toEqual({ a: "x\ny" });
		expect(ruleIds(result)).toEqual(["envelope.decode-json", "envelope.decode-json"]);
	});
});

describe("recoverEnvelope: singleton arrays", () => {
	it("unwraps a one-element array holding an object", () => {
		const input = [{ path: "/x" }];
		const result = recoverEnvelope(input);
		expect(result.value).toEqual({ path: "/x" });
		expect(result.value).not.toBe(input[0]);
		expect(ruleIds(result)).toEqual(["envelope.unwrap-singleton-object-array"]);
	});

	it("decodes and then unwraps an encoded singleton array", () => {
		const result = recoverEnvelope('[{"path":"/x"}]');
		expect(result.value).toEqual({ path: "/x" });
		expect(ruleIds(result)).toEqual(["envelope.decode-json", "envelope.unwrap-singleton-object-array"]);
	});

	it("returns other arrays and primitives by reference with no changes", () => {
		for (const input of [[], [{ path: "/a" }, { path: "/b" }], 42]) {
			const result = recoverEnvelope(input);
			expect(result.value).toBe(input);
			expect(result.changes).toEqual([]);
		}
	});

	it("does not unwrap a string element or a nested singleton", () => {
		const strings = ["x"];
		expect(recoverEnvelope(strings).value).toBe(strings);
		const nested = [[{ a: 1 }]];
		const result = recoverEnvelope(nested);
		expect(result.value).toBe(nested);
		expect(result.changes).toEqual([]);
	});
});

describe("recoverEnvelope: object input", () => {
	it("returns a copy of a plain object, never the caller's object", () => {
		const input = { path: "/x", nested: { a: [1] } };
		const result = recoverEnvelope(input);
		expect(result.value).toEqual(input);
		expect(result.value).not.toBe(input);
		expect((result.value as typeof input).nested).not.toBe(input.nested);
		expect(result.changes).toEqual([]);
	});

	it("keeps an own __proto__ key inert", () => {
		const result = recoverEnvelope('{"path":"/x","__proto__":{"polluted":true}}');
		const value = result.value as Record<string, unknown>;
		expect(Object.hasOwn(value, "__proto__")).toBe(true);
		expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
		expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
		expect(value.polluted).toBeUndefined();
	});
});

describe("recoverEnvelope: truncation candidates", () => {
	it("offers one candidate for an object cut after a complete string value", () => {
		const result = recoverEnvelope('{"path":"/tmp/a"');
		expect(result.candidates).toEqual([{ path: "/tmp/a" }]);
		expect(result.value).toBe('{"path":"/tmp/a"');
		expect(result.changes).toEqual([]);
	});

	it("never closes an open array inside the object: a cut list has unknown length", () => {
		expect(recoverEnvelope('{"include":["a"').candidates).toEqual([]);
	});

	it("offers nothing when the text stops inside a string", () => {
		expect(recoverEnvelope('{"command":"rm -rf /tmp/scra').candidates).toEqual([]);
		expect(recoverEnvelope('{"edits":[{"oldText":"a","newText":"b').candidates).toEqual([]);
		expect(recoverEnvelope('{"a":{"b":"c').candidates).toEqual([]);
	});

	it("offers nothing after a number, a comma, or for text not opening with a brace", () => {
		expect(recoverEnvelope('{"limit":12').candidates).toEqual([]);
		expect(recoverEnvelope('{"path":"/x",').candidates).toEqual([]);
		expect(recoverEnvelope('x{"path":"/x"').candidates).toEqual([]);
		expect(recoverEnvelope('["a"').candidates).toEqual([]);
	});

	it("accepts leading whitespace before the brace", () => {
		expect(recoverEnvelope('  \n{"path":"/x"').candidates).toEqual([{ path: "/x" }]);
	});

	it("escapes control characters in the candidate", () => {
		expect(recoverEnvelope('{"path":"a\nb"').candidates).toEqual([{ path: "a\nb" }]);
	});

	it("offers no candidate when maxCandidates is 0", () => {
		expect(recoverEnvelope('{"path":"/x"', { maxCandidates: 0 }).candidates).toEqual([]);
	});

	it("offers no candidate once the work budget is spent", () => {
		expect(recoverEnvelope('{"path":"/x"', { maxWorkMs: -1 }).candidates).toEqual([]);
	});

	it("offers no candidate deeper than the nesting limit", () => {
		expect(recoverEnvelope('{"a":[[["x"]]]', { maxNestingDepth: 3 }).candidates).toEqual([]);
		expect(recoverEnvelope('{"a":[[["x"]]]', { maxNestingDepth: 4 }).candidates).toEqual([{ a: [[["x"]]] }]);
	});

	it("offers no candidate when the envelope already reached an object", () => {
		expect(recoverEnvelope('{"path":"/x"}').candidates).toEqual([]);
	});
});

describe("recoverEnvelope: limits", () => {
	it("marks oversized input limited and returns it untouched", () => {
		const input = "x".repeat(20);
		expect(recoverEnvelope(input, { maxInputBytes: 4 })).toEqual({
			value: input,
			changes: [],
			candidates: [],
			limited: true,
		});
	});

	it("measures strings in UTF-8 bytes, not UTF-16 units", () => {
		const text = JSON.stringify({ k: "é".repeat(10) }); // 20 bytes of é
		expect(recoverEnvelope(text, { maxInputBytes: text.length }).limited).toBe(true);
		expect(recoverEnvelope(text, { maxInputBytes: text.length + 10 }).limited).toBe(false);
	});

	it("measures objects by the UTF-8 size of their JSON text", () => {
		const input = { path: "/abc" }; // {"path":"/abc"} is 15 bytes
		expect(recoverEnvelope(input, { maxInputBytes: 15 }).limited).toBe(false);
		expect(recoverEnvelope(input, { maxInputBytes: 14 }).limited).toBe(true);
	});

	it("treats unserializable input as infinitely large", () => {
		expect(recoverEnvelope({ n: 10n }).limited).toBe(true);
	});

	it("accepts 65 nested arrays and limits 66", () => {
		expect(recoverEnvelope(nestedArrays(65)).limited).toBe(false);
		expect(recoverEnvelope(nestedArrays(66)).limited).toBe(true);
	});

	it("counts primitives as one level deeper than their container", () => {
		expect(recoverEnvelope({ a: { b: 1 } }, { maxNestingDepth: 1 }).limited).toBe(true);
		expect(recoverEnvelope({ a: { b: 1 } }, { maxNestingDepth: 2 }).limited).toBe(false);
	});

	it("limits input that references one sub-object twice, or a cycle", () => {
		const shared = { x: 1 };
		expect(recoverEnvelope({ a: shared, b: shared }).limited).toBe(true);
		const cyclic: Record<string, unknown> = {};
		cyclic.self = cyclic;
		const result = recoverEnvelope(cyclic);
		expect(result.limited).toBe(true);
		expect(result.value).toBe(cyclic);
	});

	it("limits a string that decodes to an over-deep object and keeps the string", () => {
		const text = '{"a":{"b":{"c":1}}}';
		const result = recoverEnvelope(text, { maxNestingDepth: 2 });
		expect(result).toEqual({ value: text, changes: [], candidates: [], limited: true });
	});

	it("does no decoding with a negative work budget", () => {
		const result = recoverEnvelope('{"path":"/x"}', { maxWorkMs: -1 });
		expect(result.value).toBe('{"path":"/x"}');
		expect(result.changes).toEqual([]);
	});

	it("discards partial progress when decode attempts run out", () => {
		const twice = JSON.stringify(JSON.stringify({ path: "/x" }));
		const result = recoverEnvelope(twice, { maxDecodeAttempts: 1 });
		expect(result.value).toBe(twice);
		expect(result.changes).toEqual([]);
	});

	it("keeps the default for an override left undefined", () => {
		expect(recoverEnvelope('{"path":"/x"}', { maxDecodeAttempts: undefined }).value).toEqual({ path: "/x" });
	});
});

describe("measureBytes", () => {
	it("equals the UTF-8 length of the JSON text for any non-string JSON value within budget", () => {
		const encoder = new TextEncoder();
		fc.assert(
			fc.property(
				fc.jsonValue({ stringUnit: "binary" }).filter((value) => typeof value !== "string"),
				(value) => {
					const expected = encoder.encode(JSON.stringify(value)).length;
					expect(measureBytes(value, Number.MAX_SAFE_INTEGER)).toBe(expected);
				},
			),
		);
	});

	it("measures a string as its own UTF-8 bytes, lone surrogates as three", () => {
		const encoder = new TextEncoder();
		fc.assert(
			fc.property(fc.string({ unit: "binary" }), (text) => {
				expect(measureBytes(text, Number.MAX_SAFE_INTEGER)).toBe(encoder.encode(text).length);
			}),
		);
		expect(measureBytes("\ud800", 100)).toBe(3);
	});

	it("follows JSON.stringify for undefined members and toJSON", () => {
		expect(measureBytes({ a: undefined, b: 1 }, 100)).toBe('{"b":1}'.length);
		expect(measureBytes([undefined], 100)).toBe("[null]".length);
		expect(measureBytes(undefined, 100)).toBe(0);
		const date = new Date(0);
		expect(measureBytes({ d: date }, 100)).toBe(JSON.stringify({ d: date }).length);
	});

	it("has a cheap upper bound that is never below the exact size", () => {
		fc.assert(
			fc.property(
				fc.jsonValue({ stringUnit: "binary" }).filter((value) => typeof value !== "string"),
				(value) => {
					expect(upperBoundBytes(value, Number.MAX_SAFE_INTEGER)).toBeGreaterThanOrEqual(
						measureBytes(value, Number.MAX_SAFE_INTEGER),
					);
				},
			),
		);
	});

	it("reports more than the budget without measuring everything", () => {
		expect(measureBytes({ content: "x".repeat(1000) }, 10)).toBeGreaterThan(10);
	});
});

describe("escapeJsonStringControlCharacters", () => {
	it("escapes control characters inside strings with lowercase hex", () => {
		expect(escapeJsonStringControlCharacters('{"k":"a\nb"}')).toBe('{"k":"a\\u000ab"}');
		expect(escapeJsonStringControlCharacters('{"k":"\t\u001f"}')).toBe('{"k":"\\u0009\\u001f"}');
	});

	it("returns the same string when nothing needs escaping", () => {
		const text = '{"k":"plain"}';
		expect(escapeJsonStringControlCharacters(text)).toBe(text);
	});

	it("leaves control characters between tokens alone", () => {
		expect(escapeJsonStringControlCharacters('{\n"k":\t"v"\n}')).toBe('{\n"k":\t"v"\n}');
	});

	it("copies the character after a backslash as is and respects escaped quotes", () => {
		expect(escapeJsonStringControlCharacters('"a\\\nb"')).toBe('"a\\\nb"');
		expect(escapeJsonStringControlCharacters('"a\\"\nb"')).toBe('"a\\"\\u000ab"');
	});

	it("keeps escaping to the end of an unterminated string", () => {
		expect(escapeJsonStringControlCharacters('{"k":"a\nb')).toBe('{"k":"a\\u000ab');
	});

	it("makes JSON with raw control characters in its strings parse back to the original value", () => {
		fc.assert(
			fc.property(fc.jsonValue({ stringUnit: "binary" }), (value) => {
				// Undo the escapes of control characters; an escaped backslash is consumed first so `\\u0001` stays text.
				const raw = JSON.stringify(value).replace(
					/\\\\|\\u00([01][0-9a-f])|\\([nrtbf])/g,
					(match, hex: string | undefined, letter: string | undefined) => {
						if (hex !== undefined) {
							return String.fromCharCode(Number.parseInt(hex, 16));
						}
						const raws: Record<string, string> = { n: "\n", r: "\r", t: "\t", b: "\b", f: "\f" };
						return letter === undefined ? match : (raws[letter] ?? match);
					},
				);
				expect(jsonEqual(JSON.parse(escapeJsonStringControlCharacters(raw)), value)).toBe(true);
			}),
		);
	});

	it("never changes text that is already valid JSON", () => {
		fc.assert(
			fc.property(fc.json(), (text) => {
				expect(escapeJsonStringControlCharacters(text)).toBe(text);
			}),
		);
	});
});

describe("isPlainObject", () => {
	it("accepts objects with Object.prototype or a null prototype only", () => {
		expect(isPlainObject({})).toBe(true);
		expect(isPlainObject(Object.create(null))).toBe(true);
		expect(isPlainObject([])).toBe(false);
		expect(isPlainObject(null)).toBe(false);
		expect(isPlainObject(new Date())).toBe(false);
		expect(isPlainObject(new (class Point {})())).toBe(false);
		expect(isPlainObject("{}")).toBe(false);
	});
});

describe("envelope notes", () => {
	it("describes truncation completion as an envelope change", () => {
		const change = truncatedEnvelopeChange();
		expect(change.ruleId).toBe("envelope.complete-truncated-object");
		expect(change.stage).toBe("envelope");
		expect(change.note.length).toBeGreaterThan(0);
		expect(truncatedEnvelopeChange()).not.toBe(change);
	});

	it("names the tool in the pipeline form of the decode note", () => {
		expect(decodeJsonNoteFor("my_tool")).toContain("my_tool");
		expect(decodeJsonNoteFor("my_tool")).not.toBe(recoverEnvelope('{"a":1}').changes[0]!.note);
	});
});

describe("recoverEnvelope: properties", () => {
	const envelopeInput = fc.oneof(
		fc.jsonValue(),
		fc.jsonValue().map((value) => JSON.stringify(value)),
		fc.jsonValue().map((value) => JSON.stringify(JSON.stringify(value))),
		fc.jsonValue().chain((value) => {
			const text = JSON.stringify(value);
			return fc.nat(text.length).map((cut) => text.slice(0, cut));
		}),
		fc.string({ unit: "binary" }),
	);

	it("never mutates its input", () => {
		fc.assert(
			fc.property(envelopeInput, (input) => {
				const snapshot = structuredClone(input);
				const frozen = deepFreeze(input);
				recoverEnvelope(frozen);
				expect(frozen).toEqual(snapshot);
			}),
		);
	});

	it("is deterministic", () => {
		fc.assert(
			fc.property(envelopeInput, (input) => {
				expect(recoverEnvelope(input)).toEqual(recoverEnvelope(input));
			}),
		);
	});

	it("yields a plain object or the original input, and candidates only for unresolved strings", () => {
		fc.assert(
			fc.property(envelopeInput, (input) => {
				const result = recoverEnvelope(input);
				if (result.value !== input) {
					expect(isPlainObject(result.value)).toBe(true);
					expect(result.changes.length + (typeof input === "object" ? 1 : 0)).toBeGreaterThan(0);
				}
				for (const candidate of result.candidates) {
					expect(typeof input).toBe("string");
					expect(isPlainObject(candidate)).toBe(true);
				}
			}),
		);
	});
});
