import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { recoverEnvelope } from "../../src/core/envelope.ts";
import { completionSuffix } from "../../src/core/truncation.ts";

describe("completionSuffix: complete values inside open containers", () => {
	it("closes the object after a complete string value", () => {
		expect(completionSuffix('{"path":"/tmp/a"')).toBe("}");
	});

	it("closes open objects innermost first", () => {
		expect(completionSuffix('{"a":{"b":["c"]')).toBe("}}");
		expect(completionSuffix('{"a":{"b":{"c":true}')).toBe("}}");
	});

	it("accepts literals and closed containers as complete values", () => {
		expect(completionSuffix('{"a":true')).toBe("}");
		expect(completionSuffix('{"a":false')).toBe("}");
		expect(completionSuffix('{"a":null')).toBe("}");
		expect(completionSuffix('{"a":{"b":1}')).toBe("}");
		expect(completionSuffix('{"a":[1,2]')).toBe("}");
		expect(completionSuffix('{"a":[]')).toBe("}");
	});

	it("ignores trailing whitespace", () => {
		expect(completionSuffix('{"path":"/x"  \n')).toBe("}");
	});

	it("keeps a raw control character inside a closed string", () => {
		expect(completionSuffix('{"path":"a\nb"')).toBe("}");
	});

	it("skips escaped quotes when finding where a string ends", () => {
		expect(completionSuffix('{"a":"say \\"hi\\""')).toBe("}");
		expect(completionSuffix('{"a":"say \\"hi')).toBeUndefined();
	});
});

describe("completionSuffix: no completion where a value may be missing or cut", () => {
	it("never closes an open array, whose length is unknown", () => {
		expect(completionSuffix('{"include":["a"')).toBeUndefined();
		expect(completionSuffix('{"a":[{"b":["c"]')).toBeUndefined();
		expect(completionSuffix('{"edits":[{"oldText":"a","newText":"b"}')).toBeUndefined();
		expect(completionSuffix('{"edits":[{"oldText":"a","newText":"b"},{"oldText":"c","newText":"d"}')).toBeUndefined();
		expect(completionSuffix('{"a":[{"b":1}]')).toBe("}");
	});

	it("refuses text that stops inside a string", () => {
		expect(completionSuffix('{"command":"rm -rf /tmp/scra')).toBeUndefined();
		expect(completionSuffix('{"edits":[{"oldText":"a","newText":"b')).toBeUndefined();
		expect(completionSuffix('{"a":{"b":"c')).toBeUndefined();
		expect(completionSuffix('{"pa')).toBeUndefined();
	});

	it("refuses a trailing number, which may have been cut", () => {
		expect(completionSuffix('{"limit":12')).toBeUndefined();
		expect(completionSuffix('{"limit":12 ')).toBeUndefined();
		expect(completionSuffix('{"a":[1')).toBeUndefined();
	});

	it("refuses a partial literal", () => {
		expect(completionSuffix('{"a":tru')).toBeUndefined();
		expect(completionSuffix('{"a":nul')).toBeUndefined();
	});

	it("refuses text ending after a comma, a colon, a key or an opener", () => {
		expect(completionSuffix('{"path":"/x",')).toBeUndefined();
		expect(completionSuffix('{"path":')).toBeUndefined();
		expect(completionSuffix('{"path"')).toBeUndefined();
		expect(completionSuffix("{")).toBeUndefined();
		expect(completionSuffix('{"a":[')).toBeUndefined();
		expect(completionSuffix('{"a":[1,')).toBeUndefined();
	});

	it("refuses text that is already closed, or that does not open with a brace", () => {
		expect(completionSuffix('{"a":"b"}')).toBeUndefined();
		expect(completionSuffix('{"a":"b"}}')).toBeUndefined();
		expect(completionSuffix('["a"')).toBeUndefined();
		expect(completionSuffix('x{"a":"b"')).toBeUndefined();
		expect(completionSuffix("")).toBeUndefined();
	});

	it("refuses text whose structure is not JSON", () => {
		expect(completionSuffix('{"a" "b"')).toBeUndefined();
		expect(completionSuffix('{"a":"b"]')).toBeUndefined();
		expect(completionSuffix('{"a":"b" "c"')).toBeUndefined();
	});
});

describe("truncation candidates through recoverEnvelope", () => {
	const cases: [string, unknown[]][] = [
		['{"path":"/tmp/a"', [{ path: "/tmp/a" }]],
		['{"include":["a"', []],
		['{"command":"rm -rf /tmp/scra', []],
		['{"edits":[{"oldText":"a","newText":"b', []],
		['{"a":{"b":"c', []],
		['{"limit":12', []],
		['{"path":"a\nb"', [{ path: "a\nb" }]],
		['{"path":"/x",', []],
	];
	for (const [text, expected] of cases) {
		it(`${JSON.stringify(text)} yields ${expected.length === 0 ? "no candidate" : "one candidate"}`, () => {
			expect(recoverEnvelope(text).candidates).toEqual(expected);
		});
	}
});

/** Cut offsets that leave a string literal of JSON text open: from just after its opening quote up to its closing quote. */
function offsetsInsideStrings(text: string): number[] {
	const offsets: number[] = [];
	let inString = false;
	for (let index = 0; index < text.length; index++) {
		const char = text[index];
		if (inString) {
			offsets.push(index);
			if (char === "\\") {
				index++;
				offsets.push(index);
			} else if (char === '"') {
				inString = false;
			}
		} else if (char === '"') {
			inString = true;
		}
	}
	return offsets;
}

describe("truncation: properties", () => {
	const objectText = fc.dictionary(fc.string(), fc.jsonValue()).map((value) => JSON.stringify(value));

	it("never offers a candidate when the text ends inside a string", () => {
		fc.assert(
			fc.property(
				objectText.filter((text) => offsetsInsideStrings(text).length > 0),
				fc.nat(),
				(text, pick) => {
					const offsets = offsetsInsideStrings(text);
					const truncated = text.slice(0, offsets[pick % offsets.length]);
					expect(completionSuffix(truncated)).toBeUndefined();
					expect(recoverEnvelope(truncated).candidates).toEqual([]);
				},
			),
		);
	});

	it("turns any accepted completion into a plain object whose JSON starts like the cut text", () => {
		fc.assert(
			fc.property(objectText, fc.nat(), (text, cutAt) => {
				const truncated = text.slice(0, cutAt % (text.length + 1));
				for (const candidate of recoverEnvelope(truncated).candidates) {
					expect(JSON.stringify(candidate).startsWith(truncated)).toBe(true);
				}
			}),
		);
	});

	it("recovers the whole object when only the closing brackets were cut", () => {
		fc.assert(
			fc.property(
				fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.boolean(), fc.constant(null)), { minKeys: 1 }),
				(value) => {
					const text = JSON.stringify(value);
					expect(recoverEnvelope(text.slice(0, -1)).candidates).toEqual([value]);
				},
			),
		);
	});
});
