import { describe, expect, it } from "vitest";
import { createEchoIndex, NO_ECHOES } from "../../src/grammar/echo.ts";
import { mergeSplitCall, type SplitCallOptions } from "../../src/grammar/split-call.ts";
import type { MinimalAssistantMessage } from "../../src/grammar/types.ts";
import { GRAMMAR_NAMES } from "../../src/grammar/types.ts";
import { dsmlBlock, splitCallMessage } from "../fixtures/split-calls.ts";

const bash = {
	type: "object",
	properties: { command: { type: "string" }, timeout: { type: "number" } },
	required: ["command"],
};
const read = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
const codemode = { type: "object", properties: { code: { type: "string" } }, required: ["code"] };

function merge(message: unknown, overrides: Partial<SplitCallOptions> = {}) {
	return mergeSplitCall(message as MinimalAssistantMessage, {
		grammars: GRAMMAR_NAMES,
		knownTools: new Set(["bash", "read", "codemode"]),
		toolSchemas: new Map<string, unknown>([
			["bash", bash],
			["read", read],
			["codemode", codemode],
		]),
		echoes: NO_ECHOES,
		...overrides,
	});
}

const leak = dsmlBlock("bash", { command: "ls -la" });

describe("a native call with empty arguments and its arguments leaked as text is merged into one call (cline#13348)", () => {
	it("merges the DSML arguments into the native call, keeping its ID, and removes the leaked text", () => {
		const merged = merge(splitCallMessage(`Listing the files.\n${leak}`, "bash"));
		expect(merged).toMatchObject({ callId: "call_native_1", name: "bash", grammar: "dsml" });
		expect(merged?.message.content).toEqual([
			{ type: "text", text: "Listing the files." },
			{ type: "toolCall", id: "call_native_1", name: "bash", arguments: { command: "ls -la" } },
		]);
		expect(merged?.message.stopReason).toBe("toolUse");
	});

	it("merges an XML leak the same way", () => {
		const xml = "<tool_call>\n<function=read>\n<parameter=path>\nnotes.md\n</parameter>\n</function>\n</tool_call>";
		const merged = merge(splitCallMessage(xml, "read"));
		expect(merged?.message.content.at(-1)).toMatchObject({ id: "call_native_1", arguments: { path: "notes.md" } });
	});

	it("never mutates the message it is given", () => {
		const message = splitCallMessage(leak, "bash");
		const before = structuredClone(message);
		merge(message);
		expect(message).toEqual(before);
	});
});

describe("near-misses stay apart", () => {
	const refused: Array<[string, unknown, Partial<SplitCallOptions>?]> = [
		["the leak names another tool", splitCallMessage(leak, "read")],
		["two leaked calls", splitCallMessage(`${leak}\n\n${dsmlBlock("bash", { command: "pwd" })}`, "bash")],
		["the leak is quoted code", splitCallMessage(`\`\`\`\n${leak}\n\`\`\``, "bash")],
		["the leak is reasoning", splitCallMessage(`<think>\n${leak}\n</think>`, "bash")],
		[
			"the leak is in a thinking part",
			{
				role: "assistant",
				content: [
					{ type: "thinking", thinking: leak },
					{ type: "toolCall", id: "c", name: "bash", arguments: {} },
				],
				stopReason: "toolUse",
			},
		],
		[
			"the leak is a mention",
			splitCallMessage(`I will not run ${dsmlBlock("bash", { command: "ls" })} today.`, "bash"),
		],
		[
			"the leak echoes a tool result",
			splitCallMessage(leak, "bash"),
			{ echoes: createEchoIndex([`cat log\n${leak}`]) },
		],
		[
			"the native call's arguments are not empty",
			{
				...splitCallMessage(leak, "bash"),
				content: [
					{ type: "text", text: leak },
					{ type: "toolCall", id: "c", name: "bash", arguments: { command: "pwd" } },
				],
			},
		],
		[
			"two native calls have empty arguments",
			{
				...splitCallMessage(leak, "bash"),
				content: [
					{ type: "text", text: leak },
					{ type: "toolCall", id: "a", name: "bash", arguments: {} },
					{ type: "toolCall", id: "b", name: "bash", arguments: {} },
				],
			},
		],
		["the merged arguments do not validate", splitCallMessage(dsmlBlock("bash", { cmd: "ls" }), "bash")],
		["the tool is not active", splitCallMessage(leak, "bash"), { knownTools: new Set(["read"]) }],
		["the tool has no known schema", splitCallMessage(leak, "bash"), { toolSchemas: new Map() }],
		[
			"the tool runs scripts",
			splitCallMessage(dsmlBlock("codemode", { code: "await tools.bash({command: 'id'})" }), "codemode"),
		],
		["the leak is debris, not a call", splitCallMessage("<\uff5cDSML\uff5cbash>ls</\uff5cDSML\uff5cbash>", "bash")],
	];
	it.each(refused)("no merge when %s", (_, message, overrides) => {
		expect(merge(message, overrides)).toBeUndefined();
	});
});
