/**
 * `glm`: Zhipu GLM's `<arg_key>`/`<arg_value>` call body.
 *
 *   <tool_call>write
 *   <arg_key>path</arg_key>
 *   <arg_value>out/summary.txt</arg_value>
 *   </tool_call>
 *
 * The `<tool_call>`/`<tools>` wrapper is found by `tool-call-wrapper.ts`;
 * this file reads one body: the name is the first whitespace-separated token
 * before the first `<arg_key>`, keys and values pair up by position (blank
 * keys dropped, a missing value is `""`), values trimmed and loosely coerced.
 * A body with a name and no keys is a zero-argument call (stripped when
 * allowed, never promoted).
 *
 * Linear: every search is bounded by the body, which the caller bounds.
 */
import {
	type CaselessText,
	defineOwn,
	indexOfBefore,
	isIdentifier,
	isWhitespace,
	maybeParseJsonValue,
} from "../scan.ts";
import type { GrammarCandidate } from "../types.ts";

const KEY_OPEN = "<arg_key>";
const KEY_CLOSE = "</arg_key>";
const VALUE_OPEN = "<arg_value>";
const VALUE_CLOSE = "</arg_value>";

/** Contents of every `open…close` element in `[from, to)` of `lower`-matched text, in order. */
function elementContents(
	text: string,
	lower: CaselessText,
	open: string,
	close: string,
	from: number,
	to: number,
): string[] {
	const contents: string[] = [];
	let at = indexOfBefore(lower, open, from, to);
	while (at !== -1) {
		const start = at + open.length;
		const end = indexOfBefore(lower, close, start, to);
		if (end === -1) break;
		contents.push(text.slice(start, end));
		at = indexOfBefore(lower, open, end + close.length, to);
	}
	return contents;
}

function firstToken(text: string): string {
	const trimmed = text.trim();
	let end = 0;
	while (end < trimmed.length && !isWhitespace(trimmed.charCodeAt(end))) end++;
	return trimmed.slice(0, end);
}

/** The glm call in the wrapper body `text[from, to)`, ranged to `[start, end)`; undefined when the name is not an identifier. */
export function glmCallIn(
	text: string,
	lower: CaselessText,
	from: number,
	to: number,
	start: number,
	end: number,
): GrammarCandidate | undefined {
	const firstKey = indexOfBefore(lower, KEY_OPEN, from, to);
	const nameEnd = firstKey === -1 ? to : firstKey;
	const name = firstToken(text.slice(from, nameEnd));
	if (!isIdentifier(name)) return undefined;
	const keys = elementContents(text, lower, KEY_OPEN, KEY_CLOSE, from, to)
		.map((key) => key.trim())
		.filter((key) => key !== "");
	const values = elementContents(text, lower, VALUE_OPEN, VALUE_CLOSE, from, to).map((value) => value.trim());
	const args: Record<string, unknown> = {};
	const raw: Record<string, string> = {};
	keys.forEach((key, i) => {
		const value = values[i] ?? "";
		defineOwn(args, key, maybeParseJsonValue(value));
		defineOwn(raw, key, value);
	});
	const found: GrammarCandidate = { name, arguments: args, grammar: "glm", start, end };
	if (keys.length > 0) found.rawArguments = raw;
	return found;
}
