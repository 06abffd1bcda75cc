import { defineConfig, mergeConfig } from "vitest/config";
import fuzz from "./vitest.fuzz.config.ts";

// `npm run test:fuzz:large`: the same seeded campaign with 10,000 cases unless PI_REPAIR_FUZZ_CASES says otherwise.
export default mergeConfig(
	fuzz,
	defineConfig({ test: { env: { PI_REPAIR_FUZZ_CASES: process.env.PI_REPAIR_FUZZ_CASES ?? "10000" } } }),
);
