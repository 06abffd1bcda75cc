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
 * keys dropped, a missing value is `""`), a value is the model's bytes
 * (`readTagValue`) loosely coerced. A body with a name and no keys is a
 * zero-argument call (stripped when allowed, never promoted).
 *
 * A body whose elements do not tile it is ambiguous (strip-only): text other
 * than whitespace after the name, between elements or after the last one (a
 * value that held its own `</arg_value>`), a closer with no opener, an opener
 * inside an element, an element never closed, or a key written twice (a
 * value that spelled further elements). A value's end cannot be known there,
 * so nothing may run.
 *
 * Linear: every search is bounded by the body, which the caller bounds, and
 * moves forward.
 */
import {
	type CaselessText,
	defineOwn,
	indexOfBefore,
	isBlankText,
	isIdentifier,
	isWhitespace,
	readTagValue,
	skipWhitespace,
} from "../scan.ts";
import type { GrammarCandidate } from "../types.ts";

const KEY_OPEN = "<arg_key>";
const KEY_CLOSE = "</arg_key>";
const VALUE_OPEN = "<arg_value>";
const VALUE_CLOSE = "</arg_value>";
const ELEMENT_TAGS = [KEY_OPEN, KEY_CLOSE, VALUE_OPEN, VALUE_CLOSE] as const;

interface GlmElements {
	keys: string[];
	values: string[];
	ambiguous: boolean;
}

/** The tag of {@link ELEMENT_TAGS} at `at`, if one is. */
function tagAt(lower: CaselessText, at: number): (typeof ELEMENT_TAGS)[number] | undefined {
	return ELEMENT_TAGS.find((tag) => lower.startsWith(tag, at));
}

/** The key and value elements in `[from, to)` of `lower`-matched text, in order, and whether they tile it. */
function readElements(text: string, lower: CaselessText, from: number, to: number): GlmElements {
	const found: GlmElements = { keys: [], values: [], ambiguous: false };
	let open: typeof KEY_OPEN | typeof VALUE_OPEN | undefined;
	let contentStart = from;
	let gapStart = from;
	let at = indexOfBefore(lower, "<", from, to);
	while (at !== -1) {
		const tag = tagAt(lower, at);
		const after = at + (tag?.length ?? 1);
		if (tag === KEY_OPEN || tag === VALUE_OPEN) {
			if (open !== undefined || !isBlankText(text, gapStart, at)) found.ambiguous = true;
			if (open === undefined) {
				open = tag;
				contentStart = after;
			}
		} else if (tag !== undefined) {
			const closes = tag === KEY_CLOSE ? KEY_OPEN : VALUE_OPEN;
			if (open !== closes) found.ambiguous = true;
			else (open === KEY_OPEN ? found.keys : found.values).push(text.slice(contentStart, at));
			open = undefined;
			gapStart = after;
		}
		at = indexOfBefore(lower, "<", after, to);
	}
	if (open !== undefined || !isBlankText(text, gapStart, to)) found.ambiguous = true;
	return found;
}

/** End of the first whitespace-separated token in `text[from, to)`, and its text. */
function firstToken(text: string, from: number, to: number): { name: string; end: number } {
	const start = skipWhitespace(text, from, to);
	let end = start;
	while (end < to && !isWhitespace(text.charCodeAt(end))) end++;
	return { name: text.slice(start, end), end };
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
	const { name, end: nameEnd } = firstToken(text, from, firstKey === -1 ? to : firstKey);
	if (!isIdentifier(name)) return undefined;
	const elements = readElements(text, lower, nameEnd, to);
	const keys = elements.keys.map((key) => key.trim()).filter((key) => key !== "");
	// A key written twice: a value spelled further elements of its own.
	const ambiguous = elements.ambiguous || new Set(keys).size !== keys.length;
	const args: Record<string, unknown> = {};
	const raw: Record<string, string> = {};
	keys.forEach((key, i) => {
		const read = readTagValue(elements.values[i] ?? "", "loose");
		defineOwn(args, key, read.value);
		defineOwn(raw, key, read.raw);
	});
	const found: GrammarCandidate = { name, arguments: args, grammar: "glm", start, end };
	if (keys.length > 0) found.rawArguments = raw;
	if (ambiguous) found.stripOnly = true;
	return found;
}
