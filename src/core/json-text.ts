/**
 * What a root argument text reads as, before anything wraps it as a tool's
 * single string field (`bash.command`, `read.path`, ...).
 *
 * A text that reads as JSON is never an argument value: a JSON literal
 * (`null`, `true`, `5`, `"null"`), a text that starts like an object or a
 * list after any framing (zero-width or control characters, a word such as
 * `json`, quotes, parentheses, a markdown fence, a tag like `<tool_call>`) or
 * holds an object opening (`{"`, `[{`) behind prose of any length, or
 * a JSON string literal, whole or cut. Nor is a text that is the call written
 * out instead of made: leaked call markup, or a `command: touch X` line.
 * Wrapping any of them would run the model's broken call as a command or read
 * it as a path. The only framing that is undone is exactly one enclosing
 * markdown fence or one quoting layer around a complete JSON object.
 */
import { isRecord, parseModelJson } from "./json-value.ts";
import { readsAsListLiteral } from "./list-literal.ts";

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
 * JSON (see the file header), or it is a JSON string literal, whole or cut
 * (`"\"/etc/hosts\""`): wrapped, its quotes would become part of the path or
 * command. A leading markdown auto-link (`[a.md](http://a.md)`) is a path, not a list.
 */
export function readsAsJsonText(text: string): boolean {
	if (startsLikeJson(text)) return true;
	const trimmed = text.trim();
	if (trimmed.startsWith('"')) return true;
	const literal = parseModelJson(trimmed);
	return literal === null || typeof literal === "boolean" || typeof literal === "number";
}

// A template sentinel anywhere (`<|im_end|>`, `<｜DSML｜invoke …>`): no command or path holds one.
const SENTINEL_TOKEN = /<\/?[|｜][^<>\n]*>/;
// Call markup at the start: `<tool_call>`, `</arg_value>`, `<parameter=command>`. A redirect (`< in.txt`) has a space after `<`.
const LEADING_MARKUP = /^<\/?[A-Za-z_][^<>\n]{0,200}>/;
// `command: touch X`: a field name and a colon, the way the model would write the whole object as a line.
const FIELD_LINE = /^([A-Za-z_][\w-]{0,63})\s*:/;

/**
 * True when a root string holds what the model wrote instead of a call, not
 * the value of a field: leaked call markup (a lone `<tool_call>` or DSML tag,
 * a template sentinel), or a `name: value` line whose name is one of
 * `fieldNames` (`command: touch X` is the object written as text; running it
 * would run `command:` as a program).
 */
export function readsAsCallText(text: string, fieldNames: readonly string[]): boolean {
	const trimmed = text.trim();
	if (SENTINEL_TOKEN.test(trimmed) || LEADING_MARKUP.test(trimmed)) return true;
	const name = FIELD_LINE.exec(trimmed)?.[1];
	return name !== undefined && fieldNames.includes(name);
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
	const parsed = parseModelJson(inner);
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
