/**
 * The value transforms of the field preprocessor kinds: markdown auto-links
 * in path arrays, scalar coercions an owner asked for, and leaked regex
 * anchors. Each returns its input itself when it changes nothing.
 */
import { decimalText, numberFromDecimalText } from "../convert.ts";
import { unwrapMarkdownAutoLinks } from "../markdown-links.ts";
import type { FieldPreprocessor } from "../types.ts";

export type Transform = (value: unknown) => unknown;

export function unwrapPathArray(value: unknown): unknown {
	if (!Array.isArray(value)) {
		return value;
	}
	let changed = false;
	const next = value.map((item: unknown) => {
		if (typeof item !== "string") {
			return item;
		}
		const unwrapped = unwrapMarkdownAutoLinks(item);
		changed ||= unwrapped !== item;
		return unwrapped;
	});
	return changed ? next : value;
}

export function scalarTransform(scalarType: FieldPreprocessor["scalarType"]): Transform | undefined {
	switch (scalarType) {
		case "string":
			// An owner asked for text here; a number still becomes only its exact decimal text.
			return (value) =>
				typeof value === "number" ? (decimalText(value) ?? value) : typeof value === "boolean" ? String(value) : value;
		case "number":
			// Only decimal number text is a number: `"0x10"`, `"1e3"` and `" 5 "` would be guesses.
			return (value) => (typeof value === "string" ? (numberFromDecimalText(value) ?? value) : value);
		case "boolean":
			return (value) => {
				if (typeof value !== "string" || value.length > 5) {
					return value;
				}
				const lower = value.toLowerCase();
				return lower === "true" ? true : lower === "false" ? false : value;
			};
		case undefined:
			return undefined;
	}
}

const CARET = 0x5e;
const DOLLAR = 0x24;

/** Cheap and conservative: {@link stripAnchors} changes only a string that starts with `^` or ends with `$`. */
export function mayHoldAnchors(value: unknown): boolean {
	return typeof value === "string" && (value.charCodeAt(0) === CARET || value.charCodeAt(value.length - 1) === DOLLAR);
}

/**
 * Removes every leading `^`, and the trailing `$` run only when a leading `^`
 * was there to pair with it and the `$` does not end a Windows share name
 * (`C$`, `\\server\c$`); inner anchors stay.
 */
export function stripAnchors(value: string): string {
	let start = 0;
	let end = value.length;
	while (start < end && value[start] === "^") {
		start++;
	}
	if (start > 0) {
		while (end > start && value[end - 1] === "$") {
			end--;
		}
		if (end < value.length && endsShareName(value.slice(start, end), value.length - end)) {
			end = value.length;
		}
	}
	return start === 0 && end === value.length ? value : value.slice(start, end);
}

// A lone drive letter and one `$` is a drive share (`C$`); in a UNC path a `$` ends a hidden share name.
function endsShareName(body: string, dollars: number): boolean {
	return (dollars === 1 && /^[A-Za-z]$/.test(body)) || body.startsWith("\\\\") || body.startsWith("//");
}
