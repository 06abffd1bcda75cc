/**
 * Through pi's real agent loop in-process (createAgentSession with this
 * extension, pi-ai's faux provider playing the script): a tool-name repair
 * never changes what a call means (another agent's `execute_command` with its
 * own `cwd`, a millisecond `timeout`), and the bounds are on work, not bytes
 * (a 1 MB `write` whose only mistake is `file_path` is written in full).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type PiSessionHarness, startPiSession } from "../helpers/pi-session.ts";

describe("renames keep meaning, bounds are on work", () => {
	let run: PiSessionHarness | undefined;
	afterEach(async () => {
		await run?.dispose();
		run = undefined;
	});

	/** A session whose settings file turns `repairToolNames` on before the extension loads. */
	async function withToolNameRepair(): Promise<PiSessionHarness> {
		const root = mkdtempSync(join(tmpdir(), "pi-repair-names-"));
		writeFileSync(join(root, "settings.json"), JSON.stringify({ repairToolNames: true }));
		run = await startPiSession({ root, env: { PI_TOOL_REPAIR_SETTINGS: join(root, "settings.json") } });
		return run;
	}

	it("never runs another agent's execute_command or a millisecond timeout as bash", async () => {
		const r = await withToolNameRepair();
		const elsewhere = mkdtempSync(join(tmpdir(), "pi-repair-elsewhere-"));
		await r.play([
			{
				toolCalls: [
					{
						id: "c1",
						name: "execute_command",
						arguments: { command: "touch cline.txt", cwd: elsewhere, requires_approval: false },
					},
					{ id: "c2", name: "shell", arguments: { command: "touch slow.txt", timeout: 120000 } },
					{ id: "c3", name: "shell", arguments: { command: "touch plain.txt" } },
				],
			},
			{ type: "echo" },
		]);
		expect(r.toolResult("c1")?.isError).toBe(true);
		expect(r.resultText("c1")).toContain("Tool execute_command not found");
		expect(r.readFile("cline.txt")).toBeUndefined();
		expect(r.toolResult("c2")?.isError).toBe(true);
		expect(r.readFile("slow.txt")).toBeUndefined();
		// A synonym that sends only the key it shares with bash still runs as bash.
		expect(r.toolResult("c3")?.isError).toBe(false);
		expect(r.readFile("plain.txt")).toBe("");
		expect(r.resultText("c3")).toContain('"shell"');
	});

	it("writes a 1 MB file whose only mistake is file_path, in full", async () => {
		const content = `${"0123456789abcdef".repeat(65_536)}\n`;
		run = await startPiSession();
		await run.play([
			{ toolCalls: [{ id: "c1", name: "write", arguments: { file_path: "big.txt", content } }] },
			{ type: "echo" },
		]);
		expect(run.toolResult("c1")?.isError).toBe(false);
		expect(run.readFile("big.txt")).toBe(content);
		expect(run.resultText("c1")).toContain("file_path");
		expect(run.resultText("c1")).not.toMatch(/too large|smaller/);
	});
});
