/**
 * The texts a leak is checked against as an echo: the user's message and the
 * run's tool results, in order, within a bounded size.
 */
import { describe, expect, it } from "vitest";
import { EchoSources, MAX_ECHO_CHARS } from "../../src/extension/leaks/echo-sources.ts";

const user = (content: unknown) => ({ role: "user", content });
const toolResult = (content: unknown) => ({ role: "toolResult", toolCallId: "c1", toolName: "read", content });

describe("echo sources", () => {
	it("keeps the user's message and each tool result's text parts, and a new user message starts over", () => {
		const echoes = new EchoSources();
		echoes.note(user("first question"));
		echoes.note(
			toolResult([
				{ type: "text", text: "file body" },
				{ type: "image", data: "x" },
				{ type: "text", text: "" },
			]),
		);
		echoes.note(toolResult("plain output"));
		echoes.note({ role: "assistant", content: [{ type: "text", text: "the model's own words" }] });
		expect(echoes.texts()).toEqual(["first question", "file body", "plain output"]);
		echoes.note(
			user([
				{ type: "text", text: "second" },
				{ type: "text", text: "question" },
			]),
		);
		expect(echoes.texts()).toEqual(["second", "question"]);
	});

	it("drops the oldest tool results past its size and keeps the user's message", () => {
		const echoes = new EchoSources();
		echoes.note(user("question"));
		const half = "x".repeat(MAX_ECHO_CHARS / 2);
		echoes.note(toolResult(`a${half}`));
		echoes.note(toolResult(`b${half}`));
		echoes.note(toolResult("c"));
		expect(echoes.texts().map((text) => text.slice(0, 1))).toEqual(["q", "b", "c"]);
	});

	it("ignores what is not a message", () => {
		const echoes = new EchoSources();
		for (const value of [null, 3, "user", { role: "toolResult" }]) echoes.note(value);
		expect(echoes.texts()).toEqual([]);
	});
});
