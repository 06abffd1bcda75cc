import { createEditToolDefinition } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { applyOwnerShim } from "../../src/core/owner-shim.ts";
import { RULE } from "../../src/core/rule-ids.ts";
import { builtin, deepFreeze } from "../support/pipeline-helpers.ts";

describe("applyOwnerShim", () => {
	it("passes the value through when no shim is configured", () => {
		const input = { a: 1 };
		expect(applyOwnerShim(input, undefined, "t")).toEqual({ value: input });
	});

	it("hands the shim a private copy, so in-place mutation never reaches the caller", () => {
		const input = deepFreeze({ edits: '[{"oldText":"a","newText":"b"}]' });
		const result = applyOwnerShim(
			input,
			(value) => {
				const args = value as { edits: unknown };
				args.edits = JSON.parse(args.edits as string);
				return args;
			},
			"edit",
		);
		expect(input.edits).toBe('[{"oldText":"a","newText":"b"}]');
		expect(result.value).toEqual({ edits: [{ oldText: "a", newText: "b" }] });
	});

	it("records a change naming the tool when the shim reshapes the input", () => {
		const result = applyOwnerShim("/srv", (value) => ({ path: value }), "read");
		expect(result.change?.ruleId).toBe(RULE.ownerShim);
		expect(result.change?.stage).toBe("owner-shim");
		expect(result.change?.note).toContain("read");
		expect(result.change?.note).not.toContain("/srv");
	});

	it("keeps the caller's own value when the shim's result is structurally equal", () => {
		const input = { b: 2, a: 1 };
		const result = applyOwnerShim(input, (value) => ({ ...(value as object) }), "t");
		expect(result.value).toBe(input);
		expect(result.change).toBeUndefined();
	});

	it("swallows a throwing shim and keeps the pre-shim value", () => {
		const input = { a: 1 };
		const result = applyOwnerShim(
			input,
			() => {
				throw new Error("owner bug");
			},
			"t",
		);
		expect(result.value).toBe(input);
		expect(result.change).toBeUndefined();
	});
});

describe("pi's own edit shim through the pipeline", () => {
	it("records the shim's reshaping and leaves an already valid edit call untouched", () => {
		const shim = createEditToolDefinition(process.cwd()).prepareArguments as (input: unknown) => unknown;
		const valid = { path: "/a", edits: [{ oldText: "x", newText: "y" }] };
		const untouched = builtin("edit", valid, { ownerPrepareArguments: shim });
		expect(untouched.outcome).toBe("valid");
		expect(untouched.args).toBe(valid);

		const input = deepFreeze({ path: "/a", edits: '[{"old_text":"x","new_text":"y"}]' });
		const result = builtin("edit", input, { ownerPrepareArguments: shim });
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual(valid);
		expect(result.changes.map((change) => change.ruleId)).toEqual([
			RULE.ownerShim,
			"preprocess.exact-alias",
			"preprocess.exact-alias",
		]);
	});
});
