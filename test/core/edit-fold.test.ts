import { describe, expect, it } from "vitest";
import {
	foldFlatEditFields,
	foldFlatEditFieldsPreprocessor,
	foldFlatEditFieldsRepair,
	NEW_TEXT_ALIASES,
	OLD_TEXT_ALIASES,
} from "../../src/core/edit-fold.ts";
import { deepFreeze } from "../support/pipeline-helpers.ts";

describe("foldFlatEditFields (schema-engine structural form)", () => {
	it("folds in place and names both keys and the tool in its note", () => {
		const args: Record<string, unknown> = { path: "/a", old_str: "x", new_str: "y" };
		const note = foldFlatEditFields(args, "myedit");
		expect(args).toEqual({ path: "/a", edits: [{ oldText: "x", newText: "y" }] });
		expect(note).toContain("old_str");
		expect(note).toContain("new_str");
		expect(note).toContain("myedit");
		expect(note).toContain("edits");
	});

	it("is listed under its rule ID", () => {
		expect(foldFlatEditFieldsRepair.name).toBe("foldFlatEditFields");
	});

	it("refuses when a non-empty edits list exists or a side is missing", () => {
		const withEdits: Record<string, unknown> = { edits: [{}], oldText: "a", newText: "b" };
		expect(foldFlatEditFields(withEdits, "edit")).toBe(false);
		expect(withEdits).toEqual({ edits: [{}], oldText: "a", newText: "b" });
		expect(foldFlatEditFields({ old: "a" }, "edit")).toBe(false);
		expect(foldFlatEditFields({ old: 1, new: "b" }, "edit")).toBe(false);
	});

	it("chooses the first string key by priority and deletes every recognized key", () => {
		const args: Record<string, unknown> = {};
		for (const key of OLD_TEXT_ALIASES) args[key] = `o:${key}`;
		for (const key of NEW_TEXT_ALIASES) args[key] = `n:${key}`;
		args.keep = 1;
		foldFlatEditFields(args, "edit");
		expect(args).toEqual({ keep: 1, edits: [{ oldText: "o:old_string", newText: "n:new_string" }] });
	});
});

describe("foldFlatEditFieldsPreprocessor (built-in edit form)", () => {
	it("returns a folded copy, never touching the value it was given, and always names edit", () => {
		const input = deepFreeze({ path: "/a", search: "x", replace: "y", other: { big: "z" } });
		const result = foldFlatEditFieldsPreprocessor(input);
		expect(result?.value).toEqual({ path: "/a", other: { big: "z" }, edits: [{ oldText: "x", newText: "y" }] });
		expect((result?.value as { other: unknown } | undefined)?.other).toBe(input.other);
		expect(result?.note).toContain("edit");
		expect(result?.note).toContain("search");
	});

	it("ignores non-records and records with nothing to fold", () => {
		expect(foldFlatEditFieldsPreprocessor("text")).toBeUndefined();
		expect(foldFlatEditFieldsPreprocessor([{ oldText: "a", newText: "b" }])).toBeUndefined();
		expect(foldFlatEditFieldsPreprocessor({ path: "/a", edits: [{ oldText: "a", newText: "b" }] })).toBeUndefined();
	});
});
