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

/** Each event's total in one session, in microseconds. */
function totals(session: Record<string, number[]>): Map<string, number> {
	return new Map(
		Object.entries(session).map(([event, times]) => [event, times.reduce((sum, micros) => sum + micros, 0)]),
	);
}

const ms = (micros: number) => `${(micros / 1000).toFixed(2).padStart(7)} ms`;

const other = process.env.COMPARE;
if (!existsSync(join(ROOT, "dist", "bundle", "layer.cjs"))) {
	console.log("no build: run `npm run build` first (the handler bench times the built layer)");
} else if (other !== undefined && !existsSync(join(other, "dist", "bundle", "layer.cjs"))) {
	console.log(`COMPARE=${other} holds no built layer: run \`npm run build\` there first`);
} else {
	const wanted = Number(process.env.RUNS);
	const runs = Number.isInteger(wanted) && wanted > 0 ? wanted : 5;
	const work = mkdtempSync(join(tmpdir(), "pi-repair-handlers-"));
	try {
		const scriptPath = join(work, "script.json");
		writeFileSync(scriptPath, JSON.stringify(script));
		const arm = { args: ["-e", join(ROOT, "test/fixtures/timed-layer.ts")], noExtensions: true };
		const files = { "notes.txt": "one line of notes\n" };
		const layers = other === undefined ? [ROOT] : [ROOT, other];
		for (const layer of layers) timeHandlers(arm, scriptPath, files, layer);
		// With two builds, their runs alternate (the order flips every round), so both see the same load.
		const sessions = layers.map(() => [] as Record<string, number[]>[]);
		for (let round = 0; round < runs; round += 1) {
			const order = round % 2 === 0 ? layers.keys() : [...layers.keys()].reverse();
			for (const index of order) sessions[index]?.push(timeHandlers(arm, scriptPath, files, layers[index]));
		}
		const [own = [], compared] = sessions;
		const events = [...new Set(sessions.flat().flatMap((session) => Object.keys(session)))];
		console.log(
			`layer's handlers in a session of ${TURNS * 2} valid calls, ${runs} runs (medians)` +
				(compared === undefined ? "" : `: this checkout against ${other}`),
		);
		for (const event of [...events, "all"]) {
			const total = (session: Record<string, number[]>) =>
				event === "all"
					? [...totals(session).values()].reduce((sum, micros) => sum + micros, 0)
					: (totals(session).get(event) ?? 0);
			const calls = median(own.map((session) => session[event]?.length ?? 0));
			const perCall = median(own.flatMap((session) => session[event] ?? []));
			let line = `  ${event.padEnd(26)} ${ms(median(own.map(total)))}`;
			// The first call of an event pays what the session compiles and builds once (the first reply, its plans).
			const first = median(own.map((session) => session[event]?.[0] ?? 0));
			if (event !== "all" && calls > 1) {
				line += `  ${String(calls).padStart(4)} calls, ${perCall.toFixed(1).padStart(7)} µs each, the first ${first.toFixed(0)} µs`;
			}
			if (compared !== undefined) {
				const differences = own.map((session, index) => total(session) - total(compared[index] ?? {}));
				line += `  | other ${ms(median(compared.map(total)))}, paired ${median(differences) >= 0 ? "+" : ""}${(median(differences) / 1000).toFixed(2)} ms`;
			}
			console.log(line);
		}
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
}
