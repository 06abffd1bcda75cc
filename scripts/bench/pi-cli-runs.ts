/**
 * Paired runs of the real pi CLI for the startup and session benchmarks.
 *
 * Each run is `node <pi bin> -p --no-session …` with the scripted provider
 * (test/fixtures/scripted-provider.ts) playing a given script, offline, with an
 * isolated agent folder. A preload (`resource-usage.mjs`) writes the pi
 * process's own user+system CPU time and peak resident memory when it exits,
 * so nothing of the wrapper is counted. Runs with and without the layer
 * alternate (the order flips every pair), so both arms see the same load on a
 * shared machine; the medians of each arm, their ratio and difference, and the
 * median of the per-pair ratios are printed.
 *
 * CPU time on a shared machine swings by several percent from run to run,
 * more than the differences these benchmarks look for. `INSTRUCTIONS=<n>`
 * adds `n` pairs counted by valgrind's callgrind instead: the instructions
 * the pi process executed (about a minute per run for the session
 * benchmark). Those runs give V8 one thread and fixed hash and random seeds
 * (`--single-threaded --hash-seed=1 --random-seed=1`), so its compiler and
 * garbage collector do the same work in the same order each time: identical
 * sessions then repeat to within about 0.2%, where V8's own threads made
 * them differ by up to 1.4%. The work those threads did is counted on the
 * main one. A warm-up pair first fills the compile caches these flags get
 * a folder of their own for. Skipped, with a line saying so, when valgrind
 * is not installed.
 *
 * Each command run gives pi a temporary folder of its own (`TMPDIR`), where
 * Node keeps its compile cache and the layer its code cache: the warm-up
 * pair fills both. Shared with every other pi run on the machine, the layer's
 * cache would be whichever an earlier session left (a session that
 * judged repairs compiled more of the layer and leaves a larger one), and a
 * run's figures would depend on it.
 *
 * The paired ratio is printed with a 95% interval (a seeded bootstrap of its
 * median), so a figure can be read against the budget together with how
 * far this run's pairs let it be trusted. `PIN=<cpus>` runs every pi process
 * under `taskset -c <cpus>` (one core: `PIN=1`), which takes the scheduler's
 * moves between cores out of the noise; what users feel is the unpinned run.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const PI_BIN = join(ROOT, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js");
const PROVIDER = join(ROOT, "test/fixtures/scripted-provider.ts");
const USAGE = join(ROOT, "scripts/bench/resource-usage.mjs");

/** Whether `checkout` holds a built layer: the benches measure `dist/bundle/layer.cjs`, which `npm run build` makes. */
export function hasBuiltLayer(checkout: string): boolean {
	return existsSync(join(checkout, "dist", "bundle", "layer.cjs"));
}

/** What a bench prints for `COMPARE=<checkout>` when that checkout holds no built layer. */
export function unbuiltCompare(checkout: string): string {
	return `COMPARE=${checkout} holds no built layer: run \`npm run build\` there first`;
}

export interface Usage {
	/** User and system CPU together: what the budgets are read against. */
	cpuMs: number;
	userMs: number;
	systemMs: number;
	/** The main thread's share of `cpuMs` (Linux only): where the layer's own code runs. */
	mainThreadMs?: number;
	rssMiB: number;
}

/** One arm of a pair: the extension arguments and agent folder it runs with. */
export interface Arm {
	/** Arguments placed after the scripted provider's `-e` (for example `["-e", checkout]`). */
	args: readonly string[];
	/** PI_CODING_AGENT_DIR; a fresh empty one when omitted. */
	agentDir?: string;
	/** Pass `-ne` (no discovered extensions or packages). */
	noExtensions: boolean;
	/** Variables set for this arm's pi processes alone (a control arm's parameters). */
	env?: Readonly<Record<string, string>>;
}

export interface PairedOptions {
	label: string;
	script: unknown;
	/** Files to create in the workspace before each run. */
	files?: Record<string, string>;
	without: Arm;
	with: Arm;
	pairs: number;
	/**
	 * The script of the warm-up pair, when it differs from the measured one:
	 * a session that runs a call leaves the whole code cache a user's later
	 * starts load, one that only answers in text a partial one.
	 */
	warmUp?: unknown;
}

/** Turns of the session of valid calls the session and handler benchmarks play. */
export const VALID_CALL_TURNS = 150;

/** That session: each turn one `read` of a small file and one `bash` of `true` (no repairs), then a closing text. */
export const VALID_CALL_SESSION = {
	script: [
		...Array.from({ length: VALID_CALL_TURNS }, (_, turn) => ({
			toolCalls: [
				{ id: `r${turn}`, name: "read", arguments: { path: "notes.txt" } },
				{ id: `b${turn}`, name: "bash", arguments: { command: "true" } },
			],
		})),
		{ text: "done" },
	],
	/** The workspace's files: the one `read` reads. */
	files: { "notes.txt": "one line of notes\n" } as Record<string, string>,
};

/** V8 on one thread with fixed seeds, so identical sessions execute the same instructions. */
const DETERMINISTIC_V8 = ["--single-threaded", "--hash-seed=1", "--random-seed=1"];

/** How one run is measured: the preload's CPU and memory, callgrind's instruction count, or the layer's timed handlers. */
type Meter = "usage" | "instructions" | "handlers";

/** Packs the package in `folder` into `work` (its lifecycle scripts not run) and returns the tarball's path. */
export function pack(folder: string, work: string): string {
	const result = spawnSync(
		process.platform === "win32" ? "npm.cmd" : "npm",
		["pack", "--json", "--ignore-scripts", "--pack-destination", work],
		{ cwd: folder, encoding: "utf8" },
	);
	if (result.status !== 0) throw new Error(`npm pack failed in ${folder}:\n${result.stderr}`);
	// npm names the file it wrote; the report may follow other output.
	const [entry] = JSON.parse(result.stdout.slice(result.stdout.indexOf("["))) as { filename: string }[];
	if (entry === undefined) throw new Error(`npm pack reported no tarball in ${folder}`);
	return join(work, entry.filename);
}

/** Installs `source` with `pi install` into `agentDir`, offline. */
export function piInstall(agentDir: string, source: string, cwd: string): void {
	const result = spawnSync(process.execPath, [PI_BIN, "install", source], {
		cwd,
		encoding: "utf8",
		env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" },
	});
	if (result.status !== 0) throw new Error(`pi install ${source} failed:\n${result.stdout}\n${result.stderr}`);
}

/**
 * Packs a control package into `work`: laid out like the layer's (a manifest
 * naming a TypeScript entry), with `extension` as that entry's source, and
 * returns the tarball's path. It separates what pi spends on any installed
 * package from what the layer adds.
 */
export function controlPackage(work: string, extension: string): string {
	const folder = join(work, "control");
	mkdirSync(folder);
	writeFileSync(
		join(folder, "package.json"),
		JSON.stringify({
			name: "pi-repair-control",
			version: "1.0.0",
			type: "module",
			pi: { extensions: ["./extension.ts"] },
		}),
	);
	writeFileSync(join(folder, "extension.ts"), extension);
	return pack(folder, work);
}

/**
 * An agent folder in `work` holding this checkout as pi installs a published
 * package: the packed tarball, installed with `pi install`.
 */
export function installedAgent(work: string): string {
	const tarball = pack(ROOT, work);
	const agentDir = join(work, "agent-installed");
	mkdirSync(agentDir);
	piInstall(agentDir, `npm:pi-repair-layer@file:${tarball}`, work);
	return agentDir;
}

/** Runs pi once and returns the usage its preload recorded. */
export function runPi(arm: Arm, scriptPath: string, files: Record<string, string> = {}): Usage {
	return JSON.parse(runMetered(arm, scriptPath, files, "usage")) as Usage;
}

/**
 * Runs pi once with the layer of the built checkout `layer` (this one by
 * default) loaded through test/fixtures/timed-layer.ts and returns the times
 * of its handlers: microseconds per call, by event.
 */
export function timeHandlers(
	arm: Arm,
	scriptPath: string,
	files: Record<string, string> = {},
	layer = ROOT,
): Record<string, number[]> {
	return JSON.parse(runMetered(arm, scriptPath, files, "handlers", layer)) as Record<string, number[]>;
}

/** Runs pi once under callgrind and returns the instructions the pi process executed. */
export function countInstructions(arm: Arm, scriptPath: string, files: Record<string, string> = {}): number {
	const refs = /I\s+refs:\s+([\d,]+)/.exec(runMetered(arm, scriptPath, files, "instructions"));
	if (refs?.[1] === undefined) throw new Error("callgrind printed no instruction count");
	return Number(refs[1].replaceAll(",", ""));
}

function runMetered(arm: Arm, scriptPath: string, files: Record<string, string>, meter: Meter, layer = ROOT): string {
	const work = mkdtempSync(join(tmpdir(), "pi-repair-bench-"));
	try {
		const workspace = join(work, "workspace");
		mkdirSync(workspace);
		for (const [name, content] of Object.entries(files)) writeFileSync(join(workspace, name), content);
		// One folder per command run (beside the script): its caches outlive each pi run, and no other run reads them.
		const piTemp = join(dirname(scriptPath), "tmp");
		mkdirSync(piTemp, { recursive: true });
		const agentDir = arm.agentDir ?? join(work, "agent");
		mkdirSync(agentDir, { recursive: true });
		const usagePath = join(work, "usage.json");
		const handlersPath = join(work, "handlers.json");
		const metered =
			meter === "usage"
				? [process.execPath, "--import", USAGE]
				: meter === "handlers"
					? [process.execPath]
					: [
							"valgrind",
							"--tool=callgrind",
							"--callgrind-out-file=/dev/null",
							"--trace-children=no",
							process.execPath,
							...DETERMINISTIC_V8,
						];
		const command = [...pinning(), ...metered];
		const result = spawnSync(
			command[0] ?? process.execPath,
			[
				...command.slice(1),
				PI_BIN,
				"-p",
				"--no-session",
				...(arm.noExtensions ? ["-ne"] : []),
				"-e",
				PROVIDER,
				...arm.args,
				"--provider",
				"scripted",
				"--model",
				"scripted-1",
				"go",
			],
			{
				cwd: workspace,
				encoding: "utf8",
				maxBuffer: 64 * 1024 * 1024,
				timeout: 300_000,
				env: {
					...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("PI_"))),
					PATH: [dirname(process.execPath), process.env.PATH ?? ""].join(delimiter),
					TMPDIR: piTemp,
					PI_CODING_AGENT_DIR: agentDir,
					PI_OFFLINE: "1",
					PI_SCRIPTED_SCRIPT: scriptPath,
					PI_TOOL_REPAIR_TELEMETRY: join(work, "telemetry.jsonl"),
					PI_TOOL_REPAIR_SETTINGS: join(work, "settings.json"),
					PI_REPAIR_BENCH_USAGE: usagePath,
					PI_REPAIR_BENCH_HANDLERS: handlersPath,
					PI_REPAIR_BENCH_LAYER: layer,
					NO_COLOR: "1",
					...arm.env,
				},
			},
		);
		const written = meter === "usage" ? usagePath : meter === "handlers" ? handlersPath : undefined;
		if (result.status !== 0 || (written !== undefined && !existsSync(written)))
			throw new Error(`pi exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
		return written === undefined ? result.stderr : readFileSync(written, "utf8");
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
}

/** `taskset -c <cpus>` when `PIN` is set (and taskset is installed), else nothing. */
function pinning(): string[] {
	const cpus = process.env.PIN;
	if (cpus === undefined || cpus === "") return [];
	pinnable ??= spawnSync("taskset", ["--version"]).status === 0;
	if (!pinnable) throw new Error("PIN is set, but taskset is not installed");
	return ["taskset", "-c", cpus];
}
let pinnable: boolean | undefined;

/**
 * The 2.5th and 97.5th percentiles of the median of `values` resampled with
 * replacement, from a fixed seed so a run's printed figures repeat.
 */
function medianInterval(values: readonly number[], resamples = 2000): [number, number] {
	let state = 0x2545f491;
	const next = () => {
		state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
		return state / 2 ** 32;
	};
	const medians: number[] = [];
	for (let round = 0; round < resamples; round += 1)
		medians.push(median(values.map(() => values[Math.floor(next() * values.length)] ?? Number.NaN)));
	medians.sort((a, b) => a - b);
	return [medians[Math.floor(resamples * 0.025)] ?? Number.NaN, medians[Math.floor(resamples * 0.975)] ?? Number.NaN];
}

export function median(values: readonly number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

export interface PairedResult {
	label: string;
	withoutCpuMs: number;
	withCpuMs: number;
	cpuRatio: number;
	pairedCpuRatio: number;
	/** A 95% interval of `pairedCpuRatio` (seeded bootstrap of the pairs). */
	pairedCpuInterval: [number, number];
	withoutRssMiB: number;
	withRssMiB: number;
	rssDifferenceMiB: number;
}

/** Runs `pairs` alternating pairs after one warm-up pair (pi's and the loader's caches), and prints the medians. */
export function pairedRuns(options: PairedOptions): PairedResult {
	const scriptDir = mkdtempSync(join(tmpdir(), "pi-repair-bench-script-"));
	try {
		const scriptPath = join(scriptDir, "script.json");
		writeFileSync(scriptPath, JSON.stringify(options.script));
		const warmPath = join(scriptDir, "warm-up.json");
		writeFileSync(warmPath, JSON.stringify(options.warmUp ?? options.script));
		runPi(options.without, warmPath, options.files);
		runPi(options.with, warmPath, options.files);
		const without: Usage[] = [];
		const withLayer: Usage[] = [];
		for (let pair = 0; pair < options.pairs; pair += 1) {
			const order = pair % 2 === 0 ? [false, true] : [true, false];
			for (const layered of order) {
				if (layered) withLayer.push(runPi(options.with, scriptPath, options.files));
				else without.push(runPi(options.without, scriptPath, options.files));
			}
		}
		const result = reportPairs(options.label, without, withLayer, process.env.PIN);
		keepSamples(options.label, without, withLayer);
		countedPairs(options, scriptPath, warmPath);
		return result;
	} finally {
		rmSync(scriptDir, { recursive: true, force: true });
	}
}

/**
 * Prints the medians of both arms, their ratio and difference, the paired
 * ratio with its interval, and the CPU split, for pairs already run
 * (`without[i]` and `withLayer[i]` are one pair).
 */
export function reportPairs(
	label: string,
	without: readonly Usage[],
	withLayer: readonly Usage[],
	pin: string | undefined,
): PairedResult {
	const withoutCpuMs = median(without.map((usage) => usage.cpuMs));
	const withCpuMs = median(withLayer.map((usage) => usage.cpuMs));
	const withoutRssMiB = median(without.map((usage) => usage.rssMiB));
	const withRssMiB = median(withLayer.map((usage) => usage.rssMiB));
	const pairRatios = withLayer.map((usage, index) => usage.cpuMs / (without[index]?.cpuMs ?? Number.NaN));
	const result: PairedResult = {
		label,
		withoutCpuMs,
		withCpuMs,
		cpuRatio: withCpuMs / withoutCpuMs,
		pairedCpuRatio: median(pairRatios),
		pairedCpuInterval: medianInterval(pairRatios),
		withoutRssMiB,
		withRssMiB,
		rssDifferenceMiB: withRssMiB - withoutRssMiB,
	};
	console.log(
		`${label.padEnd(28)} CPU ${result.withoutCpuMs.toFixed(0)} -> ${result.withCpuMs.toFixed(0)} ms` +
			` (${result.cpuRatio.toFixed(3)}x, paired ${result.pairedCpuRatio.toFixed(3)}x` +
			` [95% ${result.pairedCpuInterval[0].toFixed(3)}-${result.pairedCpuInterval[1].toFixed(3)}], ` +
			`${(result.withCpuMs - result.withoutCpuMs).toFixed(0)} ms)` +
			`  peak RSS ${result.withoutRssMiB.toFixed(1)} -> ${result.withRssMiB.toFixed(1)} MiB` +
			` (${signed(result.rssDifferenceMiB)} MiB)` +
			`  ${without.length} pairs${pin ? `, pinned to CPU ${pin}` : ""}`,
	);
	printSplit(without, withLayer);
	return result;
}

/** What `SAMPLES=<folder>` keeps of one comparison: its label, its pinning and every pair's measures (numbers only). */
export interface Samples {
	label: string;
	/** `PIN` of the run, when its pi processes were pinned. */
	pin?: string;
	without: Usage[];
	with: Usage[];
}

/**
 * With `SAMPLES=<folder>`, writes the pairs of one comparison there as JSON,
 * so runs of the same comparison at other hours can be read as one
 * (`npm run bench:pool -- <files>`).
 */
function keepSamples(label: string, without: Usage[], withLayer: Usage[]): void {
	const folder = process.env.SAMPLES;
	if (folder === undefined || folder === "") return;
	mkdirSync(folder, { recursive: true });
	const slug = label.replace(/[^a-z0-9]+/gi, "-").toLowerCase();
	const pin = process.env.PIN;
	const samples: Samples = { label, ...(pin ? { pin } : {}), without, with: withLayer };
	const path = join(folder, `${slug}-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
	writeFileSync(path, `${JSON.stringify(samples)}\n`);
	console.log(`${"".padEnd(28)} pairs kept in ${path}`);
}

/**
 * The same pairs' CPU split two ways, each part with its paired difference
 * and interval, so a reader sees which part a difference lies in: user and
 * system (the layer makes no system calls per message; pi spawning `bash`
 * and page faults are system time), then pi's main thread, where the
 * layer's own code runs, and the rest of the process (V8's optimizing
 * compiler and garbage-collector helpers, libuv's file system threads).
 */
function printSplit(without: readonly Usage[], withLayer: readonly Usage[]): void {
	type Part = readonly [string, (usage: Usage) => number];
	const describe = (parts: readonly Part[]) =>
		parts.map(([name, read]) => {
			const before = median(without.map(read));
			const after = median(withLayer.map(read));
			const differences = withLayer.map((usage, index) => read(usage) - read(without[index] ?? usage));
			const [low, high] = medianInterval(differences);
			return (
				`${name} ${before.toFixed(0)} -> ${after.toFixed(0)} ms` +
				` (paired ${signed(median(differences))} ms [95% ${signed(low)} to ${signed(high)}])`
			);
		});
	const print = (lines: readonly string[]) => console.log(`${"".padEnd(28)} ${lines.join("  ")}`);
	print(
		describe([
			["user", (usage) => usage.userMs],
			["system", (usage) => usage.systemMs],
		]),
	);
	if ([...without, ...withLayer].some((usage) => usage.mainThreadMs === undefined)) {
		print(["main thread: not measured here (no per-thread scheduler statistics)"]);
		return;
	}
	// Every run measured it (checked above): the fallback is never read.
	const mainThread = (usage: Usage) => usage.mainThreadMs ?? Number.NaN;
	print(
		describe([
			["main thread", mainThread],
			["other threads", (usage) => usage.cpuMs - mainThread(usage)],
		]),
	);
}

/** `value` to one decimal with its sign, `+` included. */
function signed(value: number): string {
	return `${value >= 0 ? "+" : ""}${value.toFixed(1)}`;
}

/** `INSTRUCTIONS=<n>` pairs counted by callgrind, alternating like the CPU pairs; prints the medians and their ratio. */
function countedPairs(options: PairedOptions, scriptPath: string, warmPath: string): void {
	const pairs = Number(process.env.INSTRUCTIONS);
	if (!Number.isInteger(pairs) || pairs <= 0) return;
	if (spawnSync("valgrind", ["--version"]).status !== 0) {
		console.log(`${options.label.padEnd(28)} instructions: skipped, valgrind is not installed`);
		return;
	}
	// The flags give the compile caches a folder of their own: the first run of each arm fills it.
	countInstructions(options.without, warmPath, options.files);
	countInstructions(options.with, warmPath, options.files);
	const without: number[] = [];
	const withLayer: number[] = [];
	for (let pair = 0; pair < pairs; pair += 1) {
		const order = pair % 2 === 0 ? [false, true] : [true, false];
		for (const layered of order) {
			if (layered) withLayer.push(countInstructions(options.with, scriptPath, options.files));
			else without.push(countInstructions(options.without, scriptPath, options.files));
		}
	}
	const before = median(without);
	const after = median(withLayer);
	console.log(
		`${options.label.padEnd(28)} instructions ${(before / 1e6).toFixed(0)}M -> ${(after / 1e6).toFixed(0)}M` +
			` (${(after / before).toFixed(4)}x, +${((after - before) / 1e6).toFixed(0)}M)  ${pairs} pairs` +
			`  (spread: ${spreadM(without)} and ${spreadM(withLayer)})`,
	);
}

/** The range of counts in millions, so a reader sees how closely runs of one arm repeat. */
function spreadM(counts: readonly number[]): string {
	return `${(Math.min(...counts) / 1e6).toFixed(1)}-${(Math.max(...counts) / 1e6).toFixed(1)}M`;
}

/** How many pairs to run: `PAIRS=<n>` in the environment, else `fallback`. */
export function pairCount(fallback: number): number {
	return countFromEnv("PAIRS", fallback);
}

/** A positive whole number from the environment variable `name`, else `fallback`. */
export function countFromEnv(name: string, fallback: number): number {
	const wanted = Number(process.env[name]);
	return Number.isInteger(wanted) && wanted > 0 ? wanted : fallback;
}
