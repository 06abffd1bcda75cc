import { defineConfig } from "vitest/config";

// The seeded fuzz campaign: PI_REPAIR_FUZZ_SEED and PI_REPAIR_FUZZ_CASES choose the run.
export default defineConfig({
	test: {
		setupFiles: ["test/support/property-seed.ts"],
		include: ["test/fuzz/**/*.fuzz.ts"],
		testTimeout: 3_600_000,
	},
});
