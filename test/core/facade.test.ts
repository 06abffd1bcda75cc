import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { repairToolInput } from "../../src/core/facade.ts";
import { facade } from "../support/pipeline-helpers.ts";

describe("repairToolInput", () => {
	it("always returns every key of the legacy result", () => {
		const result = repairToolInput({ toolName: "t", schema: Type.Object({ a: Type.String() }), input: { a: "x" } });
		expect(Object.keys(result).sort()).toEqual(
			["args", "changes", "fingerprint", "issueSummary", "notes", "outcome", "retryMessage", "rulesFired"].sort(),
		);
		expect(result.outcome).toBe("valid");
		expect(result.issueSummary).toBeUndefined();
	});

	it("reports envelope decodes under their legacy name and other envelope IDs unchanged", () => {
		const decoded = repairToolInput({ toolName: "t", schema: Type.Object({ a: Type.String() }), input: '[{"a":"x"}]' });
		expect(decoded.rulesFired).toEqual(["parseJsonStringifiedRootObject", "envelope.unwrap-singleton-object-array"]);
		expect(decoded.changes.every((change) => !("stage" in change))).toBe(true);
	});

	it("de-duplicates rulesFired and reports identical changes once, with a count", () => {
		const result = facade("edit", {
			path: "/a",
			edits: [
				{ old_text: "x", new_text: "y" },
				{ old_text: "p", new_text: "q" },
			],
		});
		expect(result.rulesFired).toEqual(["renameAliasedField"]);
		expect(result.notes).toHaveLength(2);
		for (const note of result.notes) expect(note).toContain("2 times");
	});

	it("works without a config: no aliases, no root string", () => {
		const result = repairToolInput({ toolName: "t", schema: Type.Object({ path: Type.String() }), input: "x" });
		expect(result.outcome).toBe("unrepairable");
		expect(result.retryMessage).toContain("t");
	});
});
