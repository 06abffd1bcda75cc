/**
 * The real `pi` CLI in RPC mode, driven the way a client drives it: prompts
 * go in as JSON lines on stdin, extension UI requests (`select`, `input`,
 * `notify`) come out on stdout and are answered with `extension_ui_response`.
 *
 * Usage:
 *   const pi = startPiRpc({ root, env: { PI_TOOL_REPAIR_SETTINGS: path } });
 *   const warning = await pi.next((r) => r.method === "notify");
 *   pi.prompt("/repair-settings");
 *   const menu = await pi.next((r) => r.method === "select");
 *   pi.answer(menu.id, { cancelled: true });
 *   pi.stop();
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { EXTENSION_ENTRY, node22, PI_BIN, SCRIPTED_PROVIDER_PATH } from "./pi-cli.ts";

export interface UiRequest {
	type: string;
	id?: string;
	method?: string;
	title?: string;
	options?: string[];
	message?: string;
}

export interface PiRpc {
	/** The next UI request (seen or still to come) that matches, taken from the queue; rejects after `timeoutMs`. */
	next(matches: (request: UiRequest) => boolean, timeoutMs?: number): Promise<UiRequest>;
	answer(id: string | undefined, body: Record<string, unknown>): void;
	prompt(message: string): void;
	stop(): void;
}

/** Starts pi in RPC mode with the repair extension and the scripted provider, in `root/workspace`. */
export function startPiRpc(options: { root: string; env?: Record<string, string> }): PiRpc {
	const { root } = options;
	const workspace = join(root, "workspace");
	mkdirSync(join(root, "agent"), { recursive: true });
	mkdirSync(workspace, { recursive: true });
	writeFileSync(join(root, "script.json"), "[]");
	const child: ChildProcessWithoutNullStreams = spawn(
		node22(),
		[PI_BIN, "--mode", "rpc", "--no-session", "-ne", "-e", SCRIPTED_PROVIDER_PATH, "-e", EXTENSION_ENTRY].concat([
			"--provider",
			"scripted",
			"--model",
			"scripted-1",
		]),
		{
			cwd: workspace,
			stdio: ["pipe", "pipe", "pipe"],
			env: {
				PATH: `${dirname(node22())}:${process.env.PATH ?? ""}`,
				HOME: root,
				PI_CODING_AGENT_DIR: join(root, "agent"),
				PI_OFFLINE: "1",
				PI_SCRIPTED_SCRIPT: join(root, "script.json"),
				PI_TOOL_REPAIR_TELEMETRY: "off",
				...options.env,
			},
		},
	);
	// Drained so a chatty stderr never fills its pipe and stalls pi.
	child.stderr.resume();
	const seen: UiRequest[] = [];
	const waiting: { matches: (request: UiRequest) => boolean; resolve: (request: UiRequest) => void }[] = [];
	createInterface({ input: child.stdout }).on("line", (line) => {
		let event: UiRequest;
		try {
			event = JSON.parse(line) as UiRequest;
		} catch {
			return;
		}
		if (event.type !== "extension_ui_request") return;
		const waiter = waiting.findIndex((w) => w.matches(event));
		if (waiter === -1) seen.push(event);
		else waiting.splice(waiter, 1)[0]?.resolve(event);
	});
	let promptId = 0;
	return {
		next(matches, timeoutMs = 20_000) {
			const index = seen.findIndex(matches);
			if (index !== -1) return Promise.resolve(seen.splice(index, 1)[0] as UiRequest);
			return new Promise((resolve, reject) => {
				const timer = setTimeout(() => reject(new Error("no such UI request from pi")), timeoutMs);
				waiting.push({
					matches,
					resolve: (request) => {
						clearTimeout(timer);
						resolve(request);
					},
				});
			});
		},
		answer(id, body) {
			child.stdin.write(`${JSON.stringify({ type: "extension_ui_response", id, ...body })}\n`);
		},
		prompt(message) {
			child.stdin.write(`${JSON.stringify({ id: `p${++promptId}`, type: "prompt", message })}\n`);
		},
		stop() {
			child.kill("SIGTERM");
		},
	};
}
