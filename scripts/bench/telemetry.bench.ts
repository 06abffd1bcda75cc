/**
 * Telemetry and `/repair-stats` costs.
 *
 * 1. One record append (the only telemetry work on the tool-call path), per
 *    record type, against building the same record with telemetry off.
 * 2. `/repair-stats` aggregation over synthetic files of 10k, 100k and 1M
 *    records: time, and peak memory above the process baseline. Each size runs
 *    in a fresh child process so the peaks do not mix; the child samples heap
 *    and RSS while it reads and reports `maxRSS` at the end.
 *
 * Run: `npm run bench -- telemetry`.
 */
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { formatStatsPlain } from "../../src/extension/commands/stats-report.ts";
import { aggregateTelemetryFiles } from "../../src/extension/files/stats.ts";
import { createTelemetryRecorder } from "../../src/extension/files/telemetry.ts";
import { measure, printTable, scalingExponent } from "./harness.ts";

/** Set in the child process that measures one aggregation. */
const CHILD_ENV = "PI_REPAIR_BENCH_AGGREGATE";

const dir = process.env[CHILD_ENV] ? "" : mkdtempSync(join(tmpdir(), "pi-repair-bench-telemetry-"));
const file = join(dir, "telemetry.jsonl");

if (process.env[CHILD_ENV]) {
	await aggregateOnce(process.env[CHILD_ENV]);
} else {
	try {
		benchAppend();
		benchAggregation();
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

/** Child side: one aggregation, sampled for peak memory, figures as JSON on stdout. */
async function aggregateOnce(path: string): Promise<void> {
	globalThis.gc?.();
	const baseRss = process.memoryUsage().rss;
	const baseHeap = process.memoryUsage().heapUsed;
	let peakHeap = baseHeap;
	let peakRss = baseRss;
	const sampler = setInterval(() => {
		const usage = process.memoryUsage();
		peakHeap = Math.max(peakHeap, usage.heapUsed);
		peakRss = Math.max(peakRss, usage.rss);
	}, 2);
	const start = performance.now();
	const stats = await aggregateTelemetryFiles([path]);
	const report = stats ? formatStatsPlain(stats, 100) : "";
	const ms = performance.now() - start;
	clearInterval(sampler);
	const usage = process.memoryUsage();
	peakHeap = Math.max(peakHeap, usage.heapUsed);
	peakRss = Math.max(peakRss, usage.rss, process.resourceUsage().maxRSS * 1024);
	const mb = (bytes: number) => bytes / (1024 * 1024);
	process.stdout.write(
		JSON.stringify({
			ms,
			records: stats?.total ?? 0,
			reportLines: report.split("\n").length,
			baseRssMb: mb(baseRss),
			peakRssMb: mb(peakRss),
			peakHeapDeltaMb: mb(peakHeap - baseHeap),
		}),
	);
}

function benchAppend(): void {
	const recorder = createTelemetryRecorder({ path: () => file });
	const off = createTelemetryRecorder({ path: () => undefined });
	const outcome = {
		tool: "read",
		model: "glm-4.6",
		outcome: "repaired" as const,
		rules: ["preprocess.exact-alias", "stripAnchorBleed"],
		issues: "(root)|required|path",
		fingerprint: "c888829a",
		profile: "adaptive",
		stages: ["preprocess", "schema"],
	};
	const message = { model: "glm-4.6", grammars: ["dsml", "qwen"], profile: "adaptive" };
	const cases = [
		measure("A toolOutcome, telemetry off", () => off.toolOutcome(outcome)),
		measure("A toolOutcome, appended", () => recorder.toolOutcome(outcome)),
		measure("B toolObservation, appended", () =>
			recorder.toolObservation({ tool: "ls", model: "kimi-k2", ruleId: "stripAnchorBleed", profile: "conservative" }),
		),
		measure("C grammarRecovered, appended", () =>
			recorder.grammarRecovered({ tool: "read", model: "glm-4.6", grammar: "glm", profile: "recover" }),
		),
		measure("D grammarStripped, appended", () => recorder.grammarStripped(message)),
	];
	printTable(
		"Telemetry append (median of 5 rounds)",
		["case", "µs per record", "records/s"],
		cases.map((c) => [c.name, (c.msPerOp * 1000).toFixed(2), c.opsPerSecond.toFixed(0)]),
	);
	console.log(`\nfile after the run: ${(statSync(file).size / 1e6).toFixed(1)} MB (rotation at 10 MB)`);
}

function benchAggregation(): void {
	const sizes = [10_000, 100_000, 1_000_000];
	const self = fileURLToPath(import.meta.url);
	const rows: string[][] = [];
	const times: number[] = [];
	for (const size of sizes) {
		const path = join(dir, `synthetic-${size}.jsonl`);
		writeSynthetic(path, size);
		const result = spawnSync(process.execPath, ["--expose-gc", self], {
			encoding: "utf8",
			env: { ...process.env, [CHILD_ENV]: path },
		});
		if (result.status !== 0) throw new Error(`aggregation child failed: ${result.stderr}`);
		const figures = JSON.parse(result.stdout) as {
			ms: number;
			records: number;
			baseRssMb: number;
			peakRssMb: number;
			peakHeapDeltaMb: number;
		};
		times.push(figures.ms);
		rows.push([
			size.toLocaleString("en-US"),
			`${(statSync(path).size / 1e6).toFixed(1)} MB`,
			figures.ms.toFixed(0),
			((figures.ms * 1000) / size).toFixed(2),
			figures.baseRssMb.toFixed(0),
			figures.peakRssMb.toFixed(0),
			figures.peakHeapDeltaMb.toFixed(1),
		]);
		rmSync(path, { force: true });
	}
	printTable(
		"/repair-stats aggregation (streaming read + tally + report)",
		["records", "file", "ms", "µs/record", "RSS before MB", "peak RSS MB", "peak heap growth MB"],
		rows,
	);
	const [t10k, t100k, t1m] = times;
	if (t10k && t100k && t1m) {
		console.log(
			`\nscaling exponent 10k→100k: ${scalingExponent(10_000, t10k, 100_000, t100k).toFixed(2)}, ` +
				`100k→1M: ${scalingExponent(100_000, t100k, 1_000_000, t1m).toFixed(2)} (1 = linear)`,
		);
	}
}

/** A realistic mix: mostly tool outcomes over 8 tools and 6 models, some grammar and observation records. */
function writeSynthetic(path: string, count: number): void {
	const tools = ["read", "bash", "edit", "write", "grep", "find", "ls", "powershell"];
	const models = ["glm-4.6", "qwen3-coder-plus", "kimi-k2-instruct", "deepseek-v4-flash", "gpt-oss-120b", "MiniMax-M2"];
	const rules = [
		"preprocess.exact-alias",
		"stripAnchorBleed",
		"dropNullOrUndefinedField",
		"parseJsonString",
		"foldFlatEdit",
	];
	const fd = openSync(path, "w");
	let buffer = "";
	const start = Date.parse("2026-07-01T00:00:00.000Z");
	for (let i = 0; i < count; i++) {
		const ts = new Date(start + i * 1000).toISOString();
		const model = models[i % models.length];
		const kind = i % 20;
		let record: Record<string, unknown>;
		if (kind === 0) {
			record = {
				ts,
				model,
				outcome: "stripped",
				rules: ["grammarStrip"],
				channel: "message",
				grammar: "dsml",
				profile: "adaptive",
				stages: ["grammar"],
			};
		} else if (kind === 1) {
			record = {
				ts,
				tool: "read",
				model,
				outcome: "recovered",
				rules: ["grammarRecovery:glm"],
				grammar: "glm",
				profile: "recover",
				stages: ["grammar"],
			};
		} else if (kind === 2) {
			record = {
				ts,
				tool: "write",
				model,
				outcome: "unrepairable",
				rules: [],
				issues: "/content|type|string",
				fingerprint: "5be1a09c",
				profile: "adaptive",
				stages: [],
			};
		} else {
			record = {
				ts,
				tool: tools[i % tools.length],
				model,
				outcome: "repaired",
				rules: [rules[i % rules.length], rules[(i + 2) % rules.length]],
				profile: "adaptive",
				stages: ["preprocess"],
			};
		}
		buffer += `${JSON.stringify(record)}\n`;
		if (buffer.length > 1 << 20) {
			writeSync(fd, buffer);
			buffer = "";
		}
	}
	writeSync(fd, buffer);
	closeSync(fd);
}
