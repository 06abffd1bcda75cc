/**
 * Pythonic calls, `name(key="value", flag=True)`, as OLMo, Llama and Granite
 * write them: keyword arguments only, `True`/`False`/`None` and JSON literals
 * both read as values. Parens are matched by the shared, budgeted
 * `BracketMatcher`, so a walk over every line stays linear.
 */
import { defineOwn, parseModelJson, repeatsKeyInJson } from "../../core/json-value.ts";
import { BracketMatcher, findMatchingParen } from "./brackets.ts";
import {
	codeBackslash,
	codeCloseParenthesis,
	codeClosingBrace,
	codeClosingBracket,
	codeComma,
	codeDot,
	codeDoubleQuote,
	codeEqual,
	codeMinus,
	codeOpeningBrace,
	codeOpeningBracket,
	codeOpenParenthesis,
	codePlus,
	codeSingleQuote,
	identifierEnd,
	isApostrophe,
	isDigit,
	isIdentifier,
	isIdentifierPart,
	isIdentifierStart,
	readIdentifier,
} from "./chars.ts";
import { skipInlineSpace } from "./cursor.ts";
import type { JsonCall } from "./json-calls.ts";

/**
 * Index of the first `code` at or after `from` that lies outside quotes and
 * outside `()`, `[]`, `{}` nesting (counted from `from`), or -1. At such an
 * index nesting and quoting are both closed, so a walk may resume right after it.
 */
function indexOfTopLevel(text: string, code: number, from = 0): number {
	let depth = 0;
	let quote = 0;
	for (let i = from; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (quote !== 0) {
			if (c === codeBackslash) i++;
			else if (c === quote) quote = 0;
			continue;
		}
		if (c === codeDoubleQuote || (c === codeSingleQuote && !isApostrophe(text, i))) quote = c;
		else if (c === codeOpenParenthesis || c === codeOpeningBracket || c === codeOpeningBrace) depth++;
		else if ((c === codeCloseParenthesis || c === codeClosingBracket || c === codeClosingBrace) && depth > 0) depth--;
		else if (c === code && depth === 0) return i;
	}
	return -1;
}

/** Splits `text` on `separator` (a comma by default) outside quotes and outside `()`, `[]`, `{}` nesting. */
export function splitTopLevel(text: string, separator = codeComma): string[] {
	const pieces: string[] = [];
	let start = 0;
	for (let at = indexOfTopLevel(text, separator); at !== -1; at = indexOfTopLevel(text, separator, start)) {
		pieces.push(text.slice(start, at));
		start = at + 1;
	}
	pieces.push(text.slice(start));
	return pieces;
}

/** Index of the first `=` outside quotes and nesting, or -1. */
function topLevelEquals(text: string): number {
	return indexOfTopLevel(text, codeEqual);
}

function isDecimalNumber(v: string): boolean {
	let i = 0;
	if (v.charCodeAt(0) === codePlus || v.charCodeAt(0) === codeMinus) i = 1;
	const intStart = i;
	while (i < v.length && isDigit(v.charCodeAt(i))) i++;
	if (i === intStart) return false;
	if (i === v.length) return true;
	if (v.charCodeAt(i) !== codeDot) return false;
	i++;
	const fracStart = i;
	while (i < v.length && isDigit(v.charCodeAt(i))) i++;
	return i > fracStart && i === v.length;
}

/** Unescapes `\'`, `\"` and `\\` in the inside of a quoted Python string. */
function unescapePythonQuoted(inner: string): string {
	if (!inner.includes("\\")) return inner;
	let out = "";
	for (let i = 0; i < inner.length; i++) {
		const c = inner[i];
		const next = inner[i + 1];
		if (c === "\\" && (next === "'" || next === '"' || next === "\\")) {
			out += next;
			i++;
		} else {
			out += c;
		}
	}
	return out;
}

/** Replaces the bare words True/False/None (outside quotes) with JSON literals. */
function pythonWordsToJson(text: string): string {
	let out = "";
	let quote = 0;
	let i = 0;
	while (i < text.length) {
		const c = text.charCodeAt(i);
		if (quote !== 0) {
			out += text[i];
			if (c === codeBackslash && i + 1 < text.length) {
				out += text[i + 1];
				i += 2;
				continue;
			}
			if (c === quote) quote = 0;
			i++;
			continue;
		}
		if (c === codeDoubleQuote || (c === codeSingleQuote && !isApostrophe(text, i))) {
			quote = c;
			out += text[i];
			i++;
			continue;
		}
		if (isIdentifierStart(c) && (i === 0 || !isIdentifierPart(text.charCodeAt(i - 1)))) {
			const word = readIdentifier(text, i);
			if (word) {
				out +=
					word.name === "True" ? "true" : word.name === "False" ? "false" : word.name === "None" ? "null" : word.name;
				i = word.end;
				continue;
			}
		}
		out += text[i];
		i++;
	}
	return out;
}

/** Converts one pythonic argument value: Python literals, numbers, quoted strings, else JSON, else the text; {@link REPEATED_KEY} for JSON that gives a key twice. */
function parsePythonicValue(raw: string): unknown {
	const v = raw.trim();
	if (v === "True") return true;
	if (v === "False") return false;
	if (v === "None") return null;
	if (isDecimalNumber(v)) return Number(v);
	const first = v.charCodeAt(0);
	if (
		v.length >= 2 &&
		(first === codeSingleQuote || first === codeDoubleQuote) &&
		v.charCodeAt(v.length - 1) === first
	) {
		return unescapePythonQuoted(v.slice(1, -1));
	}
	const json = pythonWordsToJson(v);
	const parsed = parseModelJson(json);
	if (parsed !== undefined) return parsed;
	// JSON that gives a key twice is ambiguous, not text: kept as its text it would reach a string field.
	return repeatsKeyInJson(json) ? REPEATED_KEY : v;
}

/** What {@link parsePythonicValue} answers for a dict or list that gives one key twice (JSON keeps the last). */
const REPEATED_KEY: unique symbol = Symbol("repeated-key");

/** The keyword pieces of a pythonic call's argument text, as written: key and raw value; positional pieces are left out. */
function keywordPieces(argsText: string): Array<[key: string, raw: string]> {
	const pieces: Array<[string, string]> = [];
	if (argsText.trim() === "") return pieces;
	for (const piece of splitTopLevel(argsText)) {
		const eq = topLevelEquals(piece);
		if (eq === -1) continue;
		const key = piece.slice(0, eq).trim();
		if (isIdentifier(key)) pieces.push([key, piece.slice(eq + 1)]);
	}
	return pieces;
}

/**
 * The arguments the keyword pieces spell, each value read once, and whether
 * the call cannot be read as written: a keyword given twice (Python keeps the
 * last) or a value that is a dict or list giving one key twice (JSON keeps the
 * last), so which value the model meant is not known. Such a value is left
 * out, never kept as its text.
 */
function argumentsOf(pieces: ReadonlyArray<readonly [key: string, raw: string]>): {
	args: Record<string, unknown>;
	ambiguous: boolean;
} {
	const args: Record<string, unknown> = {};
	const keys = new Set<string>();
	let ambiguous = false;
	for (const [key, raw] of pieces) {
		if (keys.has(key)) ambiguous = true;
		keys.add(key);
		const value = parsePythonicValue(raw);
		if (value === REPEATED_KEY) ambiguous = true;
		else defineOwn(args, key, value);
	}
	return { args, ambiguous };
}

/** Keyword arguments of a pythonic call's argument text; positional pieces are ignored. */
export function parsePythonicArgs(argsText: string): Record<string, unknown> {
	return argumentsOf(keywordPieces(argsText)).args;
}

/** A call's name and arguments, carrying `stripOnly` when it cannot run as written (see {@link argumentsOf}). */
export function callFields(call: JsonCall): JsonCall {
	return call.stripOnly === true
		? { name: call.name, arguments: call.arguments, stripOnly: true }
		: { name: call.name, arguments: call.arguments };
}

/** A pythonic call found in text, with the span from its name to its closing paren. */
export interface PythonicCall extends JsonCall {
	/** Offset of the line start (leading whitespace included). */
	lineStart: number;
	/** Offset of the call name. */
	start: number;
	/** Offset just after the closing paren. */
	end: number;
}

/**
 * The pythonic call whose line starts at `lineStart`: optional whitespace,
 * an identifier, optional spaces, `(`, and a quote-aware matching `)` before
 * `limit` (which may be on a later line).
 */
export function pythonicCallAtLine(
	text: string,
	lineStart: number,
	limit = text.length,
	matcher?: BracketMatcher,
): PythonicCall | undefined {
	const start = skipInlineSpace(text, lineStart, limit);
	// The name is cut out only once a `(` follows: most lines start with a plain word.
	const identEnd = identifierEnd(text, start);
	if (identEnd === -1 || identEnd > limit) return undefined;
	const open = skipInlineSpace(text, identEnd, limit);
	if (open >= limit || text.charCodeAt(open) !== codeOpenParenthesis) return undefined;
	const end = findMatchingParen(text, open, limit, matcher);
	if (end === -1) return undefined;
	const { args, ambiguous } = argumentsOf(keywordPieces(text.slice(open + 1, end - 1)));
	const call: PythonicCall = { name: text.slice(start, identEnd), arguments: args, lineStart, start, end };
	if (ambiguous) call.stripOnly = true;
	return call;
}

/**
 * Every line-leading pythonic call in `text[from, limit)` (only a call that starts its line is one): at `from`
 * or right after a newline. Scanning resumes after each call's closing paren.
 */
export function parsePythonicCalls(
	text: string,
	from = 0,
	limit = text.length,
	matcher?: BracketMatcher,
): PythonicCall[] {
	const calls: PythonicCall[] = [];
	const shared = matcher && matcher.text === text ? matcher : new BracketMatcher(text);
	let lineStart = from;
	while (lineStart < limit) {
		const call = pythonicCallAtLine(text, lineStart, limit, shared);
		let next: number;
		if (call) {
			calls.push(call);
			next = text.indexOf("\n", call.end);
		} else {
			next = text.indexOf("\n", lineStart);
		}
		if (next === -1 || next >= limit) break;
		lineStart = next + 1;
	}
	return calls;
}
