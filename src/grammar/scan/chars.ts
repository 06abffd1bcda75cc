/**
 * Character classes for the grammar scanners: every character code a scanner
 * compares with has a name here, so a walk reads as the characters it looks for.
 */

export const codeTab = 0x09;
export const codeNewline = 0x0a;
const codeVerticalTab = 0x0b;
const codeFormFeed = 0x0c;
export const codeReturn = 0x0d;
export const codeSpace = 0x20;
export const codeDoubleQuote = 0x22;
export const codeSingleQuote = 0x27;
export const codeOpenParenthesis = 0x28;
export const codeCloseParenthesis = 0x29;
export const codeAsterisk = 0x2a;
export const codePlus = 0x2b;
export const codeComma = 0x2c;
export const codeMinus = 0x2d;
export const codeDot = 0x2e;
export const codeSlash = 0x2f;
const codeZero = 0x30;
const codeNine = 0x39;
export const codeColon = 0x3a;
export const codeLessThan = 0x3c;
export const codeEqual = 0x3d;
export const codeGreaterThan = 0x3e;
const codeUppercaseA = 0x41;
export const codeUppercaseE = 0x45;
const codeUppercaseZ = 0x5a;
export const codeOpeningBracket = 0x5b;
export const codeBackslash = 0x5c;
export const codeClosingBracket = 0x5d;
export const codeUnderscore = 0x5f;
export const codeBacktick = 0x60;
const codeLowercaseA = 0x61;
export const codeLowercaseE = 0x65;
const codeLowercaseZ = 0x7a;
export const codeOpeningBrace = 0x7b;
export const codeBar = 0x7c;
export const codeClosingBrace = 0x7d;
export const codeTilde = 0x7e;
/** Added to an upper-case ASCII letter's code it gives the lower-case one. */
export const caseOffset = codeLowercaseA - codeUppercaseA;

export function isAsciiLetter(code: number): boolean {
	return (code >= codeUppercaseA && code <= codeUppercaseZ) || isLowerLetter(code);
}

/** True for the code of a lower-case ASCII letter. */
export function isLowerLetter(code: number): boolean {
	return code >= codeLowercaseA && code <= codeLowercaseZ;
}

/** True for the code of an upper-case ASCII letter. */
export function isUpperLetter(code: number): boolean {
	return code >= codeUppercaseA && code <= codeUppercaseZ;
}

export function isDigit(code: number): boolean {
	return code >= codeZero && code <= codeNine;
}

/** First character of an identifier: `[A-Za-z_]`. */
export function isIdentifierStart(code: number): boolean {
	return isAsciiLetter(code) || code === codeUnderscore;
}

/** Later characters of an identifier: `[\w.-]`. */
export function isIdentifierPart(code: number): boolean {
	return isIdentifierStart(code) || isDigit(code) || code === codeDot || code === codeMinus;
}

/** Space, tab, newline, carriage return, form feed or vertical tab. */
export function isWhitespace(code: number): boolean {
	return (
		code === codeSpace ||
		code === codeTab ||
		code === codeNewline ||
		code === codeReturn ||
		code === codeFormFeed ||
		code === codeVerticalTab
	);
}

/** End (exclusive) of the identifier (`[A-Za-z_][\w.-]*`) starting exactly at `from`, or -1. */
export function identifierEnd(text: string, from: number): number {
	if (from < 0 || from >= text.length || !isIdentifierStart(text.charCodeAt(from))) return -1;
	let end = from + 1;
	while (end < text.length && isIdentifierPart(text.charCodeAt(end))) end++;
	return end;
}

/** Reads an identifier (`[A-Za-z_][\w.-]*`) starting exactly at `from`; `end` is exclusive. */
export function readIdentifier(text: string, from: number): { name: string; end: number } | undefined {
	const end = identifierEnd(text, from);
	return end === -1 ? undefined : { name: text.slice(from, end), end };
}

/** True when the whole string is one identifier. */
export function isIdentifier(value: string): boolean {
	const read = readIdentifier(value, 0);
	return read !== undefined && read.end === value.length;
}

/**
 * A `'` right after a letter or digit (`it's`, `don't`) is an apostrophe, not
 * the start of a quoted run: Python and JSON literals never start there, and
 * treating prose apostrophes as quotes would make every bracket after one
 * look quoted.
 */
export function isApostrophe(text: string, at: number): boolean {
	if (at === 0) return false;
	const before = text.charCodeAt(at - 1);
	return isAsciiLetter(before) || isDigit(before);
}

/** A character no call grammar or reasoning tag can do without; text free of them holds neither. */
const OUTSIDE_PLAIN_TEXT = /[^A-Za-z0-9_\s.,!?'-]/;

/**
 * False for plain text (letters, digits, `_`, whitespace and `.,!?'-`): every
 * family needs a tag, bracket, brace, parenthesis, `=` or `|` (or a look-alike
 * outside ASCII) to write a call, and every reasoning tag a `<`, `[` or `▷`,
 * so such text holds neither and no scanner has to run over it.
 */
export function mayHoldMarkup(text: string): boolean {
	return OUTSIDE_PLAIN_TEXT.test(text);
}
