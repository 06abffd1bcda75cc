import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { runRepairPipeline } from "../../src/core/pipeline.ts";
import {
	GRAMMAR_MODES,
	POLICY_PROFILES,
	PROFILE_GRAMMAR_DEFAULT,
	resolveRepairPolicy,
	UNKNOWN_GRAMMAR_TEXT_POLICIES,
} from "../../src/core/policy.ts";

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

describe("the one policy table", () => {
	it("lists every profile, grammar mode and unknown-text policy once, and each profile's grammar default", () => {
		expect(POLICY_PROFILES).toEqual(["conservative", "adaptive", "recover"]);
		expect(GRAMMAR_MODES).toEqual(["off", "observe", "strip", "recover"]);
		expect(UNKNOWN_GRAMMAR_TEXT_POLICIES).toEqual(["preserve", "strip"]);
		for (const profile of POLICY_PROFILES) {
			expect(PROFILE_GRAMMAR_DEFAULT[profile]).toBe(resolveRepairPolicy(profile).grammarMode);
		}
	});

	it("lets a call override the fields the pipeline reads", () => {
		const policy = resolveRepairPolicy("adaptive", { allowTruncatedEnvelopeCompletion: false });
		expect(policy.allowTruncatedEnvelopeCompletion).toBe(false);
		expect(policy.allowValidValueTransforms).toBe(true);
		expect(resolveRepairPolicy("conservative", { allowValidValueTransforms: true }).allowValidValueTransforms).toBe(
			true,
		);
	});

	it("is obeyed by the pipeline: a truncated object is not completed when a call forbids it", () => {
		const config = { toolName: "read", schema: Type.Object({ path: Type.String() }) };
		const cut = '{"path":"a.md"';
		expect(runRepairPipeline({ input: cut, config }).outcome).toBe("repaired");
		const forbidden = runRepairPipeline({
			input: cut,
			config: { ...config, policyOverrides: { allowTruncatedEnvelopeCompletion: false } },
		});
		expect(forbidden.outcome).toBe("unrepairable");
		expect(forbidden.policy).toBe("adaptive");
	});
});
