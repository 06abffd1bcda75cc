/**
 * Preloaded into the pi process by the CLI benchmarks (`--import`): when the
 * process exits it writes its own user+system CPU time (and each apart) and
 * peak resident memory to PI_REPAIR_BENCH_USAGE, so the wrapper that starts it
 * is not counted.
 */
import { writeFileSync } from "node:fs";

const out = process.env.PI_REPAIR_BENCH_USAGE;
if (out) {
	process.on("exit", () => {
		const usage = process.resourceUsage();
		const userMs = usage.userCPUTime / 1000;
		const systemMs = usage.systemCPUTime / 1000;
		// maxRSS is in KiB.
		writeFileSync(out, JSON.stringify({ cpuMs: userMs + systemMs, userMs, systemMs, rssMiB: usage.maxRSS / 1024 }));
	});
}
