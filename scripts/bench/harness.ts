/**
 * A small benchmark harness shared by every `*.bench.ts` file in this folder.
 *
 * Each case runs for a fixed time budget in several rounds; the median round
 * gives ops/s. Ratios are always taken against a baseline measured in the same
 * run, so figures from different machines stay comparable. Never used by tests.
 */
import { performance } from "node:perf_hooks";
import { cpuUsage } from "node:process";

export interface Measurement {
	name: string;
	opsPerSecond: number;
	/** Median time of one operation, in milliseconds. */
	msPerOp: number;
}

const ROUNDS = 5;

/** Runs `fn` repeatedly for about `budgetMs` per round and returns the median round's rate. */
export function measure(name: string, fn: () => unknown, budgetMs = 200): Measurement {
	// Warm up so the JIT has seen the code path.
	const warmEnd = performance.now() + Math.min(50, budgetMs / 4);
	while (performance.now() < warmEnd) fn();
	const rates: number[] = [];
	for (let round = 0; round < ROUNDS; round++) {
		let iterations = 0;
		const start = performance.now();
		let elapsed = 0;
		do {
			fn();
			iterations++;
			elapsed = performance.now() - start;
		} while (elapsed < budgetMs / ROUNDS);
		rates.push((iterations * 1000) / elapsed);
	}
	rates.sort((a, b) => a - b);
	const opsPerSecond = rates[Math.floor(rates.length / 2)] ?? 0;
	return { name, opsPerSecond, msPerOp: 1000 / opsPerSecond };
}

/** Process CPU time (user + system) in milliseconds: waiting for a busy core does not count. */
function cpuMs(): number {
	const { user, system } = cpuUsage();
	return (user + system) / 1000;
}

// Every result is kept here, so the JIT cannot drop a call whose result looks unused.
const sink: unknown[] = [undefined];

/** CPU time of `calls` back-to-back calls of `fn`, read once before and once after. */
function batchMs(fn: () => unknown, calls: number): number {
	const start = cpuMs();
	for (let i = 0; i < calls; i++) sink[0] = fn();
	return cpuMs() - start;
}

/** How many calls of `fn` make one batch of at least `batchTargetMs` of CPU time. */
function batchSize(fn: () => unknown, batchTargetMs: number): number {
	let calls = 1;
	for (;;) {
		const ms = batchMs(fn, calls);
		if (ms >= batchTargetMs || calls >= 2 ** 30) return calls;
		calls = ms <= batchTargetMs / 64 ? calls * 16 : Math.ceil((calls * batchTargetMs * 1.2) / Math.max(ms, 0.001));
	}
}

/**
 * Batch timing: each function runs in batches of many calls per timer read
 * (a per-call timer read costs more than a fast call and hides its cost), the
 * functions alternate batch by batch so every side of a ratio sees the same
 * load, and each keeps its fastest batch (other work only slows a batch down).
 * Returns milliseconds per call, in the order given.
 */
export function batchTimes(fns: readonly (() => unknown)[], rounds = 7, batchTargetMs = 15): number[] {
	const sizes = fns.map((fn) => batchSize(fn, batchTargetMs));
	const best = fns.map(() => Number.POSITIVE_INFINITY);
	for (let round = 0; round < rounds; round++) {
		fns.forEach((fn, index) => {
			const calls = sizes[index] ?? 1;
			best[index] = Math.min(best[index] ?? Number.POSITIVE_INFINITY, batchMs(fn, calls) / calls);
		});
	}
	return best;
}

/** Time of a single (possibly long) call in milliseconds: the median of `runs` runs. */
export function timeOnce(fn: () => unknown, runs = 5): number {
	const times: number[] = [];
	for (let i = 0; i < runs; i++) {
		const start = performance.now();
		fn();
		times.push(performance.now() - start);
	}
	times.sort((a, b) => a - b);
	return times[Math.floor(times.length / 2)] ?? 0;
}

/** log(t2/t1) / log(s2/s1): 1 means linear, 2 quadratic. */
export function scalingExponent(size1: number, time1: number, size2: number, time2: number): number {
	return Math.log(time2 / time1) / Math.log(size2 / size1);
}

export function formatRate(opsPerSecond: number): string {
	if (opsPerSecond >= 1e6) return `${(opsPerSecond / 1e6).toFixed(2)} M ops/s`;
	if (opsPerSecond >= 1e3) return `${(opsPerSecond / 1e3).toFixed(1)} k ops/s`;
	return `${opsPerSecond.toFixed(1)} ops/s`;
}

/** Prints rows as an aligned plain-text table. */
export function printTable(title: string, header: readonly string[], rows: readonly (readonly string[])[]): void {
	const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
	const line = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ");
	console.log(`\n## ${title}\n`);
	console.log(line(header));
	console.log(widths.map((w) => "-".repeat(w)).join("  "));
	for (const row of rows) console.log(line(row));
}
