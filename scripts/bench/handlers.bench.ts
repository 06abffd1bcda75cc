/**
 * `npm run bench -- handlers`: where the layer's own time goes in a real
 * session, handler by handler.
 *
 * The session bench's script (150 turns, each one `read` and one `bash`, no
 * repairs) is played by the real pi CLI in print mode, with the built layer
 * loaded through test/fixtures/timed-layer.ts, which times the import of
 * the layer's entry, its factory and every handler it registers. For each
 * event it prints the median over the runs of the session's total, how many
 * times the handler ran, the median of one call and, for a handler that ran
 * more than once, its first call (which pays what a session compiles and
 * builds once: the first reply compiles the plans of its tools). Timers
 * inside the process see only the layer's own work, not what pi spends dispatching to
 * an extension, so the figures vary far less from run to run than a CPU
 * comparison of whole sessions: a change to a handler shows here first, and
 * the session bench says whether it shows in what users pay. `RUNS=<n>` sets
 * the number of measured runs (default 5), after one warm-up run that fills
 * the compile caches. `COMPARE=<built checkout>` times that checkout's layer
 * too, in runs alternating with this one's, and adds its totals and the
 * paired difference (this checkout minus the other, median of the runs).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	countFromEnv,
	hasBuiltLayer,
	median,
	ROOT,
	timeHandlers,
	unbuiltCompare,
	VALID_CALL_SESSION,
	VALID_CALL_TURNS,
} from "./pi-cli-runs.ts";

/** Each event's total in one session, in microseconds, and their sum under `all`. */
function totals(session: Record<string, number[]>): Map<string, number> {
	const byEvent = new Map(
		Object.entries(session).map(([event, times]) => [event, times.reduce((sum, micros) => sum + micros, 0)]),
	);
	byEvent.set(
		"all",
		[...byEvent.values()].reduce((sum, micros) => sum + micros, 0),
	);
	return byEvent;
}

const ms = (micros: number) => `${(micros / 1000).toFixed(2).padStart(7)} ms`;

const other = process.env.COMPARE;
if (!hasBuiltLayer(ROOT)) {
	console.log("no build: run `npm run build` first (the handler bench times the built layer)");
} else if (other !== undefined && !hasBuiltLayer(other)) {
	console.log(unbuiltCompare(other));
} else {
	const runs = countFromEnv("RUNS", 5);
	const work = mkdtempSync(join(tmpdir(), "pi-repair-handlers-"));
	try {
		const scriptPath = join(work, "script.json");
		writeFileSync(scriptPath, JSON.stringify(VALID_CALL_SESSION.script));
		const arm = { args: ["-e", join(ROOT, "test/fixtures/timed-layer.ts")], noExtensions: true };
		const files = VALID_CALL_SESSION.files;
		const layers = other === undefined ? [ROOT] : [ROOT, other];
		for (const layer of layers) timeHandlers(arm, scriptPath, files, layer);
		// With two builds, their runs alternate (the order flips every round), so both see the same load.
		const sessions = layers.map(() => [] as Record<string, number[]>[]);
		for (let round = 0; round < runs; round += 1) {
			const order = round % 2 === 0 ? layers.keys() : [...layers.keys()].reverse();
			for (const index of order) sessions[index]?.push(timeHandlers(arm, scriptPath, files, layers[index]));
		}
		const [own = [], compared] = sessions;
		const ownTotals = own.map(totals);
		const comparedTotals = compared?.map(totals);
		const events = [...new Set(sessions.flat().flatMap((session) => Object.keys(session)))];
		console.log(
			`layer's handlers in a session of ${VALID_CALL_TURNS * 2} valid calls, ${runs} runs (medians)` +
				(compared === undefined ? "" : `: this checkout against ${other}`),
		);
		for (const event of [...events, "all"]) {
			const total = (byEvent: Map<string, number>) => byEvent.get(event) ?? 0;
			let line = `  ${event.padEnd(26)} ${ms(median(ownTotals.map(total)))}`;
			const calls = median(own.map((session) => session[event]?.length ?? 0));
			if (calls > 1) {
				const perCall = median(own.flatMap((session) => session[event] ?? []));
				// The first call of an event pays what the session compiles and builds once (the first reply, its plans).
				const first = median(own.map((session) => session[event]?.[0] ?? 0));
				line += `  ${String(calls).padStart(4)} calls, ${perCall.toFixed(1).padStart(7)} µs each, the first ${first.toFixed(0)} µs`;
			}
			if (comparedTotals !== undefined) {
				const differences = ownTotals.map(
					(byEvent, index) => total(byEvent) - total(comparedTotals[index] ?? new Map()),
				);
				line += `  | other ${ms(median(comparedTotals.map(total)))}, paired ${median(differences) >= 0 ? "+" : ""}${(median(differences) / 1000).toFixed(2)} ms`;
			}
			console.log(line);
		}
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
}
