/**
 * Grammar-token cleanup: the `<arg_key>`/`<arg_value>` markers a GLM-style
 * chat template can leak into argument keys and values. One leading and one
 * trailing token are removed, never more; a value under a content key keeps
 * every character, so cleanup changes keys and non-content fields only.
 */
import { defineOwn, isRecord } from "../json-value.ts";
import { shallowCopy } from "./copy-on-write.ts";

const OPENING_TOKENS = ["<arg_key>", "<arg_value>"] as const;
const CLOSING_TOKENS = ["</arg_key>", "</arg_value>"] as const;

/**
 * Removes one leaked opening token at the start and one closing token at the
 * end. A value keeps every other character; a key (an identifier) also loses
 * the whitespace that sat between a removed token and its text. A string
 * with no token is returned as is, untrimmed.
 */
export function stripTokenLeak(text: string, isKey: boolean): string {
	let start = 0;
	let end = text.length;
	const opening = OPENING_TOKENS.find((token) => text.startsWith(token));
	if (opening !== undefined) {
		start = opening.length;
	}
	const closing = CLOSING_TOKENS.find((token) => text.endsWith(token) && text.length - token.length >= start);
	if (closing !== undefined) {
		end = text.length - closing.length;
	}
	if (opening === undefined && closing === undefined) {
		return text;
	}
	let stripped = text.slice(start, end);
	if (isKey) {
		if (opening !== undefined) {
			stripped = stripped.trimStart();
		}
		if (closing !== undefined) {
			stripped = stripped.trimEnd();
		}
	}
	return stripped;
}

/**
 * Cheap and conservative: whether a string, or a record's keys and string
 * values, may hold a leaked token for {@link stripTokenLeak} to remove. Every
 * token it removes starts with `<` or ends with `>`, so a value with neither
 * at its ends is left as it is (a property test pins this).
 */
export function mayHoldTokenLeak(value: unknown): boolean {
	if (typeof value === "string") return mayEndInToken(value);
	if (!isRecord(value)) return false;
	// `for…in` also visits inherited enumerable keys: more than the cleanup looks at, never less.
	for (const key in value) {
		const item = value[key];
		if (mayEndInToken(key) || (typeof item === "string" && mayEndInToken(item))) return true;
	}
	return false;
}

const LESS_THAN = 0x3c;
const GREATER_THAN = 0x3e;

function mayEndInToken(text: string): boolean {
	return text.charCodeAt(0) === LESS_THAN || text.charCodeAt(text.length - 1) === GREATER_THAN;
}

/**
 * Token cleanup for a string, or for a record's keys and string values. A
 * value under a content key (judged by its cleaned key) is content and keeps
 * every character. A record is rebuilt with a null prototype only when a key
 * changed (cleaned keys that collide keep the later value); value-only
 * changes copy it. Where content keys are configured, a string in place of
 * the record is kept too: the root-string wrap would make it that content.
 */
export function stripGrammarTokens(value: unknown, contentKeys: readonly string[]): unknown {
	// A root string of a tool with content keys becomes that content (a command, a pattern): it is content too.
	if (typeof value === "string") {
		return contentKeys.length === 0 ? stripTokenLeak(value, false) : value;
	}
	if (!isRecord(value)) {
		return value;
	}
	const keys = Object.keys(value);
	const cleanedKeys = keys.map((key) => stripTokenLeak(key, true));
	const cleanedValues = keys.map((key, index) => {
		const item = value[key];
		return typeof item === "string" && !contentKeys.includes(cleanedKeys[index]!) ? stripTokenLeak(item, false) : item;
	});
	const keyChanged = cleanedKeys.some((key, index) => key !== keys[index]);
	const valueChanged = cleanedValues.some((item, index) => item !== value[keys[index]!]);
	if (!keyChanged && !valueChanged) {
		return value;
	}
	const rebuilt: Record<string, unknown> = keyChanged ? Object.create(null) : shallowCopy(value);
	for (let index = 0; index < keys.length; index++) {
		defineOwn(rebuilt, cleanedKeys[index]!, cleanedValues[index]);
	}
	return rebuilt;
}
