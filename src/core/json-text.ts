/**
 * What a root argument text reads as, before anything wraps it as a tool's
 * single string field (`bash.command`, `read.path`, ...).
 *
 * A text that reads as JSON is never an argument value: a JSON literal
 * (`null`, `true`, `5`, `"null"`), a text that starts like an object or a
 * list after any framing (zero-width or control characters, a word such as
 * `json`, quotes, parentheses, a markdown fence, a tag like `<tool_call>`) or
 * holds an object opening (`{"`, `[{`) behind prose of any length, or
 * a JSON string literal that does not parse (an encoded envelope cut inside
 * its string). Wrapping any of them would run the model's broken call as a
 * command or read it as a path. The only framing that is undone is exactly one
 * enclosing markdown fence or one quoting layer around a complete JSON object.
 */
import { isRecord, tryParse } from "./json-value.ts";
import { readsAsListLiteral } from "./list-literal.ts";

// How many layers of JSON string encoding are looked through when deciding whether a root string is JSON.
const MAX_ENCODING_LAYERS = 8;
// A word prefix (`json`, `JSON:`) is short; a tag fits on one line, whatever it starts with: `<tool_call>`,
// and sentinel tokens such as `<|tool_call|>` or `<｜DSML｜invoke>`.
const LEADING_WORD = /^[A-Za-z][A-Za-z0-9_-]{0,15}:?(?=[\s{[])/;
// Any tag spelling: `<tool_call>`, `</x>`, `<|tool_call|>`.
// A label such as `json json` or `JSON: Arguments:` is a few words; a longer sentence is prose.
const MAX_PREFIX_WORDS = 4;
const LEADING_TAG = /^<[^<>\n]{1,64}>/;
const FENCE_OPENING = /^(?:`{3,}|~{3,})[^\n`]*(?:\n|$)/;

/** True for whitespace, zero-width and other format characters, and control characters. */
function isInvisible(char: string): boolean {
	return /[\s\p{Cf}\p{Cc}]/u.test(char);
}

/**
 * The text after any framing that can stand before a JSON value: invisible
 * characters, quotes, parentheses, fences, tags, and up to four words.
 */
function afterFraming(text: string): string {
	let rest = text;
	let wordsSkipped = 0;
	for (;;) {
		const first = rest[0];
		if (first === undefined) return rest;
		if (isInvisible(first) || first === '"' || first === "'" || first === "(") {
			rest = rest.slice(1);
			continue;
		}
		const fence = FENCE_OPENING.exec(rest) ?? LEADING_TAG.exec(rest);
		if (fence !== null) {
			rest = rest.slice(fence[0].length);
			continue;
		}
		if (first === "`") {
			rest = rest.slice(1);
			continue;
		}
		const word = wordsSkipped >= MAX_PREFIX_WORDS ? null : LEADING_WORD.exec(rest);
		if (word === null) return rest;
		wordsSkipped++;
		rest = rest.slice(word[0].length);
	}
}

// An object opening (`{"`) or a list of objects (`[{`) anywhere: prose before it is framing of any length.
const JSON_OBJECT_OPENING = /\{\s*"|\[\s*\{/;

function startsLikeJson(text: string): boolean {
	if (readsAsListLiteral(text) || JSON_OBJECT_OPENING.test(text)) return true;
	const body = afterFraming(text);
	return body.startsWith("{") || readsAsListLiteral(body);
}

/**
 * True when a root string must not be wrapped as a single field: it reads as
 * JSON at some layer of string encoding (see the file header). A leading
 * markdown auto-link (`[a.md](http://a.md)`) is a path, not a list.
 */
export function readsAsJsonText(text: string): boolean {
	let layer = text;
	for (let depth = 0; depth < MAX_ENCODING_LAYERS; depth++) {
		if (startsLikeJson(layer)) return true;
		const trimmed = layer.trim();
		if (!trimmed.startsWith('"')) {
			const literal = tryParse(trimmed);
			return literal === null || typeof literal === "boolean" || typeof literal === "number";
		}
		const parsed = tryParse(trimmed);
		// A quoted text that is not one whole JSON string is an encoding cut short.
		if (typeof parsed !== "string") return true;
		layer = parsed;
	}
	return true;
}

const QUOTES = ['"', "'", "`"];

/** `text` without leading and trailing JSON whitespace; a BOM or a zero-width space is framing, not whitespace. */
export function trimJsonWhitespace(text: string): string {
	let start = 0;
	let end = text.length;
	while (start < end && isJsonWhitespace(text.charCodeAt(start))) start++;
	while (end > start && isJsonWhitespace(text.charCodeAt(end - 1))) end--;
	return start === 0 && end === text.length ? text : text.slice(start, end);
}

function isJsonWhitespace(code: number): boolean {
	return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/**
 * The JSON object text inside exactly one enclosing markdown fence or one
 * quoting layer, or `undefined` when the text is not framed that way or the
 * inside is not one complete JSON object.
 */
export function unframedObjectText(text: string): string | undefined {
	const trimmed = trimJsonWhitespace(text);
	const inner = fencedBody(trimmed) ?? quotedBody(trimmed);
	if (inner === undefined) return undefined;
	const parsed = tryParse(inner);
	return isRecord(parsed) ? inner : undefined;
}

function fencedBody(text: string): string | undefined {
	const opening = FENCE_OPENING.exec(text);
	if (opening === null || !opening[0].endsWith("\n")) return undefined;
	const mark = /^(`+|~+)/.exec(opening[0])![0];
	const lastBreak = text.lastIndexOf("\n");
	if (lastBreak < opening[0].length - 1 || text.slice(lastBreak + 1).trim() !== mark) return undefined;
	return text.slice(opening[0].length, lastBreak);
}

function quotedBody(text: string): string | undefined {
	const quote = text[0];
	if (quote === undefined || !QUOTES.includes(quote) || text.length < 2 || !text.endsWith(quote)) return undefined;
	return text.slice(1, -1);
}
