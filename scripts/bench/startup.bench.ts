/**
 * `npm run bench -- startup`: what loading the layer adds to pi's start.
 *
 * The real pi CLI in print mode answers one scripted reply, with and without
 * the layer in turn (scripts/bench/pi-cli-runs.ts), in the two routes users
 * load it by:
 *   - installed: the packed tarball installed with `pi install` into an agent
 *     folder (the way pi installs a published package), against an empty one;
 *   - the same, against an agent folder holding a package whose extension
 *     does nothing (installed the same way), which separates what pi spends
 *     on any installed package from what the layer adds;
 *   - built checkout: `pi -e <this checkout>` after `npm run build`.
 * Prints user+system CPU and peak RSS medians, their ratio and difference,
 * then the user and the system CPU apart and pi's main thread and its other
 * threads apart, each with its paired difference.
 * The budget: at most 5% more CPU and 8 MiB more peak memory. `PAIRS=<n>`
 * sets the number of pairs (default 15); `INSTRUCTIONS=<n>` adds n pairs
 * counted in instructions by callgrind (scripts/bench/pi-cli-runs.ts).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	controlPackage,
	hasBuiltLayer,
	installedAgent,
	pairCount,
	pairedRuns,
	piInstall,
	ROOT,
} from "./pi-cli-runs.ts";

const SCRIPT = [{ text: "hello" }];
// A first session that runs a call leaves the whole code cache, which every later start of a user's pi loads.
const WARM_UP = [{ toolCalls: [{ id: "w", name: "bash", arguments: { command: "true" } }] }, { text: "hello" }];
const pairs = pairCount(15);

if (!hasBuiltLayer(ROOT)) {
	console.log("no build: run `npm run build` first (the startup bench measures the built layer)");
} else {
	const work = mkdtempSync(join(tmpdir(), "pi-repair-startup-"));
	try {
		const installed = installedAgent(work);
		const emptyAgent = join(work, "agent-empty");
		mkdirSync(emptyAgent);
		const controlAgent = join(work, "agent-control");
		mkdirSync(controlAgent);
		piInstall(
			controlAgent,
			`npm:pi-repair-control@file:${controlPackage(work, "export default function control(): void {}\n")}`,
			work,
		);
		pairedRuns({
			label: "installed (pi install)",
			script: SCRIPT,
			warmUp: WARM_UP,
			without: { args: [], agentDir: emptyAgent, noExtensions: false },
			with: { args: [], agentDir: installed, noExtensions: false },
			pairs,
		});
		pairedRuns({
			label: "installed, vs a no-op package",
			script: SCRIPT,
			warmUp: WARM_UP,
			without: { args: [], agentDir: controlAgent, noExtensions: false },
			with: { args: [], agentDir: installed, noExtensions: false },
			pairs,
		});
		pairedRuns({
			label: "built checkout (pi -e)",
			script: SCRIPT,
			warmUp: WARM_UP,
			without: { args: [], noExtensions: true },
			with: { args: ["-e", ROOT], noExtensions: true },
			pairs,
		});
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
}
