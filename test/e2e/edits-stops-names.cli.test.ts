/**
 * Three failures pi users report, through the real pi CLI in print mode with the scripted provider:
 * a stringified `edits` list with raw control characters is applied byte for
 * byte, a phantom `toolUse` stop continues once (without the layer pi just
 * stops), and a leaked tool name runs under `repairToolNames`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { piCliPerTest } from "../helpers/pi-cli-per-test.ts";

describe("stringified edits with control characters, phantom tool-use stops and leaked tool names through the real pi CLI", () => {
	const cli = piCliPerTest();

	it("applies a stringified edits list with a raw line break and tab byte for byte (pi#8521)", async () => {
		const edits = '[{"oldText": "a:\n\tone", "newText": "a:\n\ttwo"}]';
		const r = await cli({
			files: { "c.yaml": "a:\n\tone\n" },
			script: [{ toolCalls: [{ id: "e1", name: "edit", arguments: { path: "c.yaml", edits } }] }, { type: "echo" }],
		});
		expect(r.exitCode).toBe(0);
		expect(r.readFile("c.yaml")).toBe("a:\n\ttwo\n");
		expect(r.stdout).toContain("--- tool result e1 (edit, ok) ---");
		expect(r.stdout).toContain("raw control characters");
	});

	it("continues a phantom toolUse stop once in print mode (pi#9681); without the layer pi stops there", async () => {
		const script = [{ text: "Checking.", stopReason: "toolUse" as const }, { text: "Continued after the note." }];
		const withLayer = await cli({ script });
		expect(withLayer.exitCode).toBe(0);
		expect(withLayer.stdout).toContain("Continued after the note.");
		withLayer.cleanup();
		const without = await cli({ script, extension: false });
		expect(without.stdout).not.toContain("Continued after the note.");
	});

	it("runs functions.read:0 as read when repairToolNames is on", async () => {
		const r = await cli({
			files: { "n.md": "renamed read\n" },
			prepare: ({ root }) => writeFileSync(join(root, "settings.json"), JSON.stringify({ repairToolNames: true })),
			script: [{ toolCalls: [{ id: "r1", name: "functions.read:0", arguments: { path: "n.md" } }] }, { type: "echo" }],
		});
		expect(r.exitCode).toBe(0);
		expect(r.stdout).toContain("--- tool result r1 (read, ok) ---");
		expect(r.stdout).toContain("renamed read");
	});
});
