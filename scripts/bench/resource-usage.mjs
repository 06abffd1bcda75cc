/**
 * Preloaded into the pi process by the CLI benchmarks (`--import`): when the
 * process exits it writes its own user+system CPU time (and each apart), the
 * CPU time of its main thread, and peak resident memory to
 * PI_REPAIR_BENCH_USAGE, so the wrapper that starts it is not counted.
 */
import { readFileSync, writeFileSync } from "node:fs";

/**
 * The main thread's time on a CPU in ms, from Linux's per-thread scheduler
 * statistics (the first field, in ns); `undefined` where there are none. The
 * rest of the process's CPU is V8's and libuv's helper threads: the
 * optimizing compiler, the garbage collector's helpers, file system work.
 */
function mainThreadMs() {
	try {
		const fields = readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ");
		const ns = Number(fields[0]);
		return Number.isFinite(ns) ? ns / 1e6 : undefined;
	} catch {
		// Not Linux, or no scheduler statistics: the split is left out, the totals stay.
		return undefined;
	}
}

const out = process.env.PI_REPAIR_BENCH_USAGE;
if (out) {
	process.on("exit", () => {
		const usage = process.resourceUsage();
		const userMs = usage.userCPUTime / 1000;
		const systemMs = usage.systemCPUTime / 1000;
		// maxRSS is in KiB.
		writeFileSync(
			out,
			JSON.stringify({
				cpuMs: userMs + systemMs,
				userMs,
				systemMs,
				mainThreadMs: mainThreadMs(),
				rssMiB: usage.maxRSS / 1024,
			}),
		);
	});
}
