/**
 * Runs the real pi CLI (the installed `@earendil-works/pi-coding-agent` bin) in
 * print mode against the scripted provider, fully isolated and offline.
 *
 * Each run gets a fresh temporary root holding:
 *   workspace/  the cwd pi runs in (seed it with `files`),
 *   agent/      PI_CODING_AGENT_DIR (so the user's ~/.pi is never read or written),
 *   script.json the provider script (see test/fixtures/scripted-provider.ts),
 *   telemetry.jsonl / settings.json  default PI_TOOL_REPAIR_TELEMETRY / _SETTINGS targets.
 * The command is
 *   node22 <pi bin> -p --no-session -ne -e <scripted provider> -e <extension>
 *     --provider scripted --model <model> [...args] <prompt>
 * run with Node 22 (never the system Node), PI_OFFLINE=1, and only the
 * environment variables the caller passes on top of a cleaned copy of ours
 * (every PI_* variable of the outer process is dropped first).
 *
 * Usage:
 *   const run = await runPiCli({
 *     script: [{ toolCalls: [{ name: "read", arguments: { file_path: "a.txt" } }] }, { type: "echo" }],
 *     files: { "a.txt": "hello\n" },
 *     env: { PI_TOOL_REPAIR_LOG: "1" },
 *   });
 *   run.stdout;            // what pi printed (the echo turn shows the tool results the model saw)
 *   run.readFile("a.txt"); // the workspace after the run
 *   run.cleanup();         // or pass keep: true to inspect run.root afterwards
 * `extension` defaults to this checkout's `index.ts` (the auto-discovery entry);
 * pass a directory to load it the way `pi -e <dir>` does (pi then follows its
 * package.json `pi` manifest), or `false` to run pi without the repair layer.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ScriptStep } from "../fixtures/scripted-provider.ts";
import { readTelemetryRecords, readWorkspaceFile, seedRunFolders } from "./workspace-files.ts";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const SCRIPTED_PROVIDER_PATH = join(REPO_ROOT, "test/fixtures/scripted-provider.ts");
export const EXTENSION_ENTRY = join(REPO_ROOT, "index.ts");
export const PI_BIN = join(REPO_ROOT, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js");

/** Node 22 from the `node` dev dependency; falls back to the running Node (tests already run on 22). */
export function node22(): string {
	const local = join(REPO_ROOT, "node_modules/node/bin/node");
	return existsSync(local) ? local : process.execPath;
}

export interface PiCliOptions {
	script: readonly ScriptStep[];
	/** Model id offered by the scripted provider (PI_SCRIPTED_MODEL). Default `scripted-1`. */
	model?: string;
	/** The user prompt. Default `go`. */
	prompt?: string;
	/** Extra environment for pi (applied last; `undefined` removes a variable). */
	env?: Record<string, string | undefined>;
	/** Files to create in the workspace before the run, relative path -> content. */
	files?: Record<string, string>;
	/** The repair extension to load; default this checkout's `index.ts`; `false` loads none. */
	extension?: string | false;
	/** Extra CLI arguments placed before the prompt (e.g. `["-e", "builtin:codemode"]`). */
	args?: readonly string[];
	/** Kill the run after this long. Default 60 s. */
	timeoutMs?: number;
	/** Pass `-ne` (no discovered or built-in extensions). Default true. */
	noExtensions?: boolean;
	/** Called after the workspace and agent dir exist, before pi starts (e.g. to install into agent/extensions). */
	prepare?: (paths: { root: string; workspace: string; agentDir: string }) => void;
	/** Keep the temporary root after `cleanup()` is called by the test. */
	keep?: boolean;
}

export interface PiCliResult {
	stdout: string;
	stderr: string;
	exitCode: number | null;
	/** The cwd pi ran in. */
	workspace: string;
	/** PI_CODING_AGENT_DIR of the run. */
	agentDir: string;
	/** The temporary root holding workspace, agent dir, script and default telemetry/settings paths. */
	root: string;
	telemetryPath: string;
	settingsPath: string;
	/** Reads a workspace file, or `undefined` when it does not exist. */
	readFile(relativePath: string): string | undefined;
	/** The telemetry file's records (empty when none were written). */
	telemetry(): Record<string, unknown>[];
	cleanup(): void;
}

/** The calling process's environment without any PI_* variable, so nothing of the outer pi leaks into a run. */
function cleanEnvironment(): Record<string, string> {
	const env: Record<string, string> = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (value === undefined || key.startsWith("PI_")) continue;
		env[key] = value;
	}
	return env;
}

/** One isolated print-mode run of the real pi CLI, as both the tests and the demo start it. */
export interface PiProcessOptions {
	/** The cwd pi runs in. */
	cwd: string;
	/** PI_CODING_AGENT_DIR of the run. */
	agentDir: string;
	/** The script the scripted provider plays (PI_SCRIPTED_SCRIPT). */
	scriptPath: string;
	/** Model id offered by the scripted provider and selected. */
	model: string;
	prompt: string;
	/** Where pi writes the session file; omitted means `--no-session`. */
	sessionDir?: string;
	/** The repair extension to load (`-e`); `false` runs pi without it. */
	extension: string | false;
	/** Pass `-ne` (no discovered or built-in extensions). Default true. */
	noExtensions?: boolean;
	/** Extra CLI arguments placed before the prompt. */
	args?: readonly string[];
	/** Environment on top of the cleaned one (applied last; `undefined` removes a variable). */
	env?: Record<string, string | undefined>;
	/** Kill the run after this long. */
	timeoutMs: number;
}

export interface PiProcessResult {
	stdout: string;
	stderr: string;
	exitCode: number | null;
	durationMs: number;
}

/**
 * Runs `node22 <pi bin> -p …` with PI_OFFLINE=1, NO_COLOR=1 and only the
 * environment the caller passes on top of a cleaned copy of ours.
 */
export function spawnPi(options: PiProcessOptions): Promise<PiProcessResult> {
	const nodePath = node22();
	const env: Record<string, string> = {
		...cleanEnvironment(),
		PATH: [dirname(nodePath), process.env.PATH ?? ""].join(delimiter),
		PI_CODING_AGENT_DIR: options.agentDir,
		PI_OFFLINE: "1",
		PI_SCRIPTED_SCRIPT: options.scriptPath,
		PI_SCRIPTED_MODEL: options.model,
		NO_COLOR: "1",
	};
	for (const [key, value] of Object.entries(options.env ?? {})) {
		if (value === undefined) delete env[key];
		else env[key] = value;
	}
	const args = [
		PI_BIN,
		"-p",
		...(options.sessionDir === undefined ? ["--no-session"] : ["--session-dir", options.sessionDir]),
		...(options.noExtensions === false ? [] : ["-ne"]),
		"-e",
		SCRIPTED_PROVIDER_PATH,
		...(options.extension === false ? [] : ["-e", options.extension]),
		"--provider",
		"scripted",
		"--model",
		options.model,
		...(options.args ?? []),
		options.prompt,
	];
	const started = performance.now();
	return new Promise((resolvePromise, reject) => {
		const child = spawn(nodePath, args, { cwd: options.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
			stdout += chunk;
		});
		child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
			stderr += chunk;
		});
		const timer = setTimeout(() => {
			child.kill("SIGKILL");
			stderr += `\n(pi was stopped after ${options.timeoutMs} ms)`;
		}, options.timeoutMs);
		child.on("error", (error) => {
			clearTimeout(timer);
			reject(error);
		});
		child.on("close", (exitCode) => {
			clearTimeout(timer);
			resolvePromise({ stdout, stderr, exitCode, durationMs: performance.now() - started });
		});
	});
}

export async function runPiCli(options: PiCliOptions): Promise<PiCliResult> {
	const root = mkdtempSync(join(tmpdir(), "pi-repair-cli-"));
	const { workspace, agentDir } = seedRunFolders(root, options.files);
	options.prepare?.({ root, workspace, agentDir });
	const scriptPath = join(root, "script.json");
	writeFileSync(scriptPath, JSON.stringify(options.script, null, 2));
	const telemetryPath = join(root, "telemetry.jsonl");
	const settingsPath = join(root, "settings.json");

	const processOptions: PiProcessOptions = {
		cwd: workspace,
		agentDir,
		scriptPath,
		model: options.model ?? "scripted-1",
		prompt: options.prompt ?? "go",
		extension: options.extension === undefined ? EXTENSION_ENTRY : options.extension,
		env: { PI_TOOL_REPAIR_TELEMETRY: telemetryPath, PI_TOOL_REPAIR_SETTINGS: settingsPath, ...options.env },
		timeoutMs: options.timeoutMs ?? 60_000,
	};
	if (options.noExtensions !== undefined) processOptions.noExtensions = options.noExtensions;
	if (options.args !== undefined) processOptions.args = options.args;
	const { stdout, stderr, exitCode } = await spawnPi(processOptions);

	return {
		stdout,
		stderr,
		exitCode,
		workspace,
		agentDir,
		root,
		telemetryPath,
		settingsPath,
		readFile: (relativePath) => readWorkspaceFile(workspace, relativePath),
		telemetry: () => readTelemetryRecords(telemetryPath),
		cleanup() {
			if (!options.keep) rmSync(root, { recursive: true, force: true });
		},
	};
}
