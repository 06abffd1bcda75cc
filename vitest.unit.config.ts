import { defineConfig } from "vitest/config";

/**
 * The fast loop for developers (`npm run test:unit`): the pure core and grammar, the extension's units, the
 * adapter, the docs and the property tests, without the real CLI, the TUI, the package or the fuzz campaign.
 * `npm test` and `.ci/run` still run everything.
 */
export default defineConfig({
	test: {
		setupFiles: ["test/support/property-seed.ts"],
		include: [
			"test/architecture/**/*.test.ts",
			"test/core/**/*.test.ts",
			"test/grammar/**/*.test.ts",
			"test/extension/**/*.test.ts",
			"test/pi/**/*.test.ts",
			"test/property/**/*.test.ts",
			"test/docs/**/*.test.ts",
		],
		testTimeout: 60_000,
		hookTimeout: 60_000,
	},
});
