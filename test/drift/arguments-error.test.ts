/**
 * Tripwire: the host's malformed-argument format, which the message_end
 * rescue reads. pi-ai records a finished call whose text is not a JSON object
 * as `arguments: {}` plus `argumentsError = "<parse error>\n\nReceived
 * arguments:\n<raw text>"`; validation then always fails with
 * `Invalid arguments for tool "<name>": <argumentsError>`; and the loop hands
 * `prepareArguments` that very `arguments` object, which is how the extension
 * recognises a call it could not rescue and lets pi's message stand.
 */
import { parseToolCallArguments, validateToolArguments } from "@earendil-works/pi-ai";
import { createWriteToolDefinition, type ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { RECEIVED_ARGUMENTS_MARKER, rawArgumentsText } from "../../src/extension/repair/argument-rescue.ts";
import { type PiSessionHarness, startPiSession } from "../helpers/pi-session.ts";

const MALFORMED_TEXTS = [
	'{"path":"a.txt","content":"x"',
	'"{\\"path\\":\\"a.txt\\"}"',
	'[{"path":"a.txt"}]',
	"echo not json at all",
	'{"command":"cut inside a str',
	`{"content":"${RECEIVED_ARGUMENTS_MARKER.replaceAll("\n", "\\n")}","path":`,
	`plain text that mentions${RECEIVED_ARGUMENTS_MARKER}inside it`,
];

describe("pi-ai's argumentsError format", () => {
	it.each(MALFORMED_TEXTS)("records %j as empty arguments plus an error ending in the raw text", (text) => {
		const parsed = parseToolCallArguments(text);
		expect(parsed.arguments).toEqual({});
		expect(typeof parsed.argumentsError).toBe("string");
		expect(parsed.argumentsError?.endsWith(`${RECEIVED_ARGUMENTS_MARKER}${text}`)).toBe(true);
		expect(rawArgumentsText(parsed.argumentsError ?? "")).toBe(text);
	});

	it("leaves a JSON object text without an error", () => {
		expect(parseToolCallArguments('{"path":"a.txt"}')).toEqual({ arguments: { path: "a.txt" } });
	});

	it("makes validation fail with the error, whatever the arguments hold", () => {
		const tool = createWriteToolDefinition("/tmp");
		const argumentsError = parseToolCallArguments('{"path":"a"').argumentsError;
		const call = {
			type: "toolCall" as const,
			id: "c",
			name: "write",
			arguments: { path: "a", content: "b" },
			argumentsError,
		};
		expect(() => validateToolArguments(tool, call)).toThrow(`Invalid arguments for tool "write": ${argumentsError}`);
	});

	it("is not mistaken for another shape: text without the marker yields nothing", () => {
		expect(rawArgumentsText("Unexpected end of JSON input")).toBeUndefined();
	});
});

describe("the real loop and malformed calls", () => {
	let run: PiSessionHarness | undefined;
	afterEach(async () => {
		await run?.dispose();
		run = undefined;
	});

	it("passes prepareArguments the same arguments object message_end saw", async () => {
		const seenAtMessageEnd: unknown[] = [];
		const seenByPrepare: unknown[] = [];
		const probe = (pi: ExtensionAPI) => {
			pi.on("session_start", (_event, ctx) => {
				pi.registerTool({
					...createWriteToolDefinition(ctx.cwd),
					prepareArguments: (args: unknown) => {
						seenByPrepare.push(args);
						return args as never;
					},
				});
			});
			pi.on("message_end", (event) => {
				if (event.message.role !== "assistant") return;
				for (const block of event.message.content)
					if (block.type === "toolCall") seenAtMessageEnd.push(block.arguments);
			});
		};
		run = await startPiSession({ extensions: [probe] });
		await run.play([{ toolCalls: [{ id: "m1", name: "write", rawArguments: '{"path":"a.txt"' }] }, { type: "echo" }]);
		expect(seenByPrepare).toHaveLength(1);
		expect(seenByPrepare[0]).toBe(seenAtMessageEnd[0]);
		expect(run.resultText("m1")).toContain('Invalid arguments for tool "write"');
	});
});
