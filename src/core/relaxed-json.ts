/**
 * Relaxed JSON: argument text that strict parsing rejects only because of a
 * spelling models are known to produce, read as the JSON it already is.
 *
 * Four spellings, each its own recorded repair: a trailing comma before `}`
 * or `]`; the model's end tokens (`<|call|>`, `<|endoftext|>`, `<|im_end|>`)
 * after the object (mastra#12823); one doubled pair of braces `{{…}}` around
 * the whole object (mastra#13829); bare Python `None`, `True`, `False`
 * (hermes-agent#79333). Nothing else is repaired here: the result must pass
 * strict `JSON.parse` as it stands, so text with any other damage (a raw line
 * break in a string, a cut, a single quote) is left to the existing envelope
 * steps, which decide it alone.
 *
 * Strings never change. Every edit is made between string literals as the
 * scan sees them, and no edit adds or removes a quote or a backslash, so the
 * string literals of the result are the scan's literals, byte for byte; the
 * strict parse then proves the scan saw them right.
 */
import { trimJsonWhitespace } from "./json-text.ts";
import { afterString, CLOSE_BRACE, CLOSE_BRACKET, COMMA, parseModelJson, QUOTE } from "./json-value.ts";
import { RULE, type RuleId } from "./rule-ids.ts";
import type { RepairChange } from "./types.ts";

const NOTES: Readonly<Record<RelaxedRuleId, string>> = {
	[RULE.dropTrailingComma]:
		"The argument JSON had a trailing comma before a closing } or ]; it was dropped. Send strict JSON, without trailing commas.",
	[RULE.stripEndToken]:
		"A model end token (such as <|call|>) followed the argument object; it was removed. Send only the JSON object as the arguments.",
	[RULE.unwrapDoubledBraces]:
		"The argument object was wrapped in doubled braces {{…}}; one pair was removed. Send the object with single braces.",
	[RULE.readPythonLiteral]:
		"The argument JSON used Python's None, True or False outside strings; they were read as JSON null, true and false. Write JSON literals in lower case.",
};

type RelaxedRuleId =
	| typeof RULE.dropTrailingComma
	| typeof RULE.stripEndToken
	| typeof RULE.unwrapDoubledBraces
	| typeof RULE.readPythonLiteral;

/** End tokens of chat templates that models are seen to emit after a call's arguments. */
export const END_TOKENS: readonly string[] = ["<|call|>", "<|endoftext|>", "<|im_end|>"];

const PYTHON_LITERALS: Readonly<Record<string, string>> = { None: "null", True: "true", False: "false" };

/** The value and the envelope changes of relaxed `text`, or `undefined` when none of the four spellings makes it strict JSON. */
export function parseRelaxedJson(text: string): { value: object; changes: RepairChange[] } | undefined {
	const fired: RuleId[] = [];
	let body = trimJsonWhitespace(text);
	const unterminated = withoutEndTokens(body);
	if (unterminated !== body) {
		fired.push(RULE.stripEndToken);
		body = unterminated;
	}
	const inner = insideDoubledBraces(body);
	if (inner !== undefined) {
		fired.push(RULE.unwrapDoubledBraces);
		body = inner;
	}
	const scanned = scanBetweenStrings(body);
	if (scanned.droppedComma) fired.push(RULE.dropTrailingComma);
	if (scanned.readLiteral) fired.push(RULE.readPythonLiteral);
	if (fired.length === 0) return undefined;
	const value = parseModelJson(scanned.text);
	// Only a container is an argument envelope; a literal is never one.
	if (typeof value !== "object" || value === null) return undefined;
	return {
		value,
		changes: fired.map((ruleId) => ({ ruleId, stage: "envelope", note: NOTES[ruleId as RelaxedRuleId] })),
	};
}

/** `text` without a run of end tokens (and the whitespace around them) at its end. */
function withoutEndTokens(text: string): string {
	let rest = text;
	for (;;) {
		const token = END_TOKENS.find((candidate) => rest.endsWith(candidate));
		if (token === undefined) return rest;
		rest = trimJsonWhitespace(rest.slice(0, -token.length));
	}
}

/** The object inside `{{…}}`, or `undefined` when the text is not one doubled pair of braces around something. */
function insideDoubledBraces(text: string): string | undefined {
	if (!text.startsWith("{") || !text.endsWith("}") || text.length < 4) return undefined;
	const inner = trimJsonWhitespace(text.slice(1, -1));
	return inner.startsWith("{") && inner.endsWith("}") ? inner : undefined;
}

function isJsonWhitespace(code: number): boolean {
	return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

function isWordChar(code: number): boolean {
	return (
		(code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || code === 0x5f
	);
}

/** After these a comma separates nothing: `[,]`, `{,}`, `,,` and `:,` are damage, not a trailing comma. */
const NO_VALUE_BEFORE = new Set(["{", "[", ",", ":", ""]);

/**
 * One pass over the text between string literals: trailing commas dropped,
 * Python literals spelled as JSON. String literals are copied untouched.
 */
function scanBetweenStrings(text: string): { text: string; droppedComma: boolean; readLiteral: boolean } {
	let out = "";
	let copiedUpTo = 0;
	let droppedComma = false;
	let readLiteral = false;
	// The last character outside whitespace, as seen between strings (a closing quote counts).
	let previous = "";
	let index = 0;
	while (index < text.length) {
		const code = text.charCodeAt(index);
		if (code === QUOTE) {
			index = afterString(text, index);
			previous = '"';
			continue;
		}
		if (code === COMMA && !NO_VALUE_BEFORE.has(previous)) {
			let next = index + 1;
			while (next < text.length && isJsonWhitespace(text.charCodeAt(next))) next++;
			const closer = text.charCodeAt(next);
			if (closer === CLOSE_BRACE || closer === CLOSE_BRACKET) {
				out += text.slice(copiedUpTo, index);
				copiedUpTo = index + 1;
				droppedComma = true;
				index++;
				continue;
			}
		}
		if (isWordChar(code)) {
			let end = index + 1;
			while (end < text.length && isWordChar(text.charCodeAt(end))) end++;
			const word = text.slice(index, end);
			const literal = Object.hasOwn(PYTHON_LITERALS, word) ? PYTHON_LITERALS[word] : undefined;
			if (literal !== undefined) {
				out += text.slice(copiedUpTo, index) + literal;
				copiedUpTo = end;
				readLiteral = true;
			}
			previous = text[end - 1] as string;
			index = end;
			continue;
		}
		if (!isJsonWhitespace(code)) previous = text[index] as string;
		index++;
	}
	return { text: copiedUpTo === 0 ? text : out + text.slice(copiedUpTo), droppedComma, readLiteral };
}
