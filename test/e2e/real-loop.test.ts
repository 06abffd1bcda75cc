/**
 * The classic mistakes, end to end through pi's real agent loop in-process
 * (createAgentSession + DefaultResourceLoader loading this extension, pi-ai's
 * faux provider scripting the calls): each ends in the right outcome, the
 * workspace shows the effect, and the tool result the model sees carries the
 * repair note, or the retry message.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type PiSessionHarness, startPiSession } from "../helpers/pi-session.ts";

const NOTE = "<repair_note>";

function countNotes(text: string): number {
	return text.split(NOTE).length - 1;
}

describe("classic mistakes through pi's real agent loop", () => {
	let run: PiSessionHarness | undefined;
	afterEach(async () => {
		await run?.dispose();
		run = undefined;
	});

	async function play(
		calls: { id: string; name: string; arguments?: Record<string, unknown>; rawArguments?: string }[],
		options: Parameters<typeof startPiSession>[0] = {},
	): Promise<PiSessionHarness> {
		run = await startPiSession(options);
		await run.play([{ toolCalls: calls }, { type: "echo" }]);
		return run;
	}

	it("renames an aliased path field, reads the file and names the alias in the note", async () => {
		const r = await play([{ id: "c1", name: "read", arguments: { file_path: "notes.md" } }], {
			files: { "notes.md": "# Project notes\n" },
		});
		expect(r.toolResult("c1")?.isError).toBe(false);
		const text = r.resultText("c1");
		expect(text).toContain("# Project notes");
		expect(countNotes(text)).toBe(1);
		expect(text).toContain("file_path");
	});

	it("passes a valid call through untouched, without a note", async () => {
		const r = await play([{ id: "c1", name: "read", arguments: { path: "notes.md" } }], {
			files: { "notes.md": "plain\n" },
		});
		expect(r.toolResult("c1")?.isError).toBe(false);
		expect(r.resultText("c1")).not.toContain(NOTE);
		expect(r.resultText("c1")).toContain("plain");
	});

	it("parses stringified edits and applies them", async () => {
		const r = await play(
			[
				{
					id: "c1",
					name: "edit",
					arguments: { path: "a.txt", edits: JSON.stringify([{ old_text: "beta", new_text: "delta" }]) },
				},
			],
			{ files: { "a.txt": "alpha beta gamma\n" } },
		);
		expect(r.readFile("a.txt")).toBe("alpha delta gamma\n");
		expect(r.toolResult("c1")?.isError).toBe(false);
		expect(r.resultText("c1")).toContain(NOTE);
	});

	it("folds flat old/new fields (and the path alias) into one edit", async () => {
		const r = await play(
			[{ id: "c1", name: "edit", arguments: { file_path: "b.txt", old_string: "two", new_string: "2" } }],
			{ files: { "b.txt": "one two three\n" } },
		);
		expect(r.readFile("b.txt")).toBe("one 2 three\n");
		const text = r.resultText("c1");
		expect(text).toContain(NOTE);
		expect(text).toContain("file_path");
	});

	it("drops a null optional of a tool without strict sampling and says so", async () => {
		const r = await play([{ id: "c1", name: "ls", arguments: { path: ".", limit: null } }], {
			files: { "seen.txt": "x" },
		});
		expect(r.toolResult("c1")?.isError).toBe(false);
		const text = r.resultText("c1");
		expect(text).toContain("seen.txt");
		expect(countNotes(text)).toBe(1);
		expect(text).toContain("limit");
	});

	it("treats a null optional of a strict-sampling tool as omitted: no note", async () => {
		const r = await play([{ id: "c1", name: "read", arguments: { path: "n.txt", offset: null, limit: null } }], {
			files: { "n.txt": "strict\n" },
		});
		expect(r.toolResult("c1")?.isError).toBe(false);
		expect(r.resultText("c1")).toContain("strict");
		expect(r.resultText("c1")).not.toContain(NOTE);
		expect(r.telemetry()).toEqual([]);
	});

	it("unwraps a markdown auto-link path", async () => {
		const r = await play([{ id: "c1", name: "read", arguments: { path: "[notes.md](http://notes.md)" } }], {
			files: { "notes.md": "linked\n" },
		});
		expect(r.toolResult("c1")?.isError).toBe(false);
		expect(r.resultText("c1")).toContain("linked");
		expect(countNotes(r.resultText("c1"))).toBe(1);
	});

	it("rescues a JSON-stringified root object at message_end and runs it", async () => {
		const r = await play([
			{ id: "c1", name: "write", rawArguments: JSON.stringify(JSON.stringify({ path: "s.txt", content: "root\n" })) },
		]);
		expect(r.readFile("s.txt")).toBe("root\n");
		expect(r.toolResult("c1")?.isError).toBe(false);
		expect(countNotes(r.resultText("c1"))).toBe(1);
	});

	it("rescues a singleton array of the argument object", async () => {
		const r = await play([
			{ id: "c1", name: "write", rawArguments: JSON.stringify([{ path: "one.txt", content: "single\n" }]) },
		]);
		expect(r.readFile("one.txt")).toBe("single\n");
		expect(r.resultText("c1")).toContain(NOTE);
	});

	it("completes an object truncated after a complete value", async () => {
		const r = await play([{ id: "c1", name: "write", rawArguments: '{"path":"t.txt","content":"abc"' }]);
		expect(r.readFile("t.txt")).toBe("abc");
		expect(r.toolResult("c1")?.isError).toBe(false);
		expect(r.resultText("c1")).toContain(NOTE);
	});

	it("never completes a command cut inside its string: the call is refused and nothing runs", async () => {
		const r = await play([{ id: "c1", name: "bash", rawArguments: '{"command":"touch ran.txt && echo cut' }]);
		expect(r.toolResult("c1")?.isError).toBe(true);
		expect(r.readFile("ran.txt")).toBeUndefined();
		expect(r.resultText("c1")).toContain("Received arguments:");
	});

	it("never reads argument text that gives a key twice: the call is refused and neither value runs", async () => {
		const r = await play([
			{ id: "c1", name: "bash", rawArguments: '{"command": "touch first.txt", "command": "touch second.txt",}' },
		]);
		expect(r.toolResult("c1")?.isError).toBe(true);
		expect(r.readFile("first.txt")).toBeUndefined();
		expect(r.readFile("second.txt")).toBeUndefined();
		expect(r.resultText("c1")).toContain("Received arguments:");
	});

	it("fails closed on garbage with a retry message naming the tool", async () => {
		const r = await play([{ id: "c1", name: "read", arguments: { nothing: "useful" } }]);
		expect(r.toolResult("c1")?.isError).toBe(true);
		const text = r.resultText("c1");
		expect(text).toContain("read");
		expect(text).toContain("Received:");
		expect(text).not.toContain(NOTE);
	});

	it("never turns a null content into the text null on disk", async () => {
		const r = await play([{ id: "c1", name: "write", arguments: { path: "null.txt", content: null } }]);
		expect(r.toolResult("c1")?.isError).toBe(true);
		expect(r.readFile("null.txt")).toBeUndefined();
		expect(r.readFile("null")).toBeUndefined();
	});
});

describe("every one of the eight built-ins goes through the pipeline", () => {
	let run: PiSessionHarness | undefined;
	afterEach(async () => {
		await run?.dispose();
		run = undefined;
	});

	// Each call uses an alias the tool's table knows; whether the tool itself then succeeds
	// (grep and find need ripgrep and fd, powershell needs pwsh) does not change that the
	// repaired call ran and its result, success or error, carries the note.
	const aliased = [
		{ id: "read", name: "read", arguments: { file_path: "a.txt" } },
		{ id: "bash", name: "bash", arguments: { cmd: "echo via-bash" } },
		{ id: "edit", name: "edit", arguments: { path: "b.txt", changes: [{ oldText: "one", newText: "1" }] } },
		{ id: "write", name: "write", arguments: { path: "w.txt", text: "written\n" } },
		{ id: "grep", name: "grep", arguments: { query: "alpha", path: "." } },
		{ id: "find", name: "find", arguments: { glob: "*.txt" } },
		{ id: "ls", name: "ls", arguments: { directory: "." } },
		{ id: "powershell", name: "powershell", arguments: { cmd: "Write-Output via-powershell" } },
	];

	it("repairs an aliased call to each of them and attaches exactly one note to its result", async () => {
		run = await startPiSession({ files: { "a.txt": "alpha\n", "b.txt": "one two\n" } });
		await run.play([{ toolCalls: aliased }, { type: "echo" }]);
		for (const call of aliased) {
			expect(run.toolResult(call.id), call.id).toBeDefined();
			expect(countNotes(run.resultText(call.id)), call.id).toBe(1);
		}
		expect(run.readFile("b.txt")).toBe("1 two\n");
		expect(run.readFile("w.txt")).toBe("written\n");
		expect(run.resultText("bash")).toContain("via-bash");
		expect(
			run
				.telemetry()
				.filter((r) => r.outcome === "repaired")
				.map((r) => r.tool),
		).toEqual(aliased.map((call) => call.name));
	});
});
