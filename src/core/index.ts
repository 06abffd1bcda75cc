/**
 * `pi-repair-layer/core`: the pure repair pipeline.
 *
 * No pi imports, no file system, no globals: the only outward effects are the
 * caller's `onObservation` / `onOutcome` callbacks.
 */
export {
	ANCHOR_BLEED_MODELS,
	BUILTIN_TOOL_NAMES,
	type BuiltinToolName,
	COMMAND_ALIASES,
	CONTENT_ALIASES,
	EDITS_ALIASES,
	FIND_PATTERN_ALIASES,
	FLAT_EDIT_FOLD,
	GRAMMAR_TOKEN_MODELS,
	GREP_PATTERN_ALIASES,
	LS_PATH_ALIASES,
	NEW_TEXT_ALIASES,
	OLD_TEXT_ALIASES,
	OWNER_SHIM_APPLIES,
	PATH_ALIASES,
	PIPELINE_PREPROCESSORS,
	REPAIR_CONFIGS,
} from "./builtin-tables.ts";
export { canFoldFlatEditFields, foldFlatEditFields, foldFlatEditFieldsPreprocessor } from "./edit-fold.ts";
export { escapeJsonStringControlCharacters, recoverEnvelope, truncatedEnvelopeChange } from "./envelope.ts";
export { repairToolInput } from "./facade.ts";
export { describeExpectedShape, failureFingerprint, formatRetryMessage, summarizeIssues } from "./issues.ts";
export { isPlainObject } from "./json-value.ts";
export { RepairLifecycle } from "./lifecycle.ts";
export { DEFAULT_ENVELOPE_LIMITS } from "./limits.ts";
export { unwrapMarkdownAutoLinks } from "./markdown-links.ts";
export { runRepairPipeline } from "./pipeline.ts";
export { resolveRepairPolicy } from "./policy.ts";
export { preprocessInput } from "./preprocess.ts";
export { attachRepairNotes, formatRepairNotes } from "./repair-notes.ts";
export {
	GRAMMAR_RECOVERY_RULE_PREFIX,
	grammarRecoveryRuleId,
	RULE,
	RULE_STAGE,
	type RuleId,
	type RuleStage,
} from "./rule-ids.ts";
export { stableSerialize } from "./stable-serialize.ts";
export type * from "./types.ts";
