/**
 * `npm run bench -- handlers`: where the layer's own time goes in a real
 * session, handler by handler.
 *
 * The session bench's script (150 turns, each one `read` and one `bash`, no
 * repairs) is played by the real pi CLI in print mode, with the built layer
 * loaded through test/fixtures/timed-layer.ts, which times the import of
 * the layer's entry, its factory and every handler it registers. For each
 * event it prints the median over the runs of the session's total, how many
 * times the handler ran, and the median of one call. Timers inside the
 * process see only the layer's own work, not what pi spends dispatching to
 * an extension, so the figures vary far less from run to run than a CPU
 * comparison of whole sessions: a change to a handler shows here first, and
 * the session bench says whether it shows in what users pay. `RUNS=<n>` sets
 * the number of measured runs (default 5), after one warm-up run that fills
 * the compile caches.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, timeHandlers } from "./pi-cli-runs.ts";

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

/** The median of `values` (the mean of the middle two for an even count). */
function median(values: readonly number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = sorted.length >> 1;
	return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

if (!existsSync(join(ROOT, "dist", "bundle", "layer.cjs"))) {
	console.log("no build: run `npm run build` first (the handler bench times the built layer)");
} else {
	const wanted = Number(process.env.RUNS);
	const runs = Number.isInteger(wanted) && wanted > 0 ? wanted : 5;
	const work = mkdtempSync(join(tmpdir(), "pi-repair-handlers-"));
	try {
		const scriptPath = join(work, "script.json");
		writeFileSync(scriptPath, JSON.stringify(script));
		const arm = { args: ["-e", join(ROOT, "test/fixtures/timed-layer.ts")], noExtensions: true };
		const files = { "notes.txt": "one line of notes\n" };
		timeHandlers(arm, scriptPath, files);
		const sessions = Array.from({ length: runs }, () => timeHandlers(arm, scriptPath, files));
		const events = [...new Set(sessions.flatMap((session) => Object.keys(session)))];
		const total = (session: Record<string, number[]>, event: string) =>
			(session[event] ?? []).reduce((sum, micros) => sum + micros, 0);
		console.log(`layer's handlers in a session of ${TURNS * 2} valid calls, ${runs} runs (medians)`);
		for (const event of events) {
			const calls = median(sessions.map((session) => session[event]?.length ?? 0));
			const perCall = median(sessions.flatMap((session) => session[event] ?? []));
			console.log(
				`  ${event.padEnd(26)} ${(median(sessions.map((session) => total(session, event))) / 1000).toFixed(2).padStart(7)} ms` +
					`  ${String(calls).padStart(4)} calls, ${perCall.toFixed(1).padStart(7)} µs each`,
			);
		}
		const all = sessions.map((session) => events.reduce((sum, event) => sum + total(session, event), 0));
		console.log(`  ${"all".padEnd(26)} ${(median(all) / 1000).toFixed(2).padStart(7)} ms`);
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
}
