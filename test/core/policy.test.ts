import { describe, expect, it } from "vitest";
import { resolveRepairPolicy } from "../../src/core/policy.ts";

describe("resolveRepairPolicy", () => {
	it("conservative forbids completion and valid-value transforms and only observes grammar", () => {
		expect(resolveRepairPolicy("conservative")).toEqual({
			profile: "conservative",
			allowTruncatedEnvelopeCompletion: false,
			allowValidValueTransforms: false,
			grammarMode: "observe",
			unknownGrammarText: "preserve",
		});
	});

	it("adaptive allows both transforms and strips grammar", () => {
		expect(resolveRepairPolicy("adaptive")).toEqual({
			profile: "adaptive",
			allowTruncatedEnvelopeCompletion: true,
			allowValidValueTransforms: true,
			grammarMode: "strip",
			unknownGrammarText: "preserve",
		});
	});

	it("recover differs from adaptive only in grammar mode", () => {
		const recover = resolveRepairPolicy("recover");
		expect(recover.grammarMode).toBe("recover");
		expect({ ...recover, grammarMode: "strip", profile: "adaptive" }).toEqual(resolveRepairPolicy("adaptive"));
	});

	it("defaults to adaptive with no arguments", () => {
		expect(resolveRepairPolicy()).toEqual(resolveRepairPolicy("adaptive"));
	});

	it("lays grammar overrides over the profile", () => {
		expect(resolveRepairPolicy("recover", { unknownGrammarText: "strip" }).unknownGrammarText).toBe("strip");
		expect(resolveRepairPolicy("conservative", { grammarMode: "off" }).grammarMode).toBe("off");
	});

	it("always reports the requested profile, whatever the overrides hold", () => {
		const sneaky = { profile: "recover" } as unknown as Parameters<typeof resolveRepairPolicy>[1];
		expect(resolveRepairPolicy("conservative", sneaky).profile).toBe("conservative");
	});

	it("returns a fresh object each call", () => {
		const first = resolveRepairPolicy("adaptive");
		first.grammarMode = "off";
		expect(resolveRepairPolicy("adaptive").grammarMode).toBe("strip");
	});
});
