/**
 * The argument shapes of late 2026 end to end through pi's real agent loop
 * in-process (pi-ai's faux provider scripting the calls): relaxed JSON text
 * is rescued at `message_end` and runs, `""` for an omitted optional field is
 * dropped, a wrapper around the arguments is unwrapped, and keys the tool does
 * not declare are named to the model while telemetry, persisted entries and
 * the diagnostics lines never hold them. Near-misses stay refused and run
 * nothing.
 */
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptedToolCall } from "../fixtures/scripted-provider.ts";
import { type PiSessionHarness, startPiSession } from "../helpers/pi-session.ts";

const NOTE = "<repair_note>";
const NOTES_FILE = "line one\nline two\nline three\n";

describe("argument shapes through pi's real agent loop", () => {
	let run: PiSessionHarness | undefined;
	afterEach(async () => {
		await run?.dispose();
		run = undefined;
	});

	async function play(calls: ScriptedToolCall[], env: Record<string, string> = {}) {
		run = await startPiSession({ files: { "notes.md": NOTES_FILE }, env });
		await run.play([{ toolCalls: calls }, { type: "echo" }]);
		return run;
	}

	it("runs relaxed JSON argument text: a trailing comma, an end token, Python literals, doubled braces", async () => {
		const r = await play([
			{ id: "c1", name: "write", rawArguments: '{"path": "comma.txt", "content": "kept, as sent,}",}' },
			{ id: "c2", name: "read", rawArguments: '{"path": "notes.md"}<|call|>' },
			// grep needs ripgrep, which a test machine may lack: read takes the Python literal instead.
			{ id: "c3", name: "read", rawArguments: '{"path": "notes.md", "limit": None}' },
			{ id: "c4", name: "write", rawArguments: '{{"path": "braces.txt", "content": "{{inner}}"}}' },
		]);
		expect(r.readFile("comma.txt")).toBe("kept, as sent,}");
		expect(r.resultText("c1")).toContain(NOTE);
		expect(r.resultText("c1")).toContain("trailing comma");
		expect(r.resultText("c2")).toContain("line two");
		expect(r.resultText("c2")).toContain("end token");
		expect(r.toolResult("c3")?.isError).toBe(false);
		expect(r.resultText("c3")).toContain("line three");
		expect(r.resultText("c3")).toContain("None");
		expect(r.readFile("braces.txt")).toBe("{{inner}}");
		const rules = r.telemetry().flatMap((record) => (Array.isArray(record.rules) ? record.rules : []));
		for (const id of [
			"envelope.drop-trailing-comma",
			"envelope.strip-end-token",
			"envelope.read-python-literal",
			"envelope.unwrap-doubled-braces",
		]) {
			expect(rules).toContain(id);
		}
	});

	it("refuses relaxed-looking text with other damage, and nothing runs", async () => {
		const r = await play([
			{ id: "c1", name: "bash", rawArguments: '{"command": "touch ran.txt",,}' },
			{ id: "c2", name: "bash", rawArguments: '{"command": "touch cut.txt", "timeout": 5,' },
			{ id: "c3", name: "bash", rawArguments: "{'command': 'touch quoted.txt'}" },
		]);
		for (const id of ["c1", "c2", "c3"]) expect(r.toolResult(id)?.isError, id).toBe(true);
		expect(r.readFile("ran.txt")).toBeUndefined();
		expect(r.readFile("cut.txt")).toBeUndefined();
		expect(r.readFile("quoted.txt")).toBeUndefined();
	});

	it('drops "" for omitted optional numbers and reads the whole file, and keeps "" content as written', async () => {
		const r = await play([
			{ id: "c1", name: "read", arguments: { path: "notes.md", offset: "", limit: "" } },
			{ id: "c2", name: "write", arguments: { path: "empty.txt", content: "" } },
		]);
		expect(r.toolResult("c1")?.isError).toBe(false);
		const text = r.resultText("c1");
		expect(text).toContain("line one");
		expect(text).toContain("line three");
		expect(text).toContain('"offset"');
		expect(r.readFile("empty.txt")).toBe("");
		expect(r.resultText("c2")).not.toContain(NOTE);
	});

	it("unwraps the tool's own {name, arguments} wrapper and refuses another tool's", async () => {
		const r = await play([
			{ id: "c1", name: "read", arguments: { name: "read", arguments: { path: "notes.md" } } },
			{ id: "c2", name: "write", arguments: { name: "bash", arguments: { path: "w.txt", content: "x" } } },
		]);
		expect(r.toolResult("c1")?.isError).toBe(false);
		expect(r.resultText("c1")).toContain("line two");
		expect(r.resultText("c1")).toContain("wrapped");
		expect(r.toolResult("c2")?.isError).toBe(true);
		expect(r.readFile("w.txt")).toBeUndefined();
	});

	it("names undeclared keys to the model only: never in telemetry, persisted entries or the diagnostics line", async () => {
		const secret = `Zq${randomBytes(4).toString("hex")}Start`;
		const stderr: string[] = [];
		const originalWrite = process.stderr.write.bind(process.stderr);
		process.stderr.write = (chunk: string | Uint8Array, ...rest: unknown[]) => {
			stderr.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
			return originalWrite(chunk, ...(rest as []));
		};
		let r: PiSessionHarness;
		try {
			r = await play([{ id: "c1", name: "read", arguments: { path: "notes.md", [secret]: 2, max: 1 } }], {
				PI_TOOL_REPAIR_LOG: "1",
			});
		} finally {
			process.stderr.write = originalWrite;
		}
		// The call ran as pi runs it (the whole file), and the model hears which keys did nothing.
		expect(r.toolResult("c1")?.isError).toBe(false);
		const text = r.resultText("c1");
		expect(text).toContain("line three");
		expect(text).toContain(secret);
		expect(text).toContain('"max"');
		const records = r.telemetry();
		expect(records.some((record) => JSON.stringify(record).includes("reportUndeclaredKeys"))).toBe(true);
		expect(JSON.stringify(records)).not.toContain(secret);
		const entries = r.sessionManager.getEntries().filter((entry) => entry.type === "custom");
		expect(JSON.stringify(entries)).not.toContain(secret);
		expect(stderr.join("")).toContain("reportUndeclaredKeys");
		expect(stderr.join("")).not.toContain(secret);
	});
});
