import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { withoutOmittedNulls } from "../../src/core/strict-sampling.ts";
import { builtin, custom, ruleIds } from "../support/pipeline-helpers.ts";

describe("withoutOmittedNulls", () => {
	const schema = Type.Object({
		path: Type.String(),
		limit: Type.Optional(Type.Number()),
		nested: Type.Optional(
			Type.Object({ deep: Type.Optional(Type.String()), need: Type.Union([Type.String(), Type.Null()]) }),
		),
		list: Type.Optional(Type.Array(Type.Object({ tag: Type.Optional(Type.String()) }))),
	});

	it("removes nulls at optional properties at any depth, copy-on-write", () => {
		const input = { path: "/a", limit: null, nested: { deep: null, need: null }, list: [{ tag: null }, { tag: "t" }] };
		const out = withoutOmittedNulls(schema, input) as typeof input;
		expect(out).toEqual({ path: "/a", nested: { need: null }, list: [{}, { tag: "t" }] });
		expect(out.list[1]).toBe(input.list[1]);
		expect(input.limit).toBeNull();
	});

	it("keeps nulls at required properties and at unknown keys", () => {
		const input = { path: null, extra: null };
		expect(withoutOmittedNulls(schema, input)).toBe(input);
	});

	it("returns the same reference when there is nothing to remove", () => {
		const input = { path: "/a", limit: 3 };
		expect(withoutOmittedNulls(schema, input)).toBe(input);
	});
});

describe("strict sampling through the pipeline", () => {
	it("treats null optionals as omitted: valid, caller's reference, no change, no observation", () => {
		const input = { path: "/a", offset: null, limit: null };
		const result = builtin("read", input, { strictSampling: true });
		expect(result.outcome).toBe("valid");
		expect(result.args).toBe(input);
		expect(result.changes).toEqual([]);
		expect(result.observations).toEqual([]);
	});

	it("drops those nulls silently when the call needs other repairs", () => {
		const result = builtin("read", { file_path: "/a", offset: null }, { strictSampling: true });
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "/a" });
		expect(ruleIds(result)).toEqual(["preprocess.exact-alias"]);
	});

	it("still reports a null optional as a repair when the tool is not strictly sampled", () => {
		expect(ruleIds(builtin("read", { path: "/a", offset: null }))).toEqual(["dropNullOrUndefinedField"]);
	});

	it("never excuses a null at a required property", () => {
		expect(custom(Type.Object({ path: Type.String() }), { path: null }, { strictSampling: true }).outcome).toBe(
			"unrepairable",
		);
	});
});
