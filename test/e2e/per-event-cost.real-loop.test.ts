/**
 * What the layer costs pi on each event, through pi's real agent loop
 * in-process: the stages of one message share one read of pi's tool lists
 * (each read builds a record for every registered tool), a reply whose
 * calls all pass as sent against the latest read of their tools in this
 * run reads none, a tool that becomes active or changes between events is
 * seen at the next reply that needs it, and the layer
 * holds a `turn_end` handler (which makes pi rebuild the session's context
 * on every turn) only for a turn that stopped silently, a `turn_start`
 * handler only while something waits for the next turn, and `tool_call` and
 * `tool_result` handlers (pi builds a context and awaits every handler of
 * both around each call it runs) only while a refusal or a note waits for
 * its call.
 *
 * The layer gets pi's real API behind a counting wrapper: every method is
 * pi's own, the wrapper only notes which event was running when a tool list
 * was read.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { afterEach, describe, expect, it } from "vitest";
import { CONTINUATION_MESSAGE_TYPE } from "../../src/extension/leaks/continuation.ts";
import repairExtension from "../../src/index.ts";
import { type PiSessionHarness, startPiSession } from "../helpers/pi-session.ts";

type ListRead = "getAllTools" | "getActiveTools";
/** One event the layer handled: its name, the role of its message (for `message_end`) and the lists it read. */
type HandledEvent = { event: string; role?: string; counts: Record<ListRead, number> };

/** pi's API with its tool-list reads counted per handled event (one entry per event the layer handled). */
function countingApi(pi: ExtensionAPI, reads: HandledEvent[]): ExtensionAPI {
	let current: HandledEvent | undefined;
	return new Proxy(pi, {
		get(target, key, receiver) {
			if (key === "on") {
				return (event: string, handler: (...args: unknown[]) => unknown) =>
					target.on(
						event as never,
						((...args: unknown[]) => {
							const role = (args[0] as { message?: { role?: string } } | undefined)?.message?.role;
							current = {
								event,
								...(role === undefined ? {} : { role }),
								counts: { getAllTools: 0, getActiveTools: 0 },
							};
							reads.push(current);
							try {
								return handler(...args);
							} finally {
								current = undefined;
							}
						}) as never,
					);
			}
			if (key === "getAllTools" || key === "getActiveTools") {
				return () => {
					if (current !== undefined) current.counts[key]++;
					return target[key]();
				};
			}
			return Reflect.get(target, key, receiver);
		},
	});
}

describe("pi's tool lists, read once per event, through pi's real agent loop", () => {
	let run: PiSessionHarness | undefined;
	afterEach(async () => {
		await run?.dispose();
		run = undefined;
	});

	it("reads each list at most once while handling one event, whatever the message holds", async () => {
		const reads: HandledEvent[] = [];
		run = await startPiSession({
			files: { "a.txt": "hello\n" },
			model: "glm-4.6",
			extensions: [(pi) => repairExtension(countingApi(pi, reads))],
		});
		await run.play([
			{
				text: "Reading it now.",
				toolCalls: [
					{ id: "r1", name: "read", arguments: { path: "a.txt" } },
					{ id: "b1", name: "bash", arguments: { command: "true" } },
				],
			},
			{ toolCalls: [{ id: "r2", name: "read", arguments: { file_path: "a.txt" } }] },
			{ text: "Done." },
		]);
		expect(run.resultText("r1")).toContain("hello");
		expect(run.resultText("r2")).toContain("hello");
		const messageEnds = reads.filter((read) => read.event === "message_end");
		expect(messageEnds.length).toBeGreaterThanOrEqual(7);
		// Some message read the lists at all (the test would pass vacuously otherwise).
		expect(messageEnds.some((read) => read.counts.getAllTools === 1 && read.counts.getActiveTools === 1)).toBe(true);
		for (const read of reads.filter((r) => r.event !== "session_start")) {
			expect(read.counts.getAllTools, read.event).toBeLessThanOrEqual(1);
			expect(read.counts.getActiveTools, read.event).toBeLessThanOrEqual(1);
		}
	});

	it("sees a tool activated between two messages", async () => {
		const late = {
			name: "tally",
			label: "tally",
			description: "Adds numbers.",
			parameters: Type.Object({ numbers: Type.Array(Type.Number()) }),
			execute: (_id: string, params: { numbers: number[] }) =>
				Promise.resolve({
					content: [{ type: "text" as const, text: `sum=${params.numbers.reduce((a, b) => a + b, 0)}` }],
					details: {},
				}),
		};
		const activator = (pi: ExtensionAPI) => {
			pi.registerTool(late);
			// Allowed for the session, inactive until the model unlocks it.
			pi.on("session_start", () => pi.setActiveTools(pi.getActiveTools().filter((name) => name !== "tally")));
			pi.registerTool({
				name: "unlock",
				label: "unlock",
				description: "Makes the tally tool available.",
				parameters: Type.Object({}),
				execute: () => {
					pi.setActiveTools([...pi.getActiveTools(), "tally"]);
					return Promise.resolve({ content: [{ type: "text" as const, text: "unlocked" }], details: {} });
				},
			});
		};
		run = await startPiSession({ extensions: [repairExtension, activator], tools: ["read", "unlock", "tally"] });
		await run.play([{ toolCalls: [{ id: "u", name: "unlock", arguments: {} }] }, { type: "echo" }]);
		// pi applies a tool change from the next run; the model sends the array as JSON text, which only a
		// layer that knows the tool is active repairs.
		await run.play(
			[{ toolCalls: [{ id: "t", name: "tally", arguments: { numbers: "[1, 2, 3]" } }] }, { type: "echo" }],
			"now add them",
		);
		expect(run.resultText("u")).toBe("unlocked");
		expect(run.resultText("t")).toContain("sum=6");
		expect(run.toolResult("t")?.isError).toBe(false);
	});

	it("reads the lists for a tool's first reply of a run, and not for a reply that passes as sent against that read", async () => {
		const reads: HandledEvent[] = [];
		run = await startPiSession({
			files: { "a.txt": "hello\n" },
			extensions: [(pi) => repairExtension(countingApi(pi, reads))],
		});
		const read = (id: string) => ({ id, name: "read", arguments: { path: "a.txt" } });
		const bash = (id: string) => ({ id, name: "bash", arguments: { command: "true" } });
		const listReads = () =>
			reads
				.filter((handled) => handled.event === "message_end" && handled.role === "assistant")
				.map((handled) => handled.counts.getAllTools + handled.counts.getActiveTools);
		await run.play([
			{ toolCalls: [read("r1")] },
			{ toolCalls: [bash("b1")] },
			{ toolCalls: [read("r2"), bash("b2")] },
			{ toolCalls: [bash("b3"), read("r3")] },
			{ text: "Done." },
		]);
		// The first reply of each tool reads both lists; replies of tools read before read nothing.
		expect(listReads().slice(0, 4)).toEqual([2, 2, 0, 0]);
		expect(run.resultText("r3")).toContain("hello");
		// A new run may follow a change of owners: its first reply reads the lists again.
		const before = listReads().length;
		await run.play([{ toolCalls: [read("r4")] }, { text: "Done." }], "once more");
		expect(listReads()[before]).toBe(2);
	});

	it("judges a call on a new read when it does not pass as sent against a tool changed since", async () => {
		/** The owner's tally tool, adding the numbers it gets under `key`. */
		const tally = (key: "numbers" | "values") => ({
			name: "tally",
			label: "tally",
			description: `Adds the ${key}.`,
			parameters: Type.Object({ [key]: Type.Array(Type.Number()) }),
			execute: (_id: string, params: Record<string, number[]>) =>
				Promise.resolve({
					content: [{ type: "text" as const, text: `sum=${(params[key] ?? []).reduce((a, b) => a + b, 0)}` }],
					details: {},
				}),
		});
		const owner = (pi: ExtensionAPI) => {
			pi.registerTool(tally("numbers"));
			pi.registerTool({
				name: "rename",
				label: "rename",
				description: "Renames tally's parameter.",
				parameters: Type.Object({}),
				execute: () => {
					// The owner replaces its own definition in the middle of the run.
					pi.registerTool(tally("values"));
					return Promise.resolve({ content: [{ type: "text" as const, text: "renamed" }], details: {} });
				},
			});
		};
		run = await startPiSession({ extensions: [repairExtension, owner], tools: ["tally", "rename"] });
		await run.play([
			{ toolCalls: [{ id: "t1", name: "tally", arguments: { numbers: [1, 2] } }] },
			{ toolCalls: [{ id: "n", name: "rename", arguments: {} }] },
			// Against the first definition `values` is no parameter, so the call is judged against the tool as it is now.
			{ toolCalls: [{ id: "t2", name: "tally", arguments: { values: "[1, 2, 3]" } }] },
			{ text: "Done." },
		]);
		expect(run.resultText("t1")).toBe("sum=3");
		expect(run.resultText("n")).toBe("renamed");
		expect(run.resultText("t2")).toContain("sum=6");
		expect(run.toolResult("t2")?.isError).toBe(false);
	});

	it("holds no turn_end handler through a session of valid calls, and one only for a silent stop", async () => {
		run = await startPiSession({ files: { "a.txt": "hello\n" } });
		await run.play([
			{ toolCalls: [{ id: "r1", name: "read", arguments: { path: "a.txt" } }] },
			{ toolCalls: [{ id: "r2", name: "read", arguments: { path: "a.txt" } }] },
			{ text: "Done." },
		]);
		expect(run.session.hasExtensionHandlers("turn_end")).toBe(false);
		// Nothing waits for the next turn either: no note, no refusal, no continuation.
		expect(run.session.hasExtensionHandlers("turn_start")).toBe(false);
		// A phantom toolUse stop: the layer asks once, then lets go of turn_end again.
		await run.play([{ text: "", stopReason: "toolUse" }, { text: "Answered." }], "again");
		expect(run.lastAssistantText()).toBe("Answered.");
		expect(run.session.hasExtensionHandlers("turn_end")).toBe(false);
		// A continuation is remembered for the two turn starts after it (never two in a row), then let go.
		await run.play([{ text: "Fine." }], "and again");
		expect(run.session.hasExtensionHandlers("turn_start")).toBe(false);
		const continued = run.sessionManager
			.getEntries()
			.filter((entry) => entry.type === "custom_message" && entry.customType === CONTINUATION_MESSAGE_TYPE);
		expect(continued).toHaveLength(1);
	});

	it("holds no tool_call or tool_result handler through valid calls, and each only while a call needs it", async () => {
		run = await startPiSession({ files: { "a.txt": "hello\n" } });
		await run.play([
			{ toolCalls: [{ id: "r1", name: "read", arguments: { path: "a.txt" } }] },
			{ toolCalls: [{ id: "b1", name: "bash", arguments: { command: "true" } }] },
			{ text: "Done." },
		]);
		expect(run.session.hasExtensionHandlers("tool_call")).toBe(false);
		expect(run.session.hasExtensionHandlers("tool_result")).toBe(false);
		// A repaired call's note still reaches its result, and the handler goes once the note is delivered.
		await run.play(
			[
				{ toolCalls: [{ id: "r3", name: "read", arguments: { file_path: "a.txt" } }] },
				{ toolCalls: [{ id: "r4", name: "read", arguments: { path: "a.txt" } }] },
				{ text: "Done." },
			],
			"again",
		);
		expect(run.resultText("r3")).toContain("<repair_note>");
		expect(run.resultText("r4")).not.toContain("<repair_note>");
		expect(run.session.hasExtensionHandlers("tool_result")).toBe(false);
		expect(run.session.hasExtensionHandlers("tool_call")).toBe(false);
		expect(run.session.hasExtensionHandlers("turn_start")).toBe(false);
	});
});
