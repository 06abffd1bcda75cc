/**
 * Three failures pi users report, through pi's real agent loop in-process (createAgentSession with
 * this extension, pi-ai's faux provider playing the script): a stringified
 * `edits` list with raw control characters is applied byte for byte, a
 * phantom `toolUse` stop and a stripped leak each continue the loop exactly
 * once with a hidden note, and leaked tool names are renamed only when the
 * setting is on.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { CONTINUATION_MESSAGE_TYPE } from "../../src/extension/leaks/continuation.ts";
import repairExtension from "../../src/index.ts";
import { type PiSessionHarness, startPiSession } from "../helpers/pi-session.ts";

/** The texts of the user-role context messages each provider request carried, in request order. */
function contextRecorder(requests: string[][]) {
	return (pi: ExtensionAPI) => {
		pi.on("context", (event) => {
			requests.push(
				event.messages.flatMap((message) => {
					const record = message as { role?: string; customType?: string; content?: unknown };
					if (record.customType !== CONTINUATION_MESSAGE_TYPE) return [];
					return [typeof record.content === "string" ? record.content : JSON.stringify(record.content)];
				}),
			);
		});
	};
}

function assistantCount(run: PiSessionHarness): number {
	return run.session.messages.filter((message) => message.role === "assistant").length;
}

describe("stringified edits with control characters, phantom tool-use stops and leaked tool names through pi's real agent loop", () => {
	let run: PiSessionHarness | undefined;
	afterEach(async () => {
		await run?.dispose();
		run = undefined;
	});

	it("applies a stringified edits list with raw newlines and tabs byte for byte (pi#8521)", async () => {
		run = await startPiSession({ files: { "m.py": "def f():\n\treturn 1\n" } });
		// The inner JSON text holds a raw line break and a raw tab inside its strings, as in the reports.
		const edits = '[{"oldText": "def f():\n\treturn 1", "newText": "def f():\n\treturn 2\t# two"}]';
		await run.play([{ toolCalls: [{ id: "c1", name: "edit", arguments: { path: "m.py", edits } }] }, { type: "echo" }]);
		expect(run.toolResult("c1")?.isError).toBe(false);
		expect(run.readFile("m.py")).toBe("def f():\n\treturn 2\t# two\n");
		expect(run.resultText("c1")).toContain("<repair_note>");
		expect(run.resultText("c1")).toContain("raw control characters");
	});

	it("continues a phantom toolUse stop exactly once, with a hidden note (pi#9681)", async () => {
		const requests: string[][] = [];
		run = await startPiSession({ extensions: [repairExtension, contextRecorder(requests)] });
		await run.play([
			{ text: "Let me look at the file.", stopReason: "toolUse" },
			{ text: "Still nothing.", stopReason: "toolUse" },
		]);
		// Two provider requests: the prompt and one continuation; the second phantom is left to the user.
		expect(assistantCount(run)).toBe(2);
		expect(requests).toHaveLength(2);
		expect(requests[0]).toEqual([]);
		expect(requests[1]).toHaveLength(1);
		expect(requests[1]?.[0]).toContain("stop reason toolUse");
		const notes = run.session.messages.filter(
			(message) => (message as { customType?: string }).customType === CONTINUATION_MESSAGE_TYPE,
		);
		expect(notes).toHaveLength(1);
		// One value-free counter record per continuation.
		const continued = run.telemetry().filter((record) => record.outcome === "continued");
		expect(continued).toEqual([
			expect.objectContaining({ rules: ["continueSilentStop"], channel: "message", phantom: true }),
		]);
		expect(continued[0]).not.toHaveProperty("grammar");
	});

	it("does not continue a plain answer", async () => {
		const requests: string[][] = [];
		run = await startPiSession({ extensions: [repairExtension, contextRecorder(requests)] });
		await run.play([{ text: "All done." }]);
		expect(requests).toHaveLength(1);
		expect(assistantCount(run)).toBe(1);
	});

	it("asks once after a reply ended with a stripped leak, naming only the tool; the native call then runs", async () => {
		const requests: string[][] = [];
		run = await startPiSession({
			model: "glm-4.6",
			files: { "notes.md": "hello\n" },
			extensions: [repairExtension, contextRecorder(requests)],
		});
		await run.play([
			{ text: "<tool_call>read\n<arg_key>path</arg_key>\n<arg_value>notes.md</arg_value>\n</tool_call>" },
			{ toolCalls: [{ id: "c2", name: "read", arguments: { path: "notes.md" } }] },
			{ text: "Read it." },
		]);
		expect(requests).toHaveLength(3);
		const note = requests[1]?.[0] ?? "";
		expect(note).toBe(
			"Your reply ended with text that looks like a call to `read`, which was not run. If you meant to call it, call it as a tool; otherwise go on.",
		);
		expect(run.resultText("c2")).toContain("hello");
		const continued = run.telemetry().filter((record) => record.outcome === "continued");
		expect(continued).toEqual([expect.objectContaining({ phantom: false })]);
		// The leak is counted once, by its stripped record; the continuation adds no second family count.
		expect(continued[0]).not.toHaveProperty("grammar");
		expect(run.telemetry().filter((record) => record.grammar === "glm")).toHaveLength(1);
		// The telemetry holds the family, never the leaked path.
		expect(JSON.stringify(run.telemetry())).not.toContain("notes.md");
	});

	it("renames functions.read:0 to read when the setting is on, and leaves it to pi when off", async () => {
		const call = { id: "c1", name: "functions.read:0", arguments: { path: "notes.md" } };
		run = await startPiSession({ files: { "notes.md": "named\n" } });
		await run.play([{ toolCalls: [call] }, { type: "echo" }]);
		expect(run.toolResult("c1")?.isError).toBe(true);
		expect(run.resultText("c1")).toContain("not found");
		expect(run.resultText("c1")).not.toContain("available tools");
		await run.dispose();

		run = await startPiSession({ files: { "notes.md": "named\n" } });
		writeFileSync(run.settingsPath, JSON.stringify({ repairToolNames: true }));
		await run.dispose({ keepRoot: true });
		const root = run.root;
		run = await startPiSession({ root, env: { PI_TOOL_REPAIR_SETTINGS: join(root, "settings.json") } });
		await run.play([
			{ toolCalls: [call, { id: "c2", name: "open_file", arguments: { path: "notes.md" } }] },
			{ type: "echo" },
		]);
		expect(run.toolResult("c1")?.isError).toBe(false);
		expect(run.resultText("c1")).toContain("named");
		expect(run.resultText("c1")).toContain('"functions.read:0"');
		// No tool matches open_file: it is left for pi to refuse, and the refusal lists the tools.
		expect(run.toolResult("c2")?.isError).toBe(true);
		expect(run.resultText("c2")).toContain("Tool open_file not found");
		expect(run.resultText("c2")).toContain("The available tools are: read, bash, edit, write");
	});
});
