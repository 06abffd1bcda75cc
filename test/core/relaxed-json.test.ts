/**
 * Relaxed JSON argument text: the cited shapes repair, each with its own rule
 * ID, beside near-misses that stay refused; and two seeded properties: any
 * valid JSON with trailing commas added parses to the same value, and no
 * string content ever changes, whatever the text around it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { BuiltinToolName } from "../../src/core/builtin-tables.ts";
import { END_TOKENS, parseRelaxedJson } from "../../src/core/relaxed-json.ts";
import { RELAXED_JSON_SHAPES } from "../fixtures/argument-shapes.ts";
import { builtin, ruleIds } from "../support/pipeline-helpers.ts";

const seed = process.env.PI_REPAIR_FUZZ_SEED ? Number(process.env.PI_REPAIR_FUZZ_SEED) : 0x5eedc0de;
const numRuns = process.env.PI_REPAIR_FUZZ_CASES ? Number(process.env.PI_REPAIR_FUZZ_CASES) : 300;

describe("relaxed JSON argument text: the reported shapes and their near-misses", () => {
	for (const fixture of RELAXED_JSON_SHAPES) {
		const verdict = fixture.repairsTo === undefined ? "stays refused" : "repairs";
		it(`${verdict}: ${fixture.shape} (${fixture.source})`, () => {
			const result = builtin(fixture.tool as BuiltinToolName, fixture.text);
			if (fixture.repairsTo === undefined) {
				expect(result.outcome).toBe("unrepairable");
				expect(result.args).toBe(fixture.text);
				expect(result.changes).toEqual([]);
				return;
			}
			expect(result.outcome).toBe("repaired");
			expect(result.args).toEqual(fixture.repairsTo);
			expect(ruleIds(result)).toEqual(fixture.rules);
		});
	}

	it("never completes a cut command whose text has a trailing comma, also under recover", () => {
		const result = builtin("bash", '{"command": "rm -rf build", "timeout": 5,', { policy: "recover" });
		expect(result.outcome).toBe("unrepairable");
	});

	it("reads Python literals only as whole words outside strings", () => {
		expect(parseRelaxedJson('{"a": NoneType}')).toBeUndefined();
		expect(parseRelaxedJson('{"a": "None", "b": None}')?.value).toEqual({ a: "None", b: null });
		expect(parseRelaxedJson('{"True": True}')?.value).toEqual({ True: true });
		// A literal in key position is no JSON key: refused, not guessed.
		expect(parseRelaxedJson("{None: 1}")).toBeUndefined();
	});

	it("drops a comma only after a value", () => {
		expect(parseRelaxedJson("[,]")).toBeUndefined();
		expect(parseRelaxedJson("{,}")).toBeUndefined();
		expect(parseRelaxedJson('{"a":,}')).toBeUndefined();
		expect(parseRelaxedJson('{"a": [1, 2, ], "b": {"c": true , } , }')?.value).toEqual({ a: [1, 2], b: { c: true } });
	});

	it("answers nothing for text that is strict JSON already, or a literal", () => {
		expect(parseRelaxedJson('{"a": 1}')).toBeUndefined();
		expect(parseRelaxedJson("True")).toBeUndefined();
		expect(parseRelaxedJson("None<|call|>")).toBeUndefined();
	});

	it("strips only the listed end tokens, only at the end", () => {
		expect(parseRelaxedJson('{"a": 1}<|call|><|im_end|>')?.value).toEqual({ a: 1 });
		expect(parseRelaxedJson('{"a": 1}<|return|>')).toBeUndefined();
		expect(parseRelaxedJson('<|call|>{"a": 1}')).toBeUndefined();
	});
});

/** JSON text of `value` with a trailing comma before every closer of a non-empty container where `commas` says so. */
function withTrailingCommas(value: unknown, commas: () => boolean, space: () => string): string {
	if (Array.isArray(value)) {
		if (value.length === 0) return "[]";
		const items = value.map((item) => withTrailingCommas(item, commas, space));
		return `[${items.join(",")}${commas() ? `,${space()}` : ""}]`;
	}
	if (typeof value === "object" && value !== null) {
		const entries = Object.entries(value);
		if (entries.length === 0) return "{}";
		const members = entries.map(([key, item]) => `${JSON.stringify(key)}:${withTrailingCommas(item, commas, space)}`);
		return `{${members.join(",")}${commas() ? `${space()},${space()}` : ""}}`;
	}
	return JSON.stringify(value);
}

// Strings that look like every spelling the scan edits: none of them may change inside a string.
const baitString = fc.oneof(
	fc.string(),
	fc.constantFrom(",}", ", ]", "None", "True", "False", "{{", "}}", "\\", '\\"', "<|call|>", "<|im_end|>", ",\n}"),
	fc
		.array(fc.constantFrom(",", "}", "]", "None", "True", " ", '"', "\\", "<|call|>", "{", "x"), { maxLength: 8 })
		.map((parts) => parts.join("")),
);
const baitJson = fc.letrec<{ value: unknown }>((tie) => ({
	value: fc.oneof(
		{ depthSize: "small" },
		baitString,
		fc.integer(),
		fc.boolean(),
		fc.constant(null),
		fc.array(tie("value"), { maxLength: 4 }),
		fc.dictionary(baitString, tie("value"), { maxKeys: 4 }),
	),
})).value;

describe("relaxed JSON properties (seeded)", () => {
	it("parses any valid JSON with trailing commas added to the same value", () => {
		fc.assert(
			fc.property(
				fc.oneof(fc.array(baitJson, { minLength: 1 }), fc.dictionary(baitString, baitJson, { minKeys: 1 })),
				fc.infiniteStream(fc.boolean()),
				fc.infiniteStream(fc.constantFrom("", " ", "\n", "\t ")),
				(value, commaStream, spaceStream) => {
					const commas = commaStream[Symbol.iterator]();
					const spaces = spaceStream[Symbol.iterator]();
					let added = false;
					const text = withTrailingCommas(
						value,
						() => {
							const next = commas.next().value as boolean;
							added ||= next;
							return next;
						},
						() => spaces.next().value as string,
					);
					const parsed = parseRelaxedJson(text);
					if (!added) {
						expect(parsed).toBeUndefined();
						return;
					}
					expect(parsed?.value).toEqual(value);
					expect(parsed?.changes.map((change) => change.ruleId)).toEqual(["envelope.drop-trailing-comma"]);
				},
			),
			{ seed, numRuns },
		);
	});

	it("never changes string content, whatever spelling wraps the JSON", () => {
		const wrap = fc.record({
			braces: fc.boolean(),
			token: fc.constantFrom("", ...END_TOKENS, "\n<|im_end|>"),
			comma: fc.boolean(),
		});
		fc.assert(
			fc.property(fc.dictionary(baitString, baitJson, { minKeys: 1 }), wrap, (value, how) => {
				let text = JSON.stringify(value);
				if (how.comma) text = `${text.slice(0, -1)},}`;
				if (how.braces) text = `{${text}}`;
				text += how.token;
				const parsed = parseRelaxedJson(text);
				if (!how.comma && !how.braces && how.token === "") {
					expect(parsed).toBeUndefined();
					return;
				}
				// The same value: every key and every string, byte for byte.
				expect(parsed?.value).toEqual(value);
			}),
			{ seed, numRuns },
		);
	});

	it("never changes a string that holds Python words, commas or end tokens", () => {
		fc.assert(
			fc.property(fc.array(baitString, { minLength: 1, maxLength: 5 }), (strings) => {
				const text = `{"v": [${strings.map((text) => JSON.stringify(text)).join(", ")}, None, True, False,]}`;
				expect(parseRelaxedJson(text)?.value).toEqual({ v: [...strings, null, true, false] });
			}),
			{ seed, numRuns },
		);
	});
});
