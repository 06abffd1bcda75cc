/**
 * Tripwire: the pi behaviours the message_end repair point and composition
 * rely on. If a pi upgrade changes any of them, this fails loudly:
 *
 * - a `message_end` handler's replacement is written into the very message
 *   object the agent holds (replaced in place), and later handlers see it;
 * - pi looks each call's tool up, and reads its arguments, only after
 *   `message_end`, from the replaced message;
 * - a call whose `argumentsError` is set is refused with exactly
 *   `Invalid arguments for tool "<name>": <argumentsError>`, and the tool
 *   never runs;
 * - pi's validation coerces `null` into a required string and wraps a
 *   stringified list as one item, which is why the layer refuses those;
 * - `pi.getAllTools()` reports the first registration of a name in extension
 *   load order, with the registered schema object by reference.
 */
import { validateToolArguments } from "@earendil-works/pi-ai";
import type { ExtensionAPI, InlineExtension } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { afterEach, describe, expect, it } from "vitest";
import { type PiSessionHarness, startPiSession } from "../helpers/pi-session.ts";

const PROBE_SCHEMA = Type.Object({ value: Type.String() });

interface Observed {
	received: unknown[];
	heldMessage?: object;
	laterSaw?: unknown;
}

function probeExtension(observed: Observed, replace: (content: Record<string, unknown>[]) => void): InlineExtension {
	return (pi: ExtensionAPI) => {
		pi.registerTool({
			name: "probe",
			label: "Probe",
			description: "Records what it receives",
			parameters: PROBE_SCHEMA,
			execute(_id, params) {
				observed.received.push(params);
				return Promise.resolve({ content: [{ type: "text", text: "ran" }], details: undefined });
			},
		});
		pi.on("message_end", (event) => {
			if (event.message.role !== "assistant" || !event.message.content.some((b) => b.type === "toolCall")) return;
			observed.heldMessage = event.message;
			const content = event.message.content.map((block) => ({ ...block })) as Record<string, unknown>[];
			replace(content);
			return { message: { ...event.message, content } as unknown as typeof event.message };
		});
		pi.on("message_end", (event) => {
			if (event.message.role === "assistant" && observed.laterSaw === undefined) {
				observed.laterSaw = event.message.content.find((b) => b.type === "toolCall");
			}
		});
	};
}

describe("what pi's message_end lets an extension replace, and what it runs afterwards", () => {
	let run: PiSessionHarness | undefined;
	afterEach(async () => {
		await run?.dispose();
		run = undefined;
	});

	it("replaces the message in place and looks the tool up from the replacement", async () => {
		const observed: Observed = { received: [] };
		run = await startPiSession({
			extensions: [
				probeExtension(observed, (content) => {
					const call = content.find((block) => block.type === "toolCall");
					if (call === undefined) return;
					call.name = "probe";
					call.arguments = { value: "replaced" };
				}),
			],
			tools: ["probe"],
		});
		await run.play([{ toolCalls: [{ id: "c1", name: "no_such_tool", arguments: { other: 1 } }] }, { type: "echo" }]);
		expect(observed.received).toEqual([{ value: "replaced" }]);
		expect(run.toolResult("c1")?.toolName).toBe("probe");
		expect(observed.laterSaw).toMatchObject({ name: "probe", arguments: { value: "replaced" } });
		// The agent's own message object now holds the replacement.
		expect(run.session.messages).toContain(observed.heldMessage);
		expect(observed.heldMessage).toMatchObject({ content: [{ name: "probe", arguments: { value: "replaced" } }] });
	});

	it("refuses a call whose argumentsError is set, with that text, without running the tool", async () => {
		const observed: Observed = { received: [] };
		run = await startPiSession({
			extensions: [
				probeExtension(observed, (content) => {
					const call = content.find((block) => block.type === "toolCall");
					if (call !== undefined) call.argumentsError = "the layer's retry message";
				}),
			],
			tools: ["probe"],
		});
		await run.play([{ toolCalls: [{ id: "c1", name: "probe", arguments: { value: "fine" } }] }, { type: "echo" }]);
		expect(observed.received).toEqual([]);
		expect(run.toolResult("c1")?.isError).toBe(true);
		expect(run.resultText("c1")).toBe(`Invalid arguments for tool "probe": the layer's retry message`);
	});

	it("reports the first registration of a name in load order, schema by reference", async () => {
		const first = Type.Object({ command: Type.String() });
		const second = Type.Object({ command: Type.String() });
		const register =
			(schema: typeof first, label: string): InlineExtension =>
			(pi) =>
				pi.registerTool({
					name: "bash",
					label,
					description: label,
					parameters: schema,
					execute: () => Promise.resolve({ content: [], details: undefined }),
				});
		run = await startPiSession({ extensions: [register(first, "first"), register(second, "second")], tools: ["bash"] });
		const bash = run.session.getAllTools().find((tool) => tool.name === "bash");
		expect(bash?.description).toBe("first");
		expect(bash?.parameters).toBe(first);
		expect(bash?.sourceInfo.source).not.toBe("builtin");
	});
});

describe("pi's coercion that the layer refuses", () => {
	const schema = {
		type: "object",
		properties: { query: { type: "string" }, keys: { type: "array", items: { type: "string" } } },
		required: ["query"],
	};
	const validate = (args: Record<string, unknown>) =>
		validateToolArguments(
			{ name: "t", description: "", parameters: schema },
			{
				type: "toolCall",
				id: "c",
				name: "t",
				arguments: args as never,
			},
		);

	it('turns null into the string "null" for a required string', () => {
		expect(validate({ query: null })).toEqual({ query: "null" });
	});

	it("wraps a stringified list as a one-item list", () => {
		expect(validate({ query: "q", keys: "['a', 'b']" })).toEqual({ query: "q", keys: ["['a', 'b']"] });
	});
});
