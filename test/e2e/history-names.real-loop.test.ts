/**
 * A tool name a strict provider rejects (opencode#48750, mastra#13632),
 * through pi's real agent loop in-process (pi-ai's faux provider plays the
 * script and keeps what each request sent): the provider receives a safe
 * name on the call and on its result, the session keeps the model's name.
 */
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { isProviderSafeToolName } from "../../src/extension/leaks/history-names.ts";
import { type PiSessionHarness, startPiSession } from "../helpers/pi-session.ts";

interface SentMessage {
	role?: string;
	toolName?: string;
	content?: unknown;
}

/** Tool names on the assistant calls and the tool results of one request. */
function namesSent(messages: readonly unknown[]): { calls: string[]; results: string[] } {
	const calls: string[] = [];
	const results: string[] = [];
	for (const message of messages as SentMessage[]) {
		if (message.role === "toolResult" && typeof message.toolName === "string") results.push(message.toolName);
		if (message.role !== "assistant" || !Array.isArray(message.content)) continue;
		for (const part of message.content as Array<{ type?: string; name?: string }>) {
			if (part.type === "toolCall" && typeof part.name === "string") calls.push(part.name);
		}
	}
	return { calls, results };
}

const SPACED = "read file";
const LONG = `mcp_${"very_long_server_name_".repeat(3)}read`;

describe("saved tool names a strict provider rejects, through pi's real agent loop", () => {
	let run: PiSessionHarness | undefined;
	afterEach(async () => {
		await run?.dispose();
		run = undefined;
	});

	it("sends safe names for the call and its result, and keeps the model's names in the session", async () => {
		run = await startPiSession({ files: { "a.txt": "hello\n" } });
		await run.play([
			{
				toolCalls: [
					{ id: "c1", name: SPACED, arguments: { path: "a.txt" } },
					{ id: "c2", name: LONG, arguments: { path: "a.txt" } },
					{ id: "c3", name: "read", arguments: { path: "a.txt" } },
				],
			},
			{ type: "echo" },
		]);
		await run.play([{ text: "Again." }], "once more");

		const requests = run.providerMessages();
		expect(requests).toHaveLength(3);
		// The first request holds no call yet; every later one replays the three calls and their results.
		for (const messages of requests.slice(1)) {
			const { calls, results } = namesSent(messages);
			expect(calls).toHaveLength(3);
			expect(calls.every(isProviderSafeToolName)).toBe(true);
			expect(calls).toContain("read");
			expect(calls[0]).toMatch(/^read_file_[0-9a-f]{8}$/);
			expect(calls[1]).toHaveLength(64);
			// Each result is named as its call is, so the provider pairs them as before.
			expect(results).toEqual(calls);
		}
		// Every request reads the same: the rewrite is stable from one request to the next.
		expect(namesSent(requests[2] ?? []).calls).toEqual(namesSent(requests[1] ?? []).calls);

		// The session, and so the file pi saves, keeps what the model sent.
		const saved = namesSent(
			run.sessionManager
				.getEntries()
				.flatMap((entry) => (entry.type === "message" ? [(entry as { message: unknown }).message] : [])),
		);
		expect(saved.calls).toEqual([SPACED, LONG, "read"]);
		expect(saved.results).toEqual([SPACED, LONG, "read"]);
		expect(run.toolResult("c1")?.isError).toBe(true);
		expect(run.toolResult("c3")?.isError).toBe(false);
	});

	it("sends a history of safe names unchanged", async () => {
		run = await startPiSession({ files: { "a.txt": "hello\n" } });
		await run.play([
			{ toolCalls: [{ id: "c1", name: "made_up_tool", arguments: { path: "a.txt" } }] },
			{ text: "Ok." },
		]);
		const { calls, results } = namesSent(run.providerMessages()[1] ?? []);
		expect(calls).toEqual(["made_up_tool"]);
		expect(results).toEqual(["made_up_tool"]);
	});

	it("holds no context handler while every saved name is safe (pi filters the history around each one)", async () => {
		run = await startPiSession({ files: { "a.txt": "hello\n" } });
		await run.play([{ toolCalls: [{ id: "c1", name: "read", arguments: { path: "a.txt" } }] }, { text: "Ok." }]);
		expect(run.session.hasExtensionHandlers("context")).toBe(false);
		await run.play(
			[{ toolCalls: [{ id: "c2", name: SPACED, arguments: { path: "a.txt" } }] }, { text: "Ok." }],
			"go on",
		);
		expect(run.session.hasExtensionHandlers("context")).toBe(true);
		const { calls, results } = namesSent(run.providerMessages()[3] ?? []);
		expect(calls).toHaveLength(2);
		expect(calls.every(isProviderSafeToolName)).toBe(true);
		expect(results).toEqual(calls);
	});

	it("rewrites a name saved in a session before it was resumed", async () => {
		const sessionManager = SessionManager.inMemory();
		sessionManager.appendMessage({ role: "user", content: "read it", timestamp: 1 });
		sessionManager.appendMessage({
			role: "assistant",
			content: [{ type: "toolCall", id: "old1", name: SPACED, arguments: { path: "a.txt" } }],
			api: "faux",
			provider: "faux",
			model: "faux-1",
			usage: {
				input: 0,
				output: 0,
				cacheRead: 0,
				cacheWrite: 0,
				totalTokens: 0,
				cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
			},
			stopReason: "toolUse",
			timestamp: 2,
		} as never);
		sessionManager.appendMessage({
			role: "toolResult",
			toolCallId: "old1",
			toolName: SPACED,
			content: [{ type: "text", text: "Tool read file not found" }],
			isError: true,
			timestamp: 3,
		} as never);
		run = await startPiSession({ files: { "a.txt": "hello\n" }, sessionManager });
		await run.play([{ text: "Ok." }], "and now?");
		const { calls, results } = namesSent(run.providerMessages()[0] ?? []);
		expect(calls).toHaveLength(1);
		expect(calls[0]).toMatch(/^read_file_[0-9a-f]{8}$/);
		expect(results).toEqual(calls);
	});
});
