/**
 * The one guard between text the layer did not write and a terminal or a log
 * line: control characters (C0, DEL, C1, so every escape sequence's ESC and
 * CSI), line and paragraph separators, and the bidirectional overrides that
 * make text display in another order than it reads, each become `?`. Used
 * for the diagnostics lines, the `/repair-stats` names read from a file
 * anyone may have edited, warnings that quote file contents, and the note
 * lines the indicator draws.
 */

/** Characters that move the cursor, start an escape sequence, break a line or reorder what follows. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every control, separator and bidi-override character replaced by `?`. */
export function printable(text: string): string {
	return text.replace(UNPRINTABLE, "?");
}

/**
 * `printable(text)` cut to `maxLength` UTF-16 code units with `…` at the end,
 * never splitting a surrogate pair; for names from a file, whose length no one
 * checked.
 */
export function printableName(text: string, maxLength: number): string {
	const safe = printable(text);
	if (safe.length <= maxLength) return safe;
	let end = maxLength - 1;
	const last = safe.charCodeAt(end - 1);
	if (last >= 0xd800 && last <= 0xdbff) end--;
	return `${safe.slice(0, end)}…`;
}
