/**
 * The completion scanner behind truncated-envelope candidates.
 *
 * One forward pass over the text tracks string state and the stack of open
 * `{` / `[`; no regular expression ever runs over the (unbounded) input. A
 * completion exists only when the text stops right after a complete value
 * inside open objects, so closing it adds braces and nothing else: it never
 * closes an open string, never supplies a missing value, never treats a
 * trailing number as finished (`12` may be the start of `123`), and never
 * closes an open array, whose length is unknown (a cut `edits` list would run
 * only its first edits).
 */

/** What the scanner expects next, in JSON grammar terms. */
type Expectation = "value" | "key" | "colon" | "comma-or-close" | "done";

/** The kind of the last complete value, which decides whether stopping there is safe. */
type LastValue = "string" | "literal" | "container" | "number" | "partial" | "none";

const LITERALS = new Set(["true", "false", "null"]);

/**
 * Returns the closing braces that complete `text`, or `undefined` when the
 * text cannot be completed by closing objects alone. Trailing whitespace
 * is ignored; the text must open with `{` after optional leading whitespace.
 */
export function completionSuffix(text: string): string | undefined {
	let index = skipWhitespace(text, 0);
	if (text.charCodeAt(index) !== 0x7b /* { */) {
		return undefined;
	}
	const stack: string[] = [];
	let expect: Expectation = "value";
	let last: LastValue = "none";
	while (index < text.length) {
		const char = text[index]!;
		if (isWhitespace(char)) {
			index++;
			continue;
		}
		if (char === '"') {
			if (expect !== "key" && expect !== "value") {
				return undefined;
			}
			const end = findStringEnd(text, index + 1);
			if (end === -1) {
				return undefined;
			}
			index = end + 1;
			if (expect === "key") {
				expect = "colon";
			} else {
				expect = "comma-or-close";
				last = "string";
			}
			continue;
		}
		if (char === "{" || char === "[") {
			if (expect !== "value") {
				return undefined;
			}
			stack.push(char === "{" ? "}" : "]");
			expect = char === "{" ? "key" : "value";
			last = "none";
			index++;
			continue;
		}
		if (char === "}" || char === "]") {
			if (stack.at(-1) !== char || !canClose(expect, last)) {
				return undefined;
			}
			stack.pop();
			expect = stack.length === 0 ? "done" : "comma-or-close";
			last = "container";
			index++;
			continue;
		}
		if (char === ",") {
			if (expect !== "comma-or-close") {
				return undefined;
			}
			expect = stack.at(-1) === "}" ? "key" : "value";
			last = "none";
			index++;
			continue;
		}
		if (char === ":") {
			if (expect !== "colon") {
				return undefined;
			}
			expect = "value";
			index++;
			continue;
		}
		if (expect !== "value") {
			return undefined;
		}
		const end = findBareTokenEnd(text, index);
		last = classifyBareToken(text.slice(index, end));
		expect = "comma-or-close";
		index = end;
	}
	if (stack.length === 0 || expect !== "comma-or-close") {
		return undefined;
	}
	if (last !== "string" && last !== "literal" && last !== "container") {
		return undefined;
	}
	if (stack.includes("]")) {
		return undefined;
	}
	let suffix = "";
	for (let depth = stack.length - 1; depth >= 0; depth--) {
		suffix += stack[depth]!;
	}
	return suffix;
}

/** `}` / `]` may follow a value, or directly follow the opener (an empty container). */
function canClose(expect: Expectation, last: LastValue): boolean {
	if (expect === "comma-or-close") {
		return last !== "partial";
	}
	return last === "none" && (expect === "key" || expect === "value");
}

/** Index of the closing quote of a string whose body starts at `start`, or -1 when it never closes. */
function findStringEnd(text: string, start: number): number {
	for (let index = start; index < text.length; index++) {
		const code = text.charCodeAt(index);
		if (code === 0x5c /* \ */) {
			index++;
		} else if (code === 0x22 /* " */) {
			return index;
		}
	}
	return -1;
}

function findBareTokenEnd(text: string, start: number): number {
	let index = start;
	while (index < text.length) {
		const char = text[index]!;
		if (isWhitespace(char) || char === "," || char === ":" || char === "}" || char === "]" || char === '"') {
			break;
		}
		if (char === "{" || char === "[") {
			break;
		}
		index++;
	}
	return index;
}

function classifyBareToken(token: string): LastValue {
	if (LITERALS.has(token)) {
		return "literal";
	}
	// A number is never a safe stopping point, and anything else is not JSON.
	return /^-?\d/.test(token) ? "number" : "partial";
}

function skipWhitespace(text: string, start: number): number {
	let index = start;
	while (index < text.length && isWhitespace(text[index]!)) {
		index++;
	}
	return index;
}

function isWhitespace(char: string): boolean {
	return char === " " || char === "\t" || char === "\n" || char === "\r";
}
