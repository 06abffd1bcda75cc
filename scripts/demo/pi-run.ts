/**
 * Runs the real pi CLI of the installed `@earendil-works/pi-coding-agent` in
 * print mode against the scripted provider, and reads back what happened from
 * the session file pi wrote.
 *
 * The run is the tests' own (`spawnPi` in test/helpers/pi-cli.ts), so the demo
 * shows exactly what the end-to-end tests check: its own PI_CODING_AGENT_DIR,
 * PI_OFFLINE=1, every PI_* variable of the calling process dropped, and Node
 * 22 from the `node` dev dependency. The session
 * is written with `--session-dir` so the demo can show, call by call, what the
 * model sent, the tool result the model got back (notes included) and the
 * value-free `tool-repair` entries the extension recorded.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { EXTENSION_ENTRY, type PiProcessResult, spawnPi } from "../../test/helpers/pi-cli.ts";

export { REPO_ROOT } from "../../test/helpers/pi-cli.ts";

export type PiRun = PiProcessResult;

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

/** The tests' own pi runner (`spawnPi`), with the demo's defaults: the layer loaded, a generous timeout. */
export function runPi(options: PiRunOptions): Promise<PiRun> {
	const { withLayer, timeoutMs, ...rest } = options;
	return spawnPi({
		...rest,
		extension: withLayer === false ? false : EXTENSION_ENTRY,
		timeoutMs: timeoutMs ?? 110_000,
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
