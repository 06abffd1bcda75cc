/**
 * Shapes of a parsed argument object: a wrapper around the real arguments,
 * `""` for an omitted optional field, a container sent as JSON text, keys the
 * tool does not declare. Each cited fixture is tested beside its near-misses.
 */
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import type { BuiltinToolName } from "../../src/core/builtin-tables.ts";
import { planFor } from "../../src/core/pipeline.ts";
import {
	DOUBLE_ENCODED_SHAPES,
	EMPTY_STRING_SHAPES,
	type ObjectShape,
	UNDECLARED_KEY_SHAPES,
	WRAPPER_SHAPES,
} from "../fixtures/argument-shapes.ts";
import { builtin, custom, ruleIds } from "../support/pipeline-helpers.ts";

const CHART = Type.Object({
	data: Type.Object({ type: Type.String(), title: Type.String() }),
	series: Type.Optional(Type.Array(Type.String())),
	caption: Type.Optional(Type.String()),
});

function run(fixture: ObjectShape) {
	return fixture.tool === "chart"
		? custom(CHART, fixture.args, {}, "chart")
		: builtin(fixture.tool as BuiltinToolName, fixture.args);
}

function table(title: string, fixtures: readonly ObjectShape[]): void {
	describe(title, () => {
		for (const fixture of fixtures) {
			it(`${fixture.outcome}: ${fixture.shape} (${fixture.source})`, () => {
				const result = run(fixture);
				expect(result.outcome).toBe(fixture.outcome);
				if (fixture.outcome === "repaired") {
					expect(result.args).toEqual(fixture.repairsTo);
					expect(ruleIds(result)).toEqual(fixture.rules);
				} else {
					expect(result.args).toBe(fixture.args);
					expect(result.changes).toEqual([]);
				}
			});
		}
	});
}

table("wrappers around the arguments", WRAPPER_SHAPES);
table('"" for an omitted optional field', EMPTY_STRING_SHAPES);
table("a container sent as JSON text", DOUBLE_ENCODED_SHAPES);
table("keys the tool does not declare", UNDECLARED_KEY_SHAPES);

describe("wrappers: what the unwrap never does", () => {
	it("leaves a tool that declares the wrapper key itself to mean it", () => {
		const schema = Type.Object({ input: Type.Object({ path: Type.String() }), path: Type.Optional(Type.String()) });
		const args = { input: { path: "a" } };
		const result = custom(schema, args, {}, "reader");
		expect(result.outcome).toBe("valid");
		expect(result.args).toBe(args);
		const named = Type.Object({ name: Type.String(), path: Type.Optional(Type.String()) });
		expect(custom(named, { name: "reader", arguments: { path: "a" } }, {}, "reader").args).toEqual({
			name: "reader",
			arguments: { path: "a" },
		});
	});

	it("leaves a tool whose schema takes any key alone", () => {
		const open = Type.Object({ path: Type.Optional(Type.String()) }, { additionalProperties: true });
		const args = { arguments: { path: "a" } };
		const result = custom(open, args, {}, "reader");
		expect(result.outcome).toBe("valid");
		expect(result.args).toBe(args);
	});

	it("unwraps one level only, and not two wrapper keys at once", () => {
		expect(builtin("read", { arguments: { arguments: { path: "a" } } }).outcome).toBe("unrepairable");
		expect(builtin("read", { arguments: { path: "a" }, parameters: { path: "a" } }).outcome).toBe("unrepairable");
	});

	it("unwraps where the schema refuses unknown keys too", () => {
		const closed = Type.Object({ path: Type.String() }, { additionalProperties: false });
		const result = custom(closed, { name: "reader", parameters: { path: "a" } }, {}, "reader");
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "a" });
	});

	it("lists a near-miss wrapper of a tool without required fields as ignored keys, never as its arguments", () => {
		const result = builtin("ls", { name: "write", arguments: { path: "src" } });
		expect(ruleIds(result)).toEqual(["reportUndeclaredKeys"]);
		expect(result.args).toEqual({ name: "write", arguments: { path: "src" } });
	});
});

describe('"" for an omitted field: never where "" means something', () => {
	it("refuses a required number sent as an empty string", () => {
		const schema = Type.Object({ count: Type.Number() });
		expect(custom(schema, { count: "" }).outcome).toBe("unrepairable");
	});

	it("keeps an empty string a union or an enum accepts", () => {
		const union = Type.Object({ size: Type.Optional(Type.Union([Type.Number(), Type.String()])) });
		expect(custom(union, { size: "" }).outcome).toBe("valid");
		const choice = Type.Object({ mode: Type.Optional(Type.Union([Type.Literal(""), Type.Literal("fast")])) });
		expect(custom(choice, { mode: "" }).outcome).toBe("valid");
	});

	it("drops an empty string for an optional list, rather than wrapping it as a one-item list", () => {
		const schema = Type.Object({ paths: Type.Optional(Type.Array(Type.String())) });
		const result = custom(schema, { paths: "" });
		expect(result.args).toEqual({});
		expect(ruleIds(result)).toEqual(["dropEmptyStringForOptionalField"]);
	});

	it("refuses an empty string in a list element: an element is not an optional field", () => {
		const schema = Type.Object({ sizes: Type.Array(Type.Number()) });
		expect(custom(schema, { sizes: [1, ""] }).outcome).toBe("unrepairable");
	});

	it("drops it inside a nested object whose schema it can read", () => {
		const schema = Type.Object({ opts: Type.Object({ depth: Type.Optional(Type.Integer()), name: Type.String() }) });
		const result = custom(schema, { opts: { depth: "", name: "" } });
		expect(result.args).toEqual({ opts: { name: "" } });
	});
});

describe("a container sent as JSON text", () => {
	it("decodes where a type list or a union with null wants the container", () => {
		const listed = {
			type: "object",
			properties: { data: { type: ["object", "null"], properties: { a: { type: "number" } } } },
		} as unknown as Parameters<typeof custom>[0];
		expect(custom(listed, { data: '{"a": 1}' }).args).toEqual({ data: { a: 1 } });
		const nullFirst = Type.Object({ data: Type.Union([Type.Null(), Type.Array(Type.Number())]) });
		expect(custom(nullFirst, { data: "[1, 2]" }).args).toEqual({ data: [1, 2] });
	});

	it("keeps the JSON text of a field whose union takes a string", () => {
		const schema = Type.Object({ data: Type.Union([Type.String(), Type.Object({ a: Type.Number() })]) });
		const args = { data: '{"a": 1}' };
		expect(custom(schema, args).args).toBe(args);
	});

	it("decodes only the kind the schema wants: a list for an object field stays refused", () => {
		expect(custom(CHART, { data: '["bar", "Sales"]' }, {}, "chart").outcome).toBe("unrepairable");
	});
});

describe("keys the tool does not declare", () => {
	it("names them in the note, JSON-escaped and cut short, and the declared fields beside them", () => {
		const long = `k${"x".repeat(200)}`;
		const result = builtin("read", { path: "a", "bad\nkey": 1, [long]: 2 });
		const note = result.changes[0]?.note ?? "";
		expect(note).toContain('"bad\\nkey"');
		expect(note).not.toContain("bad\nkey");
		expect(note).not.toContain(long);
		expect(note).toContain('"path", "offset", "limit"');
	});

	it("names at most eight and counts the rest", () => {
		const args: Record<string, unknown> = { path: "a" };
		for (let index = 0; index < 12; index++) args[`extra${index}`] = index;
		const note = builtin("read", args).changes[0]?.note ?? "";
		expect(note).toContain('"extra7"');
		expect(note).not.toContain('"extra8"');
		expect(note).toContain("and 4 more");
	});

	it("adds the note after the other repairs, on the keys still undeclared", () => {
		const result = builtin("read", { file_path: "a", offset: "", start: 3 });
		expect(result.args).toEqual({ path: "a", start: 3 });
		expect(ruleIds(result)).toEqual([
			"preprocess.exact-alias",
			"dropEmptyStringForOptionalField",
			"reportUndeclaredKeys",
		]);
		expect(result.changes.at(-1)?.note).toContain('"start"');
	});

	it("maps a key onto an optional field only through a configured alias; an unconfigured one is named", () => {
		const schema = Type.Object({ command: Type.String(), timeout: Type.Optional(Type.Number()) });
		const preprocessors = [{ kind: "alias" as const, selector: "/timeout" as const, aliases: ["timeoutSecs"] }];
		const mapped = custom(schema, { command: "ls", timeoutSecs: 5 }, { preprocessors }, "shell");
		expect(mapped.args).toEqual({ command: "ls", timeout: 5 });
		expect(ruleIds(mapped)).toEqual(["preprocess.exact-alias"]);
		// Milliseconds are not seconds: `timeoutMs` is no alias of `timeout`, so it is reported, never moved.
		const named = custom(schema, { command: "ls", timeoutMs: 5000 }, { preprocessors }, "shell");
		expect(named.args).toEqual({ command: "ls", timeoutMs: 5000 });
		expect(ruleIds(named)).toEqual(["reportUndeclaredKeys"]);
	});

	it("says nothing for a tool whose schema takes any key", () => {
		const open = Type.Object({ path: Type.String() }, { additionalProperties: true });
		const args = { path: "a", extra: 1 };
		expect(custom(open, args).args).toBe(args);
		const patterned = Type.Object({ path: Type.String() }, { patternProperties: { "^x-": Type.String() } });
		expect(custom(patterned, { path: "a", "x-y": "z" }).outcome).toBe("valid");
	});

	it("keeps the valid path: a call with declared keys only is answered by the compiled plan", () => {
		const config = { toolName: "read", schema: CHART };
		const plan = planFor(config);
		expect(plan.validAsSent({ data: { type: "bar", title: "t" } })).toBe(true);
		expect(plan.validAsSent({ data: { type: "bar", title: "t" }, extra: 1 })).toBe(false);
		expect(plan.validAsSent({ arguments: { data: { type: "bar", title: "t" } } })).toBe(false);
	});
});
