/**
 * The texts the model did not write in the current run: the user's latest
 * message and every tool result since it (a file the model read, a command's
 * output). A leaked call in the model's reply that repeats one of them is an
 * echo, data being quoted back, and never runs or continues the loop.
 *
 * Read from the session's messages only when a reply may hold a leak: pi
 * saves each message once its `message_end` handlers ran, so every tool
 * result a reply could quote is there by the reply's own `message_end`, and
 * the layer does no work on the tool results themselves (most sessions never
 * ask). Memory is bounded: past {@link MAX_ECHO_CHARS} the oldest tool
 * results are left out (the user's message and the newest result stay).
 */
import { isRecord } from "../../core/json-value.ts";

/** How much text one run keeps for echo checks. */
export const MAX_ECHO_CHARS = 8 * 1024 * 1024;

/** Calls `visit` with each text part of a message's content (a string, or parts with `type: "text"`). */
function eachText(content: unknown, visit: (text: string) => void): void {
	if (typeof content === "string") {
		visit(content);
		return;
	}
	if (!Array.isArray(content)) return;
	for (const part of content) {
		if (part !== null && typeof part === "object") {
			const { type, text } = part as { type?: unknown; text?: unknown };
			if (type === "text" && typeof text === "string" && text !== "") visit(text);
		}
	}
}

/**
 * The echo texts of a session whose messages are `messages` (oldest first):
 * the latest user message, then the tool results after it, oldest first.
 */
export function echoTexts(messages: readonly unknown[]): string[] {
	const user: string[] = [];
	// Newest first while walking back; each result's texts in their own order.
	const results: string[][] = [];
	let chars = 0;
	// Set once an older result no longer fits: the ones before it are older still.
	let full = false;
	for (let index = messages.length - 1; index >= 0; index--) {
		const message = messages[index];
		if (!isRecord(message)) continue;
		if (message.role === "user") {
			eachText(message.content, (text) => user.push(text));
			break;
		}
		if (message.role !== "toolResult" || full) continue;
		const texts: string[] = [];
		eachText(message.content, (text) => texts.push(text));
		const size = texts.reduce((sum, text) => sum + text.length, 0);
		// The newest result always stays; an older one only while the run's results fit.
		if (results.length > 0 && chars + size > MAX_ECHO_CHARS) {
			full = true;
			continue;
		}
		chars += size;
		results.push(texts);
	}
	return [...user, ...results.reverse().flat()];
}
