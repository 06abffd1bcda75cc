import { describe, expect, it } from "vitest";
import { DEFAULT_ENVELOPE_LIMITS, resolveLimits } from "../../src/core/limits.ts";

describe("DEFAULT_ENVELOPE_LIMITS", () => {
	it("holds the documented default bounds", () => {
		expect(DEFAULT_ENVELOPE_LIMITS).toEqual({
			maxInputBytes: 262144,
			maxNestingDepth: 64,
			maxDecodeAttempts: 3,
			maxCandidates: 4,
			maxWorkMs: 25,
			maxNodes: 1_000_000,
			maxChanges: 1000,
		});
	});

	it("cannot be changed by a caller", () => {
		expect(Object.isFrozen(DEFAULT_ENVELOPE_LIMITS)).toBe(true);
	});
});

describe("resolveLimits", () => {
	it("returns the defaults without overrides, as a fresh object", () => {
		const limits = resolveLimits();
		expect(limits).toEqual(DEFAULT_ENVELOPE_LIMITS);
		expect(limits).not.toBe(DEFAULT_ENVELOPE_LIMITS);
	});

	it("lays numeric overrides over the defaults, negatives and zero included", () => {
		expect(resolveLimits({ maxInputBytes: 4, maxCandidates: 0, maxWorkMs: -1 })).toEqual({
			...DEFAULT_ENVELOPE_LIMITS,
			maxInputBytes: 4,
			maxCandidates: 0,
			maxWorkMs: -1,
		});
	});

	it("keeps the default for an override that is undefined", () => {
		expect(resolveLimits({ maxNestingDepth: undefined }).maxNestingDepth).toBe(64);
	});
});
