/**
 * Repair policy profiles.
 *
 * A profile is a row of defaults; callers may override only the grammar
 * fields. For tool arguments only the two `allow*` flags matter, so `recover`
 * behaves like `adaptive` there and differs only in grammar handling.
 */
import type { RepairPolicy, RepairPolicyOverrides, RepairPolicyProfile } from "./types.ts";

type ProfileDefaults = Omit<RepairPolicy, "profile">;

const PROFILE_DEFAULTS: Readonly<Record<RepairPolicyProfile, Readonly<ProfileDefaults>>> = {
	conservative: {
		allowTruncatedEnvelopeCompletion: false,
		allowValidValueTransforms: false,
		grammarMode: "observe",
		unknownGrammarText: "preserve",
	},
	adaptive: {
		allowTruncatedEnvelopeCompletion: true,
		allowValidValueTransforms: true,
		grammarMode: "strip",
		unknownGrammarText: "preserve",
	},
	recover: {
		allowTruncatedEnvelopeCompletion: true,
		allowValidValueTransforms: true,
		grammarMode: "recover",
		unknownGrammarText: "preserve",
	},
};

/** The profile's defaults, the overrides spread on top, and `profile` set to the requested name. */
export function resolveRepairPolicy(
	profile: RepairPolicyProfile = "adaptive",
	overrides: RepairPolicyOverrides = {},
): RepairPolicy {
	return { ...PROFILE_DEFAULTS[profile], ...overrides, profile };
}
