/**
 * Tripwires: the parts of pi's agent loop the layer's hooks are built on,
 * each pinned in pi's real loop (in-process, faux provider) with small probe
 * extensions, so a pi release that changes one fails here by name rather
 * than as a puzzling repair bug elsewhere. The version matrix runs them on
 * every pi release it tests.
 *
 *   - call ordering: `message_end` (where the rescue runs), then the tool's
 *     `prepareArguments` (where repairs happen), then `tool_call` (where a
 *     repair is bound to its call ID), then `tool_result` (where the note is
 *     attached), then `turn_end` (where unbound repairs are dropped);
 *   - `tool_call` input: mutating `event.input` in place changes what runs,
 *     reassigning `event.input` does not;
 *   - `tool_result` handlers chain: each sees the content the previous one
 *     returned;
 *   - a tool that fails while running still produces a `tool_result`, so a
 *     repaired call that then fails keeps its note;
 *   - calls of a message cut at the output limit (`stopReason: "length"`)
 *     never reach `prepareArguments` or `tool_call`, and fail with pi's own
 *     message.
 */
import { createReadToolDefinition, type ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { type PiSessionHarness, startPiSession } from "../helpers/pi-session.ts";

function textOf(content: readonly { type: string; text?: string }[]): string {
	return content.map((block) => (block.type === "text" ? (block.text ?? "") : "")).join("\n");
}

/** Records, in order, every hook the layer uses, for the calls of `read` (whose prepareArguments it wraps). */
function orderProbe(events: string[]) {
	return (pi: ExtensionAPI) => {
		pi.on("session_start", (_event, ctx) => {
			const read = createReadToolDefinition(ctx.cwd);
			pi.registerTool({
				...read,
				prepareArguments: (args: unknown) => {
					events.push(`prepareArguments ${(args as { path?: string }).path ?? "?"}`);
					return args as never;
				},
			});
		});
		pi.on("message_end", (event) => {
			if (event.message.role === "assistant") events.push(`message_end ${event.message.stopReason}`);
		});
		pi.on("tool_call", (event) => {
			events.push(`tool_call ${event.toolCallId}`);
		});
		pi.on("tool_result", (event) => {
			events.push(`tool_result ${event.toolCallId}${event.isError ? " error" : ""}`);
		});
		pi.on("turn_end", () => {
			events.push("turn_end");
		});
	};
}

describe("pi's agent loop, as the layer's hooks rely on it", () => {
	let run: PiSessionHarness | undefined;
	afterEach(async () => {
		await run?.dispose();
		run = undefined;
	});

	it("orders message_end, prepareArguments, tool_call, tool_result and turn_end for each call", async () => {
		const events: string[] = [];
		run = await startPiSession({ extensions: [orderProbe(events)], files: { "a.txt": "a\n", "b.txt": "b\n" } });
		await run.play([
			{
				toolCalls: [
					{ id: "o1", name: "read", arguments: { path: "a.txt" } },
					{ id: "o2", name: "read", arguments: { path: "b.txt" } },
				],
			},
			{ text: "done" },
		]);
		const firstTurn = events.slice(0, events.indexOf("turn_end") + 1);
		const at = (event: string) => firstTurn.indexOf(event);
		expect(at("message_end toolUse")).toBe(0);
		for (const [id, path] of [
			["o1", "a.txt"],
			["o2", "b.txt"],
		] as const) {
			expect(at(`prepareArguments ${path}`), firstTurn.join("\n")).toBeGreaterThan(at("message_end toolUse"));
			expect(at(`tool_call ${id}`), firstTurn.join("\n")).toBeGreaterThan(at(`prepareArguments ${path}`));
			expect(at(`tool_result ${id}`), firstTurn.join("\n")).toBeGreaterThan(at(`tool_call ${id}`));
			expect(at("turn_end"), firstTurn.join("\n")).toBeGreaterThan(at(`tool_result ${id}`));
		}
	});

	it("runs what a tool_call handler mutated in place, not what it reassigned", async () => {
		const probe = (pi: ExtensionAPI) => {
			pi.on("tool_call", (event) => {
				const input = event.input as { path?: string };
				if (event.toolCallId === "mutated") input.path = "b.txt";
				if (event.toolCallId === "reassigned") (event as { input: unknown }).input = { path: "b.txt" };
			});
		};
		run = await startPiSession({ extensions: [probe], files: { "a.txt": "from a\n", "b.txt": "from b\n" } });
		await run.play([
			{ toolCalls: [{ id: "mutated", name: "read", arguments: { path: "a.txt" } }] },
			{ toolCalls: [{ id: "reassigned", name: "read", arguments: { path: "a.txt" } }] },
			{ text: "done" },
		]);
		expect(run.resultText("mutated")).toContain("from b");
		expect(run.resultText("reassigned")).toContain("from a");
	});

	it("chains tool_result handlers: each sees the content the one before returned", async () => {
		const seenBySecond: string[] = [];
		const first = (pi: ExtensionAPI) => {
			pi.on("tool_result", (event) => ({
				content: [{ type: "text" as const, text: `first\n${textOf(event.content)}` }],
			}));
		};
		const second = (pi: ExtensionAPI) => {
			pi.on("tool_result", (event) => {
				seenBySecond.push(textOf(event.content));
				return { content: [{ type: "text" as const, text: `second\n${textOf(event.content)}` }] };
			});
		};
		run = await startPiSession({ extensions: [first, second], files: { "a.txt": "body\n" } });
		await run.play([{ toolCalls: [{ id: "c1", name: "read", arguments: { path: "a.txt" } }] }, { text: "done" }]);
		expect(seenBySecond[0]?.startsWith("first\n")).toBe(true);
		expect(run.resultText("c1")).toMatch(/^second\nfirst\n[\s\S]*body/);
	});

	it("gives a tool that failed while running a tool_result, so a repaired call that then fails keeps its note", async () => {
		run = await startPiSession({ files: {} });
		await run.play([
			{ toolCalls: [{ id: "f1", name: "read", arguments: { file_path: "missing.txt" } }] },
			{ text: "done" },
		]);
		const result = run.toolResult("f1");
		expect(result?.isError).toBe(true);
		expect(run.resultText("f1")).toContain("<repair_note>");
		expect(run.resultText("f1")).toContain("file_path");
		expect(run.resultText("f1")).toContain("missing.txt");
	});

	it("fails the calls of a message cut at the output limit before prepareArguments or tool_call", async () => {
		const events: string[] = [];
		run = await startPiSession({ extensions: [orderProbe(events)], files: { "a.txt": "a\n" } });
		await run.play([
			{ toolCalls: [{ id: "cut", name: "read", arguments: { path: "a.txt" } }], stopReason: "length" },
			{ text: "done" },
		]);
		expect(events).toContain("message_end length");
		expect(events.some((event) => event.startsWith("prepareArguments"))).toBe(false);
		expect(events).not.toContain("tool_call cut");
		expect(run.toolResult("cut")?.isError).toBe(true);
		expect(run.resultText("cut")).toMatch(/output token limit/i);
	});
});
