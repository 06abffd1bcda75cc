/**
 * Runs the real pi CLI of the installed `@earendil-works/pi-coding-agent` in
 * print mode against the scripted provider, and reads back what happened from
 * the session file pi wrote.
 *
 * The run is isolated: its own PI_CODING_AGENT_DIR, PI_OFFLINE=1, every PI_*
 * variable of the calling process dropped, and Node 22 (the Node running this
 * script, which npm scripts take from the `node` dev dependency). The session
 * is written with `--session-dir` so the demo can show, call by call, what the
 * model sent, the tool result the model got back (notes included) and the
 * value-free `tool-repair` entries the extension recorded.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const PI_BIN = join(REPO_ROOT, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js");
export const SCRIPTED_PROVIDER = join(REPO_ROOT, "test/fixtures/scripted-provider.ts");
/** The auto-discovery entry: loads the extension from source, so no build is needed. */
export const EXTENSION_ENTRY = join(REPO_ROOT, "index.ts");

export interface PiRun {
	stdout: string;
	stderr: string;
	exitCode: number | null;
	durationMs: number;
}

export interface PiRunOptions {
	cwd: string;
	agentDir: string;
	/** Where pi writes the session file; omitted means `--no-session`. */
	sessionDir?: string;
	/** Path of the script JSON the scripted provider plays. */
	scriptPath: string;
	model: string;
	prompt: string;
	/** Extra CLI arguments before the prompt. */
	args?: readonly string[];
	/** Environment on top of the cleaned one (PI_TOOL_REPAIR_* and the like). */
	env?: Record<string, string>;
	timeoutMs?: number;
	/** Load pi-repair-layer (default true); false shows what pi does alone. */
	withLayer?: boolean;
}

function cleanEnvironment(): Record<string, string> {
	const env: Record<string, string> = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (value !== undefined && !key.startsWith("PI_")) env[key] = value;
	}
	return env;
}

export function runPi(options: PiRunOptions): Promise<PiRun> {
	const env: Record<string, string> = {
		...cleanEnvironment(),
		PATH: [dirname(process.execPath), process.env.PATH ?? ""].join(delimiter),
		PI_CODING_AGENT_DIR: options.agentDir,
		PI_OFFLINE: "1",
		PI_SCRIPTED_SCRIPT: options.scriptPath,
		PI_SCRIPTED_MODEL: options.model,
		NO_COLOR: "1",
		...options.env,
	};
	const session = options.sessionDir === undefined ? ["--no-session"] : ["--session-dir", options.sessionDir];
	const args = [
		PI_BIN,
		"-p",
		...session,
		"-ne",
		"-e",
		SCRIPTED_PROVIDER,
		...(options.withLayer === false ? [] : ["-e", EXTENSION_ENTRY]),
		"--provider",
		"scripted",
		"--model",
		options.model,
		...(options.args ?? []),
		options.prompt,
	];
	const started = performance.now();
	return new Promise((resolvePromise, reject) => {
		const child = spawn(process.execPath, args, { cwd: options.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
			stdout += chunk;
		});
		child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
			stderr += chunk;
		});
		const timeoutMs = options.timeoutMs ?? 110_000;
		const timer = setTimeout(() => {
			child.kill("SIGKILL");
			stderr += `\n(pi was stopped after ${timeoutMs} ms)`;
		}, timeoutMs);
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

export interface SessionToolCall {
	id: string;
	name: string;
	arguments: unknown;
	argumentsError?: string;
}

export interface SessionAssistant {
	text: string;
	toolCalls: SessionToolCall[];
	stopReason?: string;
}

export interface SessionToolResult {
	toolCallId: string;
	toolName: string;
	isError: boolean;
	text: string;
}

/** The extension's value-free `tool-repair` entry for one call. */
export interface RepairEntry {
	toolCallId: string;
	tool?: string;
	rules: string[];
	outcome?: string;
}

export interface Transcript {
	assistants: SessionAssistant[];
	results: Map<string, SessionToolResult>;
	repairEntries: Map<string, RepairEntry>;
}

type Block = { type?: string; text?: string; id?: string; name?: string; arguments?: unknown; argumentsError?: string };

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return (content as Block[])
		.filter((block) => block.type === "text")
		.map((block) => block.text ?? "")
		.join("\n");
}

/** Reads the one session file pi wrote under `sessionDir`. */
export function readTranscript(sessionDir: string): Transcript {
	const transcript: Transcript = { assistants: [], results: new Map(), repairEntries: new Map() };
	if (!existsSync(sessionDir)) return transcript;
	const files = readdirSync(sessionDir, { recursive: true, encoding: "utf8" }).filter((file) =>
		file.endsWith(".jsonl"),
	);
	for (const file of files) {
		for (const line of readFileSync(join(sessionDir, file), "utf8").split("\n")) {
			if (line.trim() === "") continue;
			let entry: { type?: string; customType?: string; data?: unknown; message?: Record<string, unknown> };
			try {
				entry = JSON.parse(line) as typeof entry;
			} catch {
				continue;
			}
			if (entry.type === "custom" && entry.customType === "tool-repair") {
				const data = entry.data as Partial<RepairEntry> | undefined;
				if (typeof data?.toolCallId === "string") {
					transcript.repairEntries.set(data.toolCallId, {
						toolCallId: data.toolCallId,
						tool: data.tool,
						rules: Array.isArray(data.rules) ? data.rules : [],
						outcome: data.outcome,
					});
				}
				continue;
			}
			const message = entry.type === "message" ? entry.message : undefined;
			if (message?.role === "assistant") {
				const content = Array.isArray(message.content) ? (message.content as Block[]) : [];
				transcript.assistants.push({
					text: textOf(content),
					stopReason: typeof message.stopReason === "string" ? message.stopReason : undefined,
					toolCalls: content
						.filter((block) => block.type === "toolCall")
						.map((block) => ({
							id: String(block.id),
							name: String(block.name),
							arguments: block.arguments,
							...(typeof block.argumentsError === "string" ? { argumentsError: block.argumentsError } : {}),
						})),
				});
			} else if (message?.role === "toolResult") {
				const id = String(message.toolCallId);
				transcript.results.set(id, {
					toolCallId: id,
					toolName: String(message.toolName),
					isError: message.isError === true,
					text: textOf(message.content),
				});
			}
		}
	}
	return transcript;
}

const NOTE = /<repair_note>([\s\S]*?)<\/repair_note>/g;

/** The bodies of the `<repair_note>` tags in a tool result. */
export function repairNotes(text: string): string[] {
	return [...text.matchAll(NOTE)].map((match) => (match[1] ?? "").trim());
}

/** The tool result text without its repair notes. */
export function withoutNotes(text: string): string {
	return text.replace(NOTE, "").trim();
}
