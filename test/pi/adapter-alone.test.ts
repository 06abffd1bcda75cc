/**
 * The `/pi` adapter without the repair extension, in pi's real agent loop: a
 * tool owner's adapted tool is the only repair in the process. Argument text
 * that is not a JSON object reaches `prepareArguments` as `{}` (pi-ai keeps
 * the text in `argumentsError`), so the adapter cannot decode it; it must hand
 * that stand-in to pi unchanged, so the model gets pi's own message quoting
 * what it sent, never a retry message claiming it sent `{}`.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { afterEach, describe, expect, it } from "vitest";
import { adaptToolDefinition } from "../../src/pi/index.ts";
import { type PiSessionHarness, startPiSession } from "../helpers/pi-session.ts";

let run: PiSessionHarness | undefined;
afterEach(async () => {
	await run?.dispose();
	run = undefined;
});

function ownerExtension(pi: ExtensionAPI): void {
	pi.registerTool(
		adaptToolDefinition({
			name: "open_note",
			label: "Open note",
			description: "Open a note by path",
			parameters: Type.Object({ path: Type.String() }),
			execute: (_id, params) =>
				Promise.resolve({ content: [{ type: "text", text: `opened ${params.path}` }], details: undefined }),
		}),
	);
}

describe("the /pi adapter used alone", () => {
	it("hands argument text that is not JSON to pi, whose message quotes what the model sent", async () => {
		run = await startPiSession({ extensions: [ownerExtension], tools: ["open_note"] });
		await run.play([
			{ toolCalls: [{ id: "c1", name: "open_note", rawArguments: "path: notes/today.md" }] },
			{ type: "echo" },
		]);
		const text = run.resultText("c1");
		expect(run.toolResult("c1")?.isError).toBe(true);
		expect(text).toContain("path: notes/today.md");
		expect(text).not.toContain("Received: {}");
	});

	it("still refuses a real empty object with a message naming the missing field", async () => {
		run = await startPiSession({ extensions: [ownerExtension], tools: ["open_note"] });
		await run.play([{ toolCalls: [{ id: "c2", name: "open_note", arguments: {} }] }, { type: "echo" }]);
		expect(run.resultText("c2")).toMatch(/path/);
		expect(run.toolResult("c2")?.isError).toBe(true);
	});
});
