/**
 * One real pi CLI run per test, its temporary folders removed after the test.
 * Kept apart from `pi-cli.ts` because the demo imports that file outside Vitest.
 */
import { afterEach } from "vitest";
import { type PiCliOptions, type PiCliResult, runPiCli } from "./pi-cli.ts";

/** Call inside a `describe`: returns the runner its tests use. */
export function piCliPerTest(): (options: PiCliOptions) => Promise<PiCliResult> {
	let run: PiCliResult | undefined;
	afterEach(() => {
		run?.cleanup();
		run = undefined;
	});
	return async (options) => {
		run = await runPiCli(options);
		return run;
	};
}
