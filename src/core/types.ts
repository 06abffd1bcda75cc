/**
 * The public types of `pi-repair-layer/core`.
 *
 * Names, fields and literal unions are the contract shared with code written
 * against the original package: keep them stable. Everything here is plain
 * data; the behaviour lives in the stage modules beside this file.
 */
import type { TSchema } from "typebox";

export type { TSchema };

/** Where in the pipeline a change or an observation came from. */
export type RepairStage =
	| "envelope"
	| "owner-shim"
	| "preprocess"
	| "valid-value"
	| "strict-validation"
	| "schema-repair"
	| "final-validation";

/** One recorded mutation: a stable rule ID, its stage, and a model-readable note. */
export interface RepairChange {
	ruleId: string;
	stage: RepairStage;
	note: string;
}

/** Value-free metadata about something noticed but not (necessarily) changed. */
export interface RepairObservation {
	channel: "tool" | "message";
	stage: RepairStage | "grammar";
	ruleId: string;
	toolName?: string;
	grammar?: string;
	outcome?: "detected" | "valid" | "repaired" | "unrepairable";
}

/** Optional overrides of the pipeline's bounds; omitted fields use {@link EnvelopeLimits} defaults. */
export interface RepairPipelineLimits {
	/** Bytes of an argument text the envelope stage decodes; never the strings inside an object. */
	maxInputBytes?: number;
	maxNestingDepth?: number;
	maxDecodeAttempts?: number;
	maxCandidates?: number;
	maxWorkMs?: number;
	/** Values (containers, array slots and scalars) one call may hold. */
	maxNodes?: number;
	/** Changes the schema-repair engine may make to one call. */
	maxChanges?: number;
}

/** The fully resolved bounds. */
export interface EnvelopeLimits {
	maxInputBytes: number;
	maxNestingDepth: number;
	maxDecodeAttempts: number;
	maxCandidates: number;
	maxWorkMs: number;
	maxNodes: number;
	maxChanges: number;
}

export type RepairPolicyProfile = "conservative" | "adaptive" | "recover";
export type GrammarPolicyMode = "off" | "observe" | "strip" | "recover";
export type UnknownGrammarTextPolicy = "preserve" | "strip";

export interface RepairPolicy {
	profile: RepairPolicyProfile;
	allowTruncatedEnvelopeCompletion: boolean;
	allowValidValueTransforms: boolean;
	grammarMode: GrammarPolicyMode;
	unknownGrammarText: UnknownGrammarTextPolicy;
}

/** Any field of a profile's row, for one call or one caller. */
export interface RepairPolicyOverrides {
	allowTruncatedEnvelopeCompletion?: boolean;
	allowValidValueTransforms?: boolean;
	grammarMode?: GrammarPolicyMode;
	unknownGrammarText?: UnknownGrammarTextPolicy;
}

/** A JSON-Pointer-like location: `""` (or `"/"`) is the root, `*` expands array elements. */
export type ObjectLocationSelector = `/${string}` | "";

export type Preprocessor = AliasPreprocessor | FieldPreprocessor | StructuralPreprocessor;

/** Moves the first acceptable alias key onto the canonical key named by `selector`. */
export interface AliasPreprocessor {
	kind: "alias";
	/** Location of the canonical field. */
	selector: ObjectLocationSelector;
	/** Alias keys, tried in order. */
	aliases: readonly string[];
	accepts?: "string" | "number" | "boolean" | "array" | "object";
	/** When true, a canonical value of exactly `""` counts as missing. */
	emptyEquivalentToMissing?: boolean;
}

export type FieldPreprocessorKind =
	| "filesystem-path"
	| "filesystem-path-array"
	| "glob"
	| "string-or-array"
	| "scalar"
	| "anchor-bleed"
	| "grammar-tokens";

/** A value transform at a configured location. */
export interface FieldPreprocessor {
	kind: FieldPreprocessorKind;
	selector: ObjectLocationSelector;
	/** Used by `scalar` only. */
	scalarType?: "string" | "number" | "boolean";
	/** Used by the model-gated kinds (`anchor-bleed`, `grammar-tokens`) only. */
	modelFamilies?: readonly RegExp[];
	/**
	 * Used by `grammar-tokens` on a record only: keys whose values are content
	 * (file text, edit text, a command). Such a key is cleaned, its value never.
	 */
	contentKeys?: readonly string[];
}

/** An owner-supplied reshaping at a location, never policy- or model-gated. */
export interface StructuralPreprocessor {
	kind: "structural";
	selector: ObjectLocationSelector;
	ruleId: string;
	apply: (value: unknown) => { value: unknown; note: string } | undefined;
	/**
	 * Cheap and conservative: `false` only when `apply` would certainly return
	 * `undefined` for this value. With it, a valid call skips the reshaping
	 * (and its copy) outright; without it, `apply` runs on every call.
	 */
	applies?: (value: unknown) => boolean;
}

/** A structural repair for the schema engine: mutates `args` in place, returns a note or `false`. */
export interface StructuralRepair {
	name: string;
	apply(args: Record<string, unknown>, toolName: string): string | false;
}

/** The schema engine's per-tool configuration: aliases, the root-string wrap, path fields, structural repairs. */
export interface ToolRepairConfig {
	/** Canonical name -> alias names, used wherever the validator flags the canonical key. */
	fieldAliases?: Record<string, readonly string[]>;
	rootString?: { field: string; wrapInArray?: boolean };
	/** Top-level string fields that hold filesystem paths. */
	pathFields?: readonly string[];
	structural?: readonly StructuralRepair[];
}

export interface RepairPipelineConfig {
	toolName: string;
	schema: TSchema;
	/** Default `"adaptive"`. */
	policy?: RepairPolicyProfile;
	policyOverrides?: RepairPolicyOverrides;
	/** Default `[]`. */
	preprocessors?: readonly Preprocessor[];
	/**
	 * The schema engine's tool config, translated into preprocessing rows
	 * (a row `preprocessors` already holds wins). Default `{}`.
	 */
	engineConfig?: ToolRepairConfig;
	/**
	 * The original package's name for {@link RepairPipelineConfig.engineConfig}.
	 * Read only when `engineConfig` is absent.
	 *
	 * @deprecated Use `engineConfig`.
	 */
	legacyConfig?: ToolRepairConfig;
	modelId?: string;
	ownerPrepareArguments?: (input: unknown) => unknown;
	/**
	 * Cheap and conservative: `false` only when `ownerPrepareArguments` would
	 * certainly give back an equal value. With it, a valid call skips the shim
	 * (and the private copy it gets); without it, the shim runs on every call.
	 */
	ownerPrepareApplies?: (input: unknown) => boolean;
	/** Bounds for the envelope stage. */
	limits?: RepairPipelineLimits;
	/**
	 * The tool is sampled with strict constrained decoding, so `null` at an
	 * optional property is the wire form of "omitted": such input is `valid`
	 * (no note, no telemetry) and any nulls are dropped silently when the call
	 * needs other repairs.
	 */
	strictSampling?: boolean;
	onObservation?: (observation: RepairObservation) => void;
	onOutcome?: (outcome: RepairPipelineResult) => void;
	/**
	 * An internal error was caught at a boundary and the call failed closed
	 * (or, for the owner shim, went on without it). `label` names the
	 * boundary; `error` is for the caller to classify, never to log as is.
	 */
	onContainedError?: (label: ContainedErrorLabel, error: unknown) => void;
}

/** The boundaries at which the pipeline contains an internal error. */
export type ContainedErrorLabel = "pipeline" | "owner-shim" | "structural-repair" | "observer";

export type RepairOutcome = "valid" | "repaired" | "unrepairable";

export interface RepairPipelineResult {
	outcome: RepairOutcome;
	args: unknown;
	/** The resolved profile name. */
	policy: RepairPolicyProfile;
	changes: readonly RepairChange[];
	observations: readonly RepairObservation[];
	issueSummary?: string;
	fingerprint?: string;
	/** Only set on `"unrepairable"`. */
	retryMessage?: string;
	/**
	 * The boundaries at which this run contained an internal error, in order
	 * (labels only, never the error or a value); absent when there were none.
	 * Also reported one by one through `onContainedError`.
	 */
	containedErrors?: ContainedErrorLabel[];
}

export interface EnvelopeRecoveryResult {
	value: unknown;
	changes: RepairChange[];
	candidates: unknown[];
	limited: boolean;
}

/** Legacy facade result; every key is always present. */
export interface RepairResult {
	outcome: RepairOutcome;
	args: unknown;
	/** Unique rule IDs in first-occurrence order. */
	rulesFired: string[];
	/** One per change. */
	notes: string[];
	changes: Array<{ ruleId: string; note: string }>;
	issueSummary: string | undefined;
	fingerprint: string | undefined;
	retryMessage: string | undefined;
}

/** What the extension shows and tells the model about one repaired or recovered call. */
export interface RepairFeedback {
	rules: string[];
	notes: string[];
	stages?: string[];
	profile?: string;
	model?: string;
	outcome?: "repaired" | "recovered";
	fingerprint?: string;
}

export interface RepairLifecycleOptions {
	/** Default 300000 (5 minutes). */
	ttlMs?: number;
	/** Default 128. */
	maxPending?: number;
	/** Default 256. */
	maxAssociated?: number;
	/** Default `Date.now`. */
	now?: () => number;
}

/** One validation issue as the validator reports it (TypeBox error shape). */
export interface ValidationIssue {
	keyword: string;
	instancePath: string;
	params: Record<string, unknown>;
	message?: string;
}
