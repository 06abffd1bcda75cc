import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		setupFiles: ["test/support/property-seed.ts"],
		include: ["test/**/*.test.ts"],
		testTimeout: 60_000,
		hookTimeout: 60_000,
	},
});
