/**
 * The texts a leak is checked against as an echo: the latest user message and
 * the tool results since it, read from the session's messages, within a
 * bounded size.
 */
import { describe, expect, it } from "vitest";
import { echoTexts, MAX_ECHO_CHARS } from "../../src/extension/leaks/echo-sources.ts";

const user = (content: unknown) => ({ role: "user", content });
const toolResult = (content: unknown) => ({ role: "toolResult", toolCallId: "c1", toolName: "read", content });
const assistant = (text: string) => ({ role: "assistant", content: [{ type: "text", text }] });

describe("echo sources", () => {
	it("keeps the latest user message and each later tool result's text parts, never the model's own words", () => {
		const run = [
			user("first question"),
			toolResult("an earlier run's output"),
			user([
				{ type: "text", text: "second" },
				{ type: "text", text: "question" },
			]),
			assistant("the model's own words"),
			toolResult([
				{ type: "text", text: "file body" },
				{ type: "image", data: "x" },
				{ type: "text", text: "" },
			]),
			{ role: "custom", customType: "note", content: "an extension's message" },
			toolResult("plain output"),
		];
		expect(echoTexts(run)).toEqual(["second", "question", "file body", "plain output"]);
	});

	it("reads tool results back to the start when no user message is saved", () => {
		expect(echoTexts([toolResult("one"), assistant("mine"), toolResult("two")])).toEqual(["one", "two"]);
	});

	it("drops the oldest tool results past its size and keeps the user's message", () => {
		const half = "x".repeat(MAX_ECHO_CHARS / 2);
		const run = [user("question"), toolResult(`a${half}`), toolResult(`b${half}`), toolResult("c")];
		expect(echoTexts(run).map((text) => text.slice(0, 1))).toEqual(["q", "b", "c"]);
	});

	it("keeps the newest tool result even when it alone is past the size", () => {
		const run = [user("question"), toolResult("old"), toolResult(`n${"x".repeat(MAX_ECHO_CHARS)}`)];
		expect(echoTexts(run).map((text) => text.slice(0, 1))).toEqual(["q", "n"]);
	});

	it("ignores what is not a message", () => {
		expect(echoTexts([null, 3, "user", { role: "toolResult" }])).toEqual([]);
	});
});
