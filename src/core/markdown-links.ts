/**
 * Reduces degenerate markdown auto-links in path strings to their text.
 *
 * Models sometimes render a file name as `[notes.md](http://notes.md)`, a link
 * whose target is just its own text behind `http://` or `https://`. Only that
 * exact degenerate form is reduced; a link to anything else is kept. The scan
 * walks forward once and remembers the last bracket and URL it measured, so
 * no input makes it quadratic.
 */

/** Cheap and conservative: only a string holding `](http` can hold an auto-link {@link unwrapMarkdownAutoLinks} reduces. */
export function mayHoldAutoLink(value: unknown): boolean {
	return typeof value === "string" && value.includes("](http");
}

/**
 * Replaces every `[TEXT](http://TEXT)` / `[TEXT](https://TEXT)` by `TEXT`.
 * TEXT excludes `]` and line feeds; the URL excludes `)` and whitespace; the
 * scheme must be lowercase. Returns the same string when nothing matched.
 */
export function unwrapMarkdownAutoLinks(value: string): string {
	let output: string | undefined;
	let copiedUpTo = 0;
	let closeAt = -1; // position of the first `]` or LF after the last measured start
	// The last URL scan: it started at `scanFrom` and stopped at `scanStop`. A
	// later scan starting inside that span would stop at the same place.
	let scanFrom = -1;
	let scanStop = -1;
	let index = value.indexOf("[");
	while (index !== -1) {
		if (closeAt <= index) {
			closeAt = findTextEnd(value, index + 1);
		}
		const close = closeAt;
		let matchEnd = -1;
		if (close > index + 1 && value[close] === "]" && value[close + 1] === "(") {
			const schemeEnd = schemeLength(value, close + 2);
			if (schemeEnd > 0) {
				const bodyStart = close + 2 + schemeEnd;
				if (bodyStart < scanFrom || bodyStart > scanStop) {
					scanFrom = bodyStart;
					scanStop = findUrlStop(value, bodyStart);
				}
				const urlEnd = scanStop > bodyStart && value[scanStop] === ")" ? scanStop : -1;
				if (urlEnd !== -1) {
					matchEnd = urlEnd + 1;
					const text = value.slice(index + 1, close);
					if (value.slice(bodyStart, urlEnd) === text) {
						output = (output ?? "") + value.slice(copiedUpTo, index) + text;
						copiedUpTo = matchEnd;
					}
				}
			}
		}
		index = value.indexOf("[", matchEnd === -1 ? index + 1 : matchEnd);
	}
	return output === undefined ? value : output + value.slice(copiedUpTo);
}

/** Index of the first `]` or line feed at or after `start`, or the length when there is none. */
function findTextEnd(value: string, start: number): number {
	for (let index = start; index < value.length; index++) {
		const char = value[index];
		if (char === "]" || char === "\n") {
			return index;
		}
	}
	return value.length;
}

function schemeLength(value: string, at: number): number {
	if (value.startsWith("https://", at)) {
		return 8;
	}
	if (value.startsWith("http://", at)) {
		return 7;
	}
	return 0;
}

/** Index of the first `)` or whitespace at or after `start`, or the length when there is none. */
function findUrlStop(value: string, start: number): number {
	for (let index = start; index < value.length; index++) {
		const char = value[index]!;
		if (char === ")" || isRegExpWhitespace(char)) {
			return index;
		}
	}
	return value.length;
}

/** The characters `\s` matches in a JavaScript regular expression. */
function isRegExpWhitespace(char: string): boolean {
	const code = char.charCodeAt(0);
	return (
		(code >= 0x09 && code <= 0x0d) ||
		code === 0x20 ||
		code === 0xa0 ||
		code === 0x1680 ||
		(code >= 0x2000 && code <= 0x200a) ||
		code === 0x2028 ||
		code === 0x2029 ||
		code === 0x202f ||
		code === 0x205f ||
		code === 0x3000 ||
		code === 0xfeff
	);
}
