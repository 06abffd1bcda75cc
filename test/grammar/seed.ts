/**
 * The seed of every fast-check property under test/grammar, chosen the way
 * the fuzz campaign chooses its own: `PI_REPAIR_FUZZ_SEED` when set, else a
 * fixed default, so a run is reproducible. fast-check prints the seed and the
 * shrink path with a counterexample; replay it with
 * `PI_REPAIR_FUZZ_SEED=<seed> npx vitest run <file>`.
 */
export const PROPERTY_SEED = process.env.PI_REPAIR_FUZZ_SEED ? Number(process.env.PI_REPAIR_FUZZ_SEED) : 0x5eedc0de;

/** fast-check parameters for `numRuns` cases at the shared seed. */
export function seeded(numRuns: number): { seed: number; numRuns: number } {
	return { seed: PROPERTY_SEED, numRuns };
}
