/**
 * Calls and argument objects written as JSON: the value coercions every
 * family shares, the call-object shapes models write (`name` + `arguments`,
 * `function_name`, `function.arguments`, ...) and argument bodies. JSON
 * parsing and the plain-object test are the core's, so a value reads the same
 * in a leaked call as in a real one.
 */
import { isPlainObject, parseModelJson } from "../../core/json-value.ts";
import { extractFirstBalancedJson } from "./brackets.ts";
import { codeDoubleQuote, codeMinus, codeOpeningBrace, codeOpeningBracket, isDigit } from "./chars.ts";

function startsLikeJsonValue(v: string): boolean {
	const c = v.charCodeAt(0);
	if (c === codeOpeningBracket || c === codeOpeningBrace || c === codeDoubleQuote || isDigit(c)) return true;
	if (c === codeMinus) return isDigit(v.charCodeAt(1));
	return v.startsWith("true") || v.startsWith("false") || v.startsWith("null");
}

/**
 * Loose value coercion of an already-trimmed value: JSON when it starts like
 * a JSON value and parses, the raw string otherwise, so `5` and `[1]` in a
 * tag body are values while a path or prose stays text.
 */
export function maybeParseJsonValue(value: string): unknown {
	if (value === "" || !startsLikeJsonValue(value)) return value;
	return parseJsonValueOrString(value);
}

/** `JSON.parse(value)`, or the original string when it does not parse. */
export function parseJsonValueOrString(value: string): unknown {
	const parsed = parseModelJson(value);
	return parsed === undefined ? value : parsed;
}

/** Nesting limit for `arguments`-inside-`arguments` unwrapping. */
const MAX_UNWRAP_DEPTH = 8;

/**
 * Argument normalization: JSON text is parsed and normalized again; an
 * object whose `arguments` holds a string or object is unwrapped when that
 * yields an object (models nest the call object in itself); other plain
 * objects are returned as is; anything else is undefined (callers use `{}`).
 */
export function normalizeArgumentsObject(value: unknown, depth = 0): Record<string, unknown> | undefined {
	if (depth > MAX_UNWRAP_DEPTH) return undefined;
	if (typeof value === "string") {
		const parsed = parseModelJson(value.trim());
		return parsed === undefined ? undefined : normalizeArgumentsObject(parsed, depth + 1);
	}
	if (!isPlainObject(value)) return undefined;
	const inner = value.arguments;
	if (typeof inner === "string" || isPlainObject(inner)) {
		const unwrapped = normalizeArgumentsObject(inner, depth + 1);
		if (unwrapped !== undefined) return unwrapped;
	}
	return value;
}

/** The normalized argument object of a JSON text, `{}` when it holds none. */
export function argumentsFromJsonText(text: string): Record<string, unknown> {
	return normalizeArgumentsObject(parseModelJson(text.trim())) ?? {};
}

/** A call read from a JSON object: name and arguments only. */
export interface JsonCall {
	name: string;
	arguments: Record<string, unknown>;
	/** The call cannot run as written (a pythonic keyword given twice, or a value giving a key twice): its text is stripped, never promoted. */
	stripOnly?: true;
}

/**
 * Call from a JSON object: name from `name`, `function_name` or
 * `function.name`; arguments from `arguments`, `args`, `parameters` or
 * `function.arguments`, normalized, default `{}` (the spellings the model
 * families write).
 */
export function callFromJsonObject(value: unknown): JsonCall | undefined {
	if (!isPlainObject(value)) return undefined;
	const fn = isPlainObject(value.function) ? value.function : undefined;
	const rawName = value.name ?? value.function_name ?? fn?.name;
	if (typeof rawName !== "string") return undefined;
	const name = rawName.trim();
	if (name === "") return undefined;
	const source = value.arguments ?? value.args ?? value.parameters ?? fn?.arguments;
	return { name, arguments: normalizeArgumentsObject(source) ?? {} };
}

/** One call per object for a JSON array, one call for a call object, none otherwise. */
export function callsFromJson(value: unknown): JsonCall[] {
	if (Array.isArray(value)) {
		const calls: JsonCall[] = [];
		for (const item of value) {
			const call = callFromJsonObject(item);
			if (call) calls.push(call);
		}
		return calls;
	}
	const call = callFromJsonObject(value);
	return call ? [call] : [];
}

/** Parses a call body as JSON calls: first balanced JSON, else the whole text. */
export function callsFromJsonText(text: string): JsonCall[] {
	const span = extractFirstBalancedJson(text);
	const parsed = parseModelJson(span ? span.text : text);
	return parsed === undefined ? [] : callsFromJson(parsed);
}

/**
 * Arguments written as a JSON object in the body of a call element that has
 * no parameter tags: the first balanced JSON value (or the whole trimmed
 * body), normalized; `{}` when it is not an argument object.
 */
export function argumentsFromJsonBody(body: string): Record<string, unknown> {
	const trimmed = body.trim();
	if (trimmed.startsWith('"')) return argumentObjectOf(parseModelJson(trimmed)) ?? {};
	const span = extractFirstBalancedJson(body);
	return normalizeArgumentsObject(parseModelJson(span ? span.text : trimmed)) ?? {};
}

/**
 * The argument object a parsed body stands for: the object itself or, when
 * the model encoded its arguments twice (a JSON string holding the object,
 * seen with Kimi: MoonshotAI/kimi-cli#2406, tridz-dev/huf#676), the object
 * that string holds, decoded exactly once more. Undefined for anything else
 * (`undefined` in: the body did not parse).
 */
export function argumentObjectOf(parsed: unknown): Record<string, unknown> | undefined {
	if (isPlainObject(parsed)) return parsed;
	if (typeof parsed !== "string") return undefined;
	const inner = parseModelJson(parsed.trim());
	return isPlainObject(inner) ? inner : undefined;
}

/** Removes one surrounding markdown fence (```lang … ```) from already-trimmed text. */
export function unwrapMarkdownFence(text: string): string {
	if (!text.startsWith("```")) return text;
	const firstNewline = text.indexOf("\n");
	if (firstNewline === -1) return text;
	let inner = text.slice(firstNewline + 1);
	const trimmedEnd = inner.trimEnd();
	if (trimmedEnd.endsWith("```")) inner = trimmedEnd.slice(0, -3);
	return inner.trim();
}
