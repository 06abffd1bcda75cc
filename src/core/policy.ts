/**
 * Repair policy profiles.
 *
 * The one policy table: the profiles, the grammar modes and unknown-text
 * policies, and each profile's row of defaults; the extension's settings and
 * menu read it from here. A caller may override any field of a row for one
 * call (the output-limit rescue forbids completing a truncated object). For
 * tool arguments only the two `allow*` flags matter, so `recover` behaves
 * like `adaptive` there and differs only in grammar handling.
 */
import type {
	GrammarPolicyMode,
	RepairPolicy,
	RepairPolicyOverrides,
	RepairPolicyProfile,
	UnknownGrammarTextPolicy,
} from "./types.ts";

export const POLICY_PROFILES: readonly RepairPolicyProfile[] = ["conservative", "adaptive", "recover"];
export const GRAMMAR_MODES: readonly GrammarPolicyMode[] = ["off", "observe", "strip", "recover"];
export const UNKNOWN_GRAMMAR_TEXT_POLICIES: readonly UnknownGrammarTextPolicy[] = ["preserve", "strip"];

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

/** The grammar mode each profile implies when nothing overrides it. */
export const PROFILE_GRAMMAR_DEFAULT: Readonly<Record<RepairPolicyProfile, GrammarPolicyMode>> = {
	conservative: PROFILE_DEFAULTS.conservative.grammarMode,
	adaptive: PROFILE_DEFAULTS.adaptive.grammarMode,
	recover: PROFILE_DEFAULTS.recover.grammarMode,
};

/** The profile used where none is named, resolved: the pipeline's default and the settings file's. */
export const DEFAULT_POLICY_PROFILE: RepairPolicyProfile = "adaptive";

/** The profile's defaults, the overrides spread on top, and `profile` set to the requested name. */
export function resolveRepairPolicy(
	profile: RepairPolicyProfile = DEFAULT_POLICY_PROFILE,
	overrides: RepairPolicyOverrides = {},
): RepairPolicy {
	return { ...PROFILE_DEFAULTS[profile], ...overrides, profile };
}

/** {@link DEFAULT_POLICY_PROFILE}'s row, frozen. */
export const DEFAULT_POLICY: Readonly<RepairPolicy> = Object.freeze(resolveRepairPolicy());
