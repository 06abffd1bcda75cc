/**
 * `npm run bench -- session`: what the layer costs per call in a real session.
 *
 * The real pi CLI in print mode plays a scripted session of 300 valid calls
 * (150 turns, each one `read` of a small file and one `bash` of `true`; no
 * repairs), with and without the layer (`pi -e <this checkout>`, after
 * `npm run build`) in turn (scripts/bench/pi-cli-runs.ts). Prints user+system
 * CPU and peak RSS medians, their ratio and difference, then the user and the
 * system CPU apart and pi's main thread and its other threads apart, each
 * with its paired difference; the startup share is
 * in `npm run bench -- startup`. The budget: at most 2% more CPU for the whole
 * session. `PAIRS=<n>` sets the number of pairs (default 5); `INSTRUCTIONS=<n>`
 * adds n pairs counted in instructions by callgrind (scripts/bench/pi-cli-runs.ts).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pairCount, pairedRuns, ROOT } from "./pi-cli-runs.ts";

const TURNS = 150;
const script = [
	...Array.from({ length: TURNS }, (_, turn) => ({
		toolCalls: [
			{ id: `r${turn}`, name: "read", arguments: { path: "notes.txt" } },
			{ id: `b${turn}`, name: "bash", arguments: { command: "true" } },
		],
	})),
	{ text: "done" },
];

if (!existsSync(join(ROOT, "dist", "bundle", "layer.cjs"))) {
	console.log("no build: run `npm run build` first (the session bench measures the built layer)");
} else {
	pairedRuns({
		label: `session of ${TURNS * 2} valid calls`,
		script,
		files: { "notes.txt": "one line of notes\n" },
		without: { args: [], noExtensions: true },
		with: { args: ["-e", ROOT], noExtensions: true },
		pairs: pairCount(5),
	});
}
