/**
 * Family `gemma`: Gemma 4's tool-call tokens, as Gemma 4 chat templates write them.
 *
 *     <|tool_call>call:read{path:<|"|>src/index.ts<|"|>,limit:20}<tool_call|>
 *
 * Recognises, between the opener `<|tool_call>` and the closer
 * `<tool_call|>`:
 * - `call:NAME` and a JSON-like argument object: keys bare identifiers or
 *   quoted (`"k"` or `<|"|>k<|"|>`); string values wrapped in `<|"|>` … `<|"|>`
 *   with the content between kept verbatim (quotes, commas, braces and
 *   newlines included); JSON strings, numbers, `true`, `false`, `null`,
 *   nested objects and arrays under the same rules; a trailing comma is
 *   tolerated; a key written twice (a value that held `<|"|>` and spelled
 *   further members) makes the body unreadable;
 * - a plain JSON call (`{"name": "read", "arguments": {…}}`) or an array of
 *   them, as some servers and fine-tunes emit.
 * Several blocks may follow each other; each is its own candidate with the
 * range opener to closer. An opener with no closer (before the next opener)
 * is a strip-only dangling marker over the opener alone, never a call. A
 * closed block whose body does not parse yields nothing: it may be prose
 * quoting both tokens, and we do not guess.
 *
 * Linear: the walk moves one index forward through each block; `<|"|>`
 * string ends, closers and openers are found with `indexOf` (the next closer
 * and opener are remembered between blocks, so no stretch is searched twice);
 * nesting is capped, so malformed input fails fast instead of recursing deep.
 */
import {
	bracketMatcherFor,
	callsFromJson,
	codeBackslash,
	codeClosingBrace,
	codeClosingBracket,
	codeColon,
	codeComma,
	codeDot,
	codeDoubleQuote,
	codeLowercaseE,
	codeMinus,
	codeNewline,
	codeOpeningBrace,
	codeOpeningBracket,
	codePlus,
	codeUppercaseE,
	defineOwn,
	forwardFinder,
	isDigit,
	type JsonCall,
	parseModelJson,
	readIdentifier,
	skipWhitespace,
} from "../scan.ts";
import type { GrammarCandidate, ScanContext } from "../types.ts";

const OPENER = "<|tool_call>";
const CLOSER = "<tool_call|>";
const CALL_PREFIX = "call:";
const STRING_MARK = '<|"|>';
/** Deepest nesting of objects and arrays accepted in an argument object. */
const MAX_DEPTH = 64;

interface Parsed<T> {
	value: T;
	end: number;
}

/** A JSON string literal starting at the `"` at `at`. */
function readJsonString(text: string, at: number): Parsed<string> | undefined {
	let i = at + 1;
	while (i < text.length) {
		const c = text.charCodeAt(i);
		if (c === codeBackslash) i += 2;
		else if (c === codeDoubleQuote) break;
		else if (c === codeNewline) return undefined;
		else i++;
	}
	if (i >= text.length) return undefined;
	const parsed = parseModelJson(text.slice(at, i + 1));
	return typeof parsed === "string" ? { value: parsed, end: i + 1 } : undefined;
}

/** A `<|"|>`-wrapped string starting at `at`: the content verbatim. */
function readMarkedString(text: string, at: number): Parsed<string> | undefined {
	const from = at + STRING_MARK.length;
	const close = text.indexOf(STRING_MARK, from);
	return close === -1 ? undefined : { value: text.slice(from, close), end: close + STRING_MARK.length };
}

function isNumberChar(c: number): boolean {
	return (
		isDigit(c) || c === codeMinus || c === codePlus || c === codeDot || c === codeLowercaseE || c === codeUppercaseE
	);
}

function readNumber(text: string, at: number): Parsed<number> | undefined {
	let i = at;
	while (i < text.length && isNumberChar(text.charCodeAt(i))) i++;
	const parsed = parseModelJson(text.slice(at, i));
	return typeof parsed === "number" ? { value: parsed, end: i } : undefined;
}

const LITERALS: ReadonlyArray<readonly [string, boolean | null]> = [
	["true", true],
	["false", false],
	["null", null],
];

function readLiteral(text: string, at: number): Parsed<boolean | null> | undefined {
	const word = readIdentifier(text, at);
	if (!word) return undefined;
	for (const [literal, value] of LITERALS) if (word.name === literal) return { value, end: word.end };
	return undefined;
}

function readValue(text: string, at: number, depth: number): Parsed<unknown> | undefined {
	const i = skipWhitespace(text, at);
	if (text.startsWith(STRING_MARK, i)) return readMarkedString(text, i);
	const c = text.charCodeAt(i);
	if (c === codeOpeningBrace) return readObject(text, i, depth + 1);
	if (c === codeOpeningBracket) return readArray(text, i, depth + 1);
	if (c === codeDoubleQuote) return readJsonString(text, i);
	if (isDigit(c) || c === codeMinus) return readNumber(text, i);
	return readLiteral(text, i);
}

function readKey(text: string, at: number): Parsed<string> | undefined {
	if (text.startsWith(STRING_MARK, at)) return readMarkedString(text, at);
	if (text.charCodeAt(at) === codeDoubleQuote) return readJsonString(text, at);
	const ident = readIdentifier(text, at);
	return ident ? { value: ident.name, end: ident.end } : undefined;
}

/** An argument object starting at the `{` at `at`. */
function readObject(text: string, at: number, depth: number): Parsed<Record<string, unknown>> | undefined {
	if (depth > MAX_DEPTH) return undefined;
	const value: Record<string, unknown> = {};
	let i = skipWhitespace(text, at + 1);
	if (text.charCodeAt(i) === codeClosingBrace) return { value, end: i + 1 };
	for (;;) {
		const key = readKey(text, i);
		if (!key) return undefined;
		i = skipWhitespace(text, key.end);
		if (text.charCodeAt(i) !== codeColon) return undefined;
		// A key written twice: a string value spelled further members of its own.
		if (Object.hasOwn(value, key.value)) return undefined;
		const item = readValue(text, i + 1, depth);
		if (!item) return undefined;
		defineOwn(value, key.value, item.value);
		i = skipWhitespace(text, item.end);
		const c = text.charCodeAt(i);
		if (c === codeClosingBrace) return { value, end: i + 1 };
		if (c !== codeComma) return undefined;
		i = skipWhitespace(text, i + 1);
		if (text.charCodeAt(i) === codeClosingBrace) return { value, end: i + 1 };
	}
}

function readArray(text: string, at: number, depth: number): Parsed<unknown[]> | undefined {
	if (depth > MAX_DEPTH) return undefined;
	const value: unknown[] = [];
	let i = skipWhitespace(text, at + 1);
	if (text.charCodeAt(i) === codeClosingBracket) return { value, end: i + 1 };
	for (;;) {
		const item = readValue(text, i, depth);
		if (!item) return undefined;
		value.push(item.value);
		i = skipWhitespace(text, item.end);
		const c = text.charCodeAt(i);
		if (c === codeClosingBracket) return { value, end: i + 1 };
		if (c !== codeComma) return undefined;
		i = skipWhitespace(text, i + 1);
		if (text.charCodeAt(i) === codeClosingBracket) return { value, end: i + 1 };
	}
}

/** The calls of one block body starting at `from`, and where the body ends. */
function readBody(context: ScanContext, from: number): Parsed<JsonCall[]> | undefined {
	const text = context.text;
	const i = skipWhitespace(text, from);
	const c = text.charCodeAt(i);
	if (c === codeOpeningBrace || c === codeOpeningBracket) {
		const end = bracketMatcherFor(context).closeOf(c === codeOpeningBrace ? "{" : "[", i);
		if (end === -1) return undefined;
		const calls = callsFromJson(parseModelJson(text.slice(i, end)));
		return calls.length > 0 ? { value: calls, end } : undefined;
	}
	if (!text.startsWith(CALL_PREFIX, i)) return undefined;
	const name = readIdentifier(text, i + CALL_PREFIX.length);
	if (!name) return undefined;
	const open = skipWhitespace(text, name.end);
	if (text.charCodeAt(open) !== codeOpeningBrace) return undefined;
	const args = readObject(text, open, 1);
	return args ? { value: [{ name: name.name, arguments: args.value }], end: args.end } : undefined;
}

/** Every Gemma call in the scanned text. */
export function parseGemma(context: ScanContext): GrammarCandidate[] {
	const text = context.text;
	const out: GrammarCandidate[] = [];
	const nextOpener = forwardFinder(text, OPENER);
	const nextCloser = forwardFinder(text, CLOSER);
	let at = nextOpener(0);
	while (at !== -1) {
		const bodyStart = at + OPENER.length;
		const fenced = context.isInsideFence(at);
		const body = fenced ? undefined : readBody(context, bodyStart);
		const closer = body ? skipWhitespace(text, body.end) : -1;
		if (body && text.startsWith(CLOSER, closer)) {
			const end = closer + CLOSER.length;
			for (const call of body.value) out.push({ ...call, grammar: "gemma", start: at, end });
			at = nextOpener(end);
			continue;
		}
		const close = nextCloser(bodyStart);
		const following = nextOpener(bodyStart);
		const closed = close !== -1 && (following === -1 || close < following);
		if (closed) {
			// Markup we cannot read (or prose quoting both tokens): left as written.
			at = nextOpener(close + CLOSER.length);
			continue;
		}
		if (!fenced) out.push({ name: "", arguments: {}, grammar: "gemma", start: at, end: bodyStart, stripOnly: true });
		at = following;
	}
	return out;
}
