/**
 * `npm run bench:pool -- <file>…`: reads pairs kept by a benchmark run
 * with `SAMPLES=<folder>` and prints each comparison over all of its runs as
 * one, as the run itself prints it. Each pair was measured together, so
 * pairs of runs at different hours can be pooled; the medians of the arms
 * move with the hour and are read with that in mind. Runs pinned to other
 * CPUs (`PIN`) are reported apart.
 */
import { readFileSync } from "node:fs";
import { reportPairs, type Samples, type Usage } from "./pi-cli-runs.ts";

const files = process.argv.slice(2);
if (files.length === 0) {
	console.log("usage: npm run bench:pool -- <samples.json>… (written by a bench run with SAMPLES=<folder>)");
	process.exitCode = 1;
}
const byComparison = new Map<string, { label: string; pin?: string; without: Usage[]; with: Usage[]; runs: number }>();
for (const file of files) {
	const samples = JSON.parse(readFileSync(file, "utf8")) as Samples;
	if (samples.without.length !== samples.with.length) throw new Error(`${file}: the two arms hold different counts`);
	const key = JSON.stringify([samples.label, samples.pin ?? ""]);
	const pooled = byComparison.get(key) ?? { label: samples.label, pin: samples.pin, without: [], with: [], runs: 0 };
	pooled.without.push(...samples.without);
	pooled.with.push(...samples.with);
	pooled.runs += 1;
	byComparison.set(key, pooled);
}
for (const pooled of byComparison.values()) {
	console.log(`${pooled.label}: ${pooled.runs} run(s)`);
	reportPairs(pooled.label, pooled.without, pooled.with, pooled.pin);
}
