/**
 * The bounds of the pipeline. They bound work, never the bytes of a value: a
 * call may hold at most `maxNodes` values nested at most `maxNestingDepth`
 * deep, the engine makes at most `maxChanges` changes, and the envelope stage
 * decodes an argument text of at most `maxInputBytes` (a file's content inside
 * an object is never measured).
 *
 * The numbers are part of the public API; `resolveLimits` is the single place
 * that merges caller overrides over them, so every stage sees the same values.
 */
import type { EnvelopeLimits, RepairPipelineLimits } from "./types.ts";

/** Default bounds (256 KiB of envelope text, depth 64, 3 decodes, 4 candidates, 25 ms, a million values, 1,000 changes). */
export const DEFAULT_ENVELOPE_LIMITS: EnvelopeLimits = Object.freeze({
	maxInputBytes: 262144,
	maxNestingDepth: 64,
	maxDecodeAttempts: 3,
	maxCandidates: 4,
	maxWorkMs: 25,
	maxNodes: 1_000_000,
	maxChanges: 1000,
});

const LIMIT_KEYS = [
	"maxInputBytes",
	"maxNestingDepth",
	"maxDecodeAttempts",
	"maxCandidates",
	"maxWorkMs",
	"maxNodes",
	"maxChanges",
] as const satisfies readonly (keyof EnvelopeLimits)[];

/**
 * The defaults with every override that holds a number laid over them. An
 * override left `undefined` keeps its default instead of disabling the bound.
 */
export function resolveLimits(overrides: RepairPipelineLimits = {}): EnvelopeLimits {
	const limits: EnvelopeLimits = { ...DEFAULT_ENVELOPE_LIMITS };
	for (const key of LIMIT_KEYS) {
		const value = overrides[key];
		if (typeof value === "number") {
			limits[key] = value;
		}
	}
	return limits;
}
