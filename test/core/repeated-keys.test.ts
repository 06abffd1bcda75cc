/**
 * JSON text a model wrote that gives one key twice in an object is never
 * read: `JSON.parse` keeps the last value, a guess at what the model meant.
 * So argument text, a truncated or relaxed envelope and a list or object
 * sent as text are refused when they repeat a key, and read as before when
 * they do not (the controls).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseModelJson } from "../../src/core/json-value.ts";
import { builtin } from "../support/pipeline-helpers.ts";

describe("parseModelJson", () => {
	it("reads JSON as JSON.parse does when no object repeats a key", () => {
		for (const text of [
			'{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}',
			'{"a": "\\"a\\": 1, \\"a\\": 2", "b": "{\\"b\\": 1}"}',
			'[{"k": 1}, {"k": 2}]',
			'{"a": {}, "b": [], "c": [[{}], {"d": {"e": null}}]}',
			'"{\\"a\\": 1, \\"a\\": 2}"',
			"42",
		]) {
			expect(parseModelJson(text), text).toEqual(JSON.parse(text));
		}
	});

	it("answers undefined when an object gives a key twice, however it is spelled or nested", () => {
		for (const text of [
			'{"a": 1, "a": 2}',
			'{"a": 1, "\\u0061": 2}',
			'{"x": [{"a": 1, "b": 2, "a": 1}]}',
			'[1, {"o": {"p": {"q": 1, "q": 1}}}]',
			'{"a": {}, "a": []}',
			'{ "a" : 1 ,\n "a" : 1 }',
		]) {
			expect(parseModelJson(text), text).toBeUndefined();
		}
		expect(parseModelJson("{not json")).toBeUndefined();
	});

	it("agrees with JSON.parse on every JSON text JSON.stringify writes, and refuses it with one key given again (property)", () => {
		fc.assert(
			fc.property(
				fc.jsonValue(),
				fc.constantFrom(undefined, 2, "\t"),
				fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1, maxKeys: 5 }),
				fc.jsonValue(),
				(value, indent, record, again) => {
					const text = JSON.stringify(value, null, indent);
					expect(parseModelJson(text)).toEqual(JSON.parse(text));
					const [key] = Object.keys(record);
					const written = JSON.stringify(record, null, indent);
					const repeated = `${written.slice(0, -1).trimEnd()}, ${JSON.stringify(key)}: ${JSON.stringify(again)}}`;
					expect(parseModelJson(`[${repeated}]`)).toBeUndefined();
				},
			),
			{ numRuns: 500 },
		);
	});
});

describe("the pipeline refuses JSON text that repeats a key", () => {
	it.each([
		["relaxed argument text", '{"command": "ls", "command": "rm -rf ~",}', '{"command": "ls",}'],
		["strict argument text", '{"command": "ls", "command": "rm -rf ~"}', '{"command": "ls"}'],
		["truncated argument text", '{"command": "ls", "command": "rm -rf ~"', '{"command": "ls"'],
	])("%s", (_label, repeated, once) => {
		expect(builtin("bash", once).outcome).toBe("repaired");
		const result = builtin("bash", repeated);
		expect(result.outcome).toBe("unrepairable");
		// The model's own text is kept for the retry message; nothing was read out of it.
		expect(result.args).toBe(repeated);
	});

	it("a list sent as text", () => {
		const once = builtin("edit", { path: "a", edits: '[{"oldText": "a", "newText": "c"}]' });
		expect(once.outcome).toBe("repaired");
		const repeated = builtin("edit", { path: "a", edits: '[{"oldText": "a", "oldText": "b", "newText": "c"}]' });
		expect(repeated.outcome).toBe("unrepairable");
	});
});
