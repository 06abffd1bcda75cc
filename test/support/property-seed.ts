/**
 * Every fast-check property of the suite runs at one seed, so a run is
 * reproducible: `PI_REPAIR_FUZZ_SEED` when set (as for the fuzz campaign),
 * else the fixed default of test/grammar/seed.ts. A property that passes its
 * own seed keeps it. fast-check prints the seed and the shrink path with a
 * counterexample; replay with `PI_REPAIR_FUZZ_SEED=<seed> npx vitest run <file>`.
 * Loaded by every vitest config as a setup file.
 */
import fc from "fast-check";
import { PROPERTY_SEED } from "../grammar/seed.ts";

fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: PROPERTY_SEED });
