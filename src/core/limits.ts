/**
 * The bounds of the envelope stage.
 *
 * The numbers are part of the public API; `resolveLimits` is the single place
 * that merges caller overrides over them, so every stage sees the same values.
 */
import type { EnvelopeLimits, RepairPipelineLimits } from "./types.ts";

/** Default envelope bounds (256 KiB, depth 64, 3 decodes, 4 candidates, 25 ms). */
export const DEFAULT_ENVELOPE_LIMITS: EnvelopeLimits = Object.freeze({
	maxInputBytes: 262144,
	maxNestingDepth: 64,
	maxDecodeAttempts: 3,
	maxCandidates: 4,
	maxWorkMs: 25,
});

const LIMIT_KEYS = [
	"maxInputBytes",
	"maxNestingDepth",
	"maxDecodeAttempts",
	"maxCandidates",
	"maxWorkMs",
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
