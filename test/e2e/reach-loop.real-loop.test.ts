/**
 * Three shapes models send, through pi's real agent loop in-process
 * (createAgentSession with this extension, pi-ai's faux provider playing the
 * script): a split call (empty native arguments, the arguments leaked as DSML,
 * cline#13348) runs as the one call it is; DeepSeek V4.1 `bash` debris runs
 * only as pi's active built-in; a reply that stops on reasoning alone is asked
 * once, visibly, and nothing in the reasoning runs.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { CONTINUATION_MESSAGE_TYPE } from "../../src/extension/leaks/continuation.ts";
import repairExtension from "../../src/index.ts";
import { dsmlBlock } from "../fixtures/split-calls.ts";
import { type PiSessionHarness, startPiSession } from "../helpers/pi-session.ts";

const BAR = "\uff5c";

function settingsFile(settings: Record<string, unknown>): string {
	const path = join(mkdtempSync(join(tmpdir(), "pi-repair-reach-")), "settings.json");
	writeFileSync(path, JSON.stringify(settings));
	return path;
}

/** The continuation notes each provider request carried, in request order. */
function notesRecorder(requests: string[][]) {
	return (pi: ExtensionAPI) => {
		pi.on("context", (event) => {
			requests.push(
				event.messages.flatMap((message) => {
					const record = message as { customType?: string; content?: unknown };
					if (record.customType !== CONTINUATION_MESSAGE_TYPE) return [];
					return [typeof record.content === "string" ? record.content : JSON.stringify(record.content)];
				}),
			);
		});
	};
}

/** Text acts only under `grammarRecovery: "recover"`; the default strips. */
const recover = () => ({ PI_TOOL_REPAIR_SETTINGS: settingsFile({ grammarRecovery: "recover" }) });

describe("split calls, bash debris and reasoning-only stops through pi's real agent loop", () => {
	let run: PiSessionHarness | undefined;
	afterEach(async () => {
		await run?.dispose();
		run = undefined;
	});

	it("merges a native read with empty arguments and its leaked DSML arguments into the one call (cline#13348)", async () => {
		run = await startPiSession({ model: "deepseek-v4-flash", files: { "notes.md": "merged hello\n" }, env: recover() });
		await run.play([
			{
				text: `Reading the notes.\n${dsmlBlock("read", { path: "notes.md" })}`,
				toolCalls: [{ id: "c1", name: "read", arguments: {} }],
			},
			{ type: "echo" },
		]);
		expect(run.toolResult("c1")?.isError).toBe(false);
		expect(run.resultText("c1")).toContain("merged hello");
		expect(run.resultText("c1")).toContain("merged into one read call");
		expect(run.toolResults()).toHaveLength(1);
		const first = run.session.messages.find((message) => message.role === "assistant") as {
			content: Array<{ type: string; text?: string }>;
		};
		expect(first.content.find((part) => part.type === "text")?.text).toBe("Reading the notes.");
		const merged = run
			.telemetry()
			.filter((record) => (record.rules as string[] | undefined)?.includes("mergeSplitCall"));
		expect(merged).toEqual([expect.objectContaining({ tool: "read", grammar: "dsml", outcome: "recovered" })]);
		// The merged call runs once, repaired or valid: the empty half is never counted as a refused call.
		expect(run.telemetry().filter((record) => record.outcome === "unrepairable")).toEqual([]);
		expect(JSON.stringify(run.telemetry())).not.toContain("notes.md");
	});

	it("leaves the halves apart when the leak names another tool: pi's own error for the empty call", async () => {
		run = await startPiSession({ model: "deepseek-v4-flash", files: { "notes.md": "hello\n" }, env: recover() });
		await run.play([
			{
				text: dsmlBlock("bash", { command: "echo split-ran" }),
				toolCalls: [{ id: "c1", name: "read", arguments: {} }],
			},
			{ type: "echo" },
		]);
		expect(run.toolResult("c1")?.isError).toBe(true);
		expect(run.toolResults()).toHaveLength(1);
		expect(JSON.stringify(run.session.messages)).not.toContain("split-ran\\n");
	});

	it("runs DeepSeek V4.1 bash debris as pi's bash, its one required string field the command", async () => {
		run = await startPiSession({ model: "deepseek-v4.1", env: recover() });
		await run.play([
			{ text: `Checking.\n<${BAR}DSML${BAR}bash>echo debris-ran</${BAR}DSML${BAR}bash>` },
			{ type: "echo" },
		]);
		const results = run.toolResults();
		expect(results).toHaveLength(1);
		expect(results[0]?.toolName).toBe("bash");
		expect(run.resultText(results[0]?.toolCallId ?? "")).toContain("debris-ran");
	});

	it("only strips bash debris when bash is not active, or when it is reasoning", async () => {
		run = await startPiSession({ model: "deepseek-v4.1", tools: ["read"], env: recover() });
		await run.play([{ text: `<${BAR}DSML${BAR}bash>echo debris-ran</${BAR}DSML${BAR}bash>` }]);
		expect(run.toolResults()).toHaveLength(0);
		await run.dispose();
		run = await startPiSession({ model: "deepseek-v4.1", env: recover() });
		await run.play([
			{ text: `<think>\n<${BAR}DSML${BAR}bash>echo debris-ran</${BAR}DSML${BAR}bash>\n</think>\nNot now.` },
		]);
		expect(run.toolResults()).toHaveLength(0);
	});

	it("asks once, visibly, after a reply of reasoning alone, naming the tool a call in the reasoning names; nothing runs", async () => {
		const requests: string[][] = [];
		run = await startPiSession({
			model: "glm-4.6",
			files: { "secret-notes.md": "private\n" },
			extensions: [repairExtension, notesRecorder(requests)],
		});
		await run.play([
			{
				thinking:
					"I will read it.\n<tool_call>read\n<arg_key>path</arg_key>\n<arg_value>secret-notes.md</arg_value>\n</tool_call>",
			},
			{ thinking: "Still thinking." },
			{ text: "Done." },
		]);
		// The prompt, one continuation; the second reasoning-only reply is left to the user.
		expect(requests).toHaveLength(2);
		expect(requests[1]).toEqual([
			"Your last reply held only reasoning, with a call to `read` written in it, which was not run. If you meant to call it, call it as a tool; otherwise give your answer.",
		]);
		expect(run.toolResults()).toHaveLength(0);
		const notes = run.session.messages.filter(
			(message) => (message as { customType?: string }).customType === CONTINUATION_MESSAGE_TYPE,
		);
		expect(notes).toHaveLength(1);
		expect(JSON.stringify(run.telemetry())).not.toContain("secret-notes");
	});

	it("merges nothing and runs no debris under the default strip setting", async () => {
		run = await startPiSession({ model: "deepseek-v4-flash", files: { "notes.md": "hello\n" } });
		await run.play([
			{ text: dsmlBlock("read", { path: "notes.md" }), toolCalls: [{ id: "c1", name: "read", arguments: {} }] },
			{ text: `<${BAR}DSML${BAR}bash>echo debris-ran</${BAR}DSML${BAR}bash>` },
		]);
		expect(run.toolResult("c1")?.isError).toBe(true);
		expect(run.toolResults()).toHaveLength(1);
	});

	it("does not ask with askOnSilentStop off", async () => {
		const requests: string[][] = [];
		run = await startPiSession({
			extensions: [repairExtension, notesRecorder(requests)],
			env: { PI_TOOL_REPAIR_SETTINGS: settingsFile({ askOnSilentStop: false }) },
		});
		await run.play([{ thinking: "Thinking only." }]);
		expect(requests).toHaveLength(1);
	});
});
