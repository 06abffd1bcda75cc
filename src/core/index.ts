/**
 * `pi-repair-layer/core`: the pure repair pipeline.
 *
 * No pi imports, no file system, no globals: the only outward effects are the
 * caller's `onObservation` / `onOutcome` callbacks.
 */
export { BUILTIN_TOOL_NAMES, PIPELINE_PREPROCESSORS, REPAIR_CONFIGS } from "./builtin-tables.ts";
export {
	escapeJsonStringControlCharacters,
	isPlainObject,
	recoverEnvelope,
	truncatedEnvelopeChange,
} from "./envelope.ts";
export { repairToolInput } from "./facade.ts";
export { describeExpectedShape, failureFingerprint, formatRetryMessage, summarizeIssues } from "./issues.ts";
export { RepairLifecycle } from "./lifecycle.ts";
export { DEFAULT_ENVELOPE_LIMITS } from "./limits.ts";
export { unwrapMarkdownAutoLinks } from "./markdown-links.ts";
export { runRepairPipeline } from "./pipeline.ts";
export { resolveRepairPolicy } from "./policy.ts";
export { preprocessInput } from "./preprocess.ts";
export { attachRepairNotes, formatRepairNotes } from "./repair-notes.ts";
export { stableSerialize } from "./stable-serialize.ts";
export type * from "./types.ts";
