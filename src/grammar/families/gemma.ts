/**
 * Family `gemma`: Gemma 4's tool-call tokens (new-grammar-families.md).
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
 *   tolerated;
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
	forwardFinder,
	isDigit,
	type JsonCall,
	readIdentifier,
	skipWhitespace,
	tryParseJson,
} from "../scan.ts";
import type { FamilyParser, GrammarCandidate, ScanContext } from "../types.ts";

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

/** Sets an own property, even for a key such as `__proto__`. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
	Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A JSON string literal starting at the `"` at `at`. */
function readJsonString(text: string, at: number): Parsed<string> | undefined {
	let i = at + 1;
	while (i < text.length) {
		const c = text.charCodeAt(i);
		if (c === 92) i += 2;
		else if (c === 34) break;
		else if (c === 10) return undefined;
		else i++;
	}
	if (i >= text.length) return undefined;
	const parsed = tryParseJson(text.slice(at, i + 1));
	return parsed.ok && typeof parsed.value === "string" ? { value: parsed.value, end: i + 1 } : undefined;
}

/** A `<|"|>`-wrapped string starting at `at`: the content verbatim. */
function readMarkedString(text: string, at: number): Parsed<string> | undefined {
	const from = at + STRING_MARK.length;
	const close = text.indexOf(STRING_MARK, from);
	return close === -1 ? undefined : { value: text.slice(from, close), end: close + STRING_MARK.length };
}

function isNumberChar(c: number): boolean {
	return isDigit(c) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69;
}

function readNumber(text: string, at: number): Parsed<number> | undefined {
	let i = at;
	while (i < text.length && isNumberChar(text.charCodeAt(i))) i++;
	const parsed = tryParseJson(text.slice(at, i));
	return parsed.ok && typeof parsed.value === "number" ? { value: parsed.value, end: i } : undefined;
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
	if (c === 123) return readObject(text, i, depth + 1);
	if (c === 91) return readArray(text, i, depth + 1);
	if (c === 34) return readJsonString(text, i);
	if (isDigit(c) || c === 45) return readNumber(text, i);
	return readLiteral(text, i);
}

function readKey(text: string, at: number): Parsed<string> | undefined {
	if (text.startsWith(STRING_MARK, at)) return readMarkedString(text, at);
	if (text.charCodeAt(at) === 34) return readJsonString(text, at);
	const ident = readIdentifier(text, at);
	return ident ? { value: ident.name, end: ident.end } : undefined;
}

/** An argument object starting at the `{` at `at`. */
function readObject(text: string, at: number, depth: number): Parsed<Record<string, unknown>> | undefined {
	if (depth > MAX_DEPTH) return undefined;
	const value: Record<string, unknown> = {};
	let i = skipWhitespace(text, at + 1);
	if (text.charCodeAt(i) === 125) return { value, end: i + 1 };
	for (;;) {
		const key = readKey(text, i);
		if (!key) return undefined;
		i = skipWhitespace(text, key.end);
		if (text.charCodeAt(i) !== 58) return undefined;
		const item = readValue(text, i + 1, depth);
		if (!item) return undefined;
		setOwn(value, key.value, item.value);
		i = skipWhitespace(text, item.end);
		const c = text.charCodeAt(i);
		if (c === 125) return { value, end: i + 1 };
		if (c !== 44) return undefined;
		i = skipWhitespace(text, i + 1);
		if (text.charCodeAt(i) === 125) return { value, end: i + 1 };
	}
}

function readArray(text: string, at: number, depth: number): Parsed<unknown[]> | undefined {
	if (depth > MAX_DEPTH) return undefined;
	const value: unknown[] = [];
	let i = skipWhitespace(text, at + 1);
	if (text.charCodeAt(i) === 93) return { value, end: i + 1 };
	for (;;) {
		const item = readValue(text, i, depth);
		if (!item) return undefined;
		value.push(item.value);
		i = skipWhitespace(text, item.end);
		const c = text.charCodeAt(i);
		if (c === 93) return { value, end: i + 1 };
		if (c !== 44) return undefined;
		i = skipWhitespace(text, i + 1);
		if (text.charCodeAt(i) === 93) return { value, end: i + 1 };
	}
}

/** The calls of one block body starting at `from`, and where the body ends. */
function readBody(context: ScanContext, from: number): Parsed<JsonCall[]> | undefined {
	const text = context.text;
	const i = skipWhitespace(text, from);
	const c = text.charCodeAt(i);
	if (c === 123 || c === 91) {
		const end = bracketMatcherFor(context).closeOf(c === 123 ? "{" : "[", i);
		if (end === -1) return undefined;
		const parsed = tryParseJson(text.slice(i, end));
		const calls = parsed.ok ? callsFromJson(parsed.value) : [];
		return calls.length > 0 ? { value: calls, end } : undefined;
	}
	if (!text.startsWith(CALL_PREFIX, i)) return undefined;
	const name = readIdentifier(text, i + CALL_PREFIX.length);
	if (!name) return undefined;
	const open = skipWhitespace(text, name.end);
	if (text.charCodeAt(open) !== 123) return undefined;
	const args = readObject(text, open, 1);
	return args ? { value: [{ name: name.name, arguments: args.value }], end: args.end } : undefined;
}

function parseBlocks(context: ScanContext): GrammarCandidate[] {
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

export const parseGemma: FamilyParser = (context) => {
	try {
		return parseBlocks(context);
	} catch {
		return [];
	}
};
