/**
 * XML-like markup helpers for the tag families (`<invoke>`, DSML): attribute
 * values, complete tags of given names, and lookups over the sorted tag list.
 * Each tag is read in time proportional to its own length.
 */
import { allIndexesOf, asciiLowerCase, type CaselessText } from "./caseless.ts";
import {
	codeDoubleQuote,
	codeEqual,
	codeGreaterThan,
	codeLessThan,
	codeSingleQuote,
	codeSpace,
	isIdentifierPart,
	isWhitespace,
} from "./chars.ts";
import { isBlankText, lowerBound, skipInlineSpace } from "./cursor.ts";
import { maybeParseJsonValue, parseJsonValueOrString } from "./json-calls.ts";

/**
 * The value of `attr="..."` or `attr='...'` inside `text[from, to)` (a tag's
 * inside), matched case-insensitively on the attribute name and only where
 * the name starts a word. Undefined when absent or unterminated.
 */
export function attributeValue(text: string, from: number, to: number, attr: string): string | undefined {
	const lower = asciiLowerCase(text.slice(from, to));
	const needle = attr.toLowerCase();
	let at = lower.indexOf(needle);
	while (at !== -1) {
		const before = at === 0 ? codeSpace : lower.charCodeAt(at - 1);
		let i = at + needle.length;
		if (!isIdentifierPart(before) || at === 0) {
			i = skipInlineSpace(lower, i);
			if (lower.charCodeAt(i) === codeEqual) {
				i = skipInlineSpace(lower, i + 1);
				const quote = lower.charCodeAt(i);
				if (quote === codeDoubleQuote || quote === codeSingleQuote) {
					const close = lower.indexOf(String.fromCharCode(quote), i + 1);
					if (close === -1) return undefined;
					return text.slice(from + i + 1, from + close);
				}
			}
		}
		at = lower.indexOf(needle, at + needle.length);
	}
	return undefined;
}

/** A complete XML-ish tag `<name attrs>` or `</name>` found in text. */
export interface MarkupTag {
	start: number;
	/** Just after `>`. */
	end: number;
	/** Lower-case tag name as searched. */
	name: string;
	closing: boolean;
	/** The attribute text lies in `[attrStart, attrEnd)`. */
	attrStart: number;
	attrEnd: number;
}

/**
 * Every complete `<name …>` and `</name>` for the given lower-case names,
 * ascending by start. Attribute text may not hold `<`, `>` or reach past the
 * next `<`, so each tag is read in time proportional to its own length.
 */
export function findMarkupTags(lower: CaselessText, names: readonly string[]): MarkupTag[] {
	const tags: MarkupTag[] = [];
	for (const name of names) {
		for (const closing of [false, true]) {
			const needle = closing ? `</${name}` : `<${name}`;
			for (const start of allIndexesOf(lower, needle)) {
				const nameEnd = start + needle.length;
				const next = lower.charCodeAt(nameEnd);
				if (next !== codeGreaterThan && !isWhitespace(next)) continue;
				let k = nameEnd;
				while (k < lower.length) {
					const c = lower.charCodeAt(k);
					if (c === codeGreaterThan || c === codeLessThan) break;
					k++;
				}
				if (lower.charCodeAt(k) !== codeGreaterThan) continue;
				tags.push({ start, end: k + 1, name, closing, attrStart: nameEnd, attrEnd: k });
			}
		}
	}
	tags.sort((a, b) => a.start - b.start);
	return tags;
}

/**
 * `table[k]` = index of the first complete tag at or after `k` that is the
 * closer `</name>`, or -1: one backward pass, so every closer lookup of a
 * walk is a table read.
 */
export function nextCloserTable(tags: readonly ListedTag[], name: string): Int32Array {
	const next = new Int32Array(tags.length + 1).fill(-1);
	for (let k = tags.length - 1; k >= 0; k--) {
		const tag = tags[k];
		next[k] = tag !== undefined && tag.complete !== false && tag.closing && tag.name === name ? k : (next[k + 1] ?? -1);
	}
	return next;
}

/** Index of the first of the sorted `tags` (or spans) whose start is `>= offset`, or `tags.length`. */
export function firstTagAtOrAfter(tags: readonly { start: number }[], offset: number): number {
	return lowerBound(tags.length, (index) => tags[index]?.start ?? 0, offset);
}

/** A tag as the tag-list families hold it; `complete: false` marks a tag cut before its `>`. */
export interface ListedTag extends MarkupTag {
	complete?: boolean;
}

/** One `<parameter name="KEY" string="…">VALUE</parameter>` element, as written. */
export interface ParameterElement {
	key: string;
	/** The text between the tags, untrimmed. */
	value: string;
	/** The `string` attribute, trimmed and lower-cased, when present. */
	stringAttr: string | undefined;
}

/**
 * Parameter elements in text order; `ambiguous` when text other than
 * whitespace stands between or after them, a parameter closer has no opener,
 * a value holds a parameter opener, or a key comes twice: a value's end cannot
 * be known.
 */
export type ParameterElements = ParameterElement[] & { ambiguous?: boolean };

/**
 * The `<parameter name=…>` elements between the tags at indexes `open` and
 * `close` of `tags` (the `<invoke>` form, plain or DSML-prefixed); `closers`
 * gives for each index the next `</parameter>` at or after it. Undefined when
 * no parameter element is closed inside, so the caller reads the body another
 * way; an element without a `name` is passed over.
 */
export function parameterElements(
	text: string,
	tags: readonly ListedTag[],
	closers: Int32Array,
	open: number,
	close: number,
): ParameterElements | undefined {
	let found: ParameterElements | undefined;
	const seen = new Set<string>();
	let gapStart = (tags[open] as ListedTag).end;
	let k = open + 1;
	while (k < close) {
		const tag = tags[k] as ListedTag;
		if (tag.complete === false || tag.closing || tag.name !== "parameter") {
			// A parameter closer with no opener: some value's end is not where it seems.
			if (found !== undefined && tag.closing && tag.name === "parameter") found.ambiguous = true;
			k++;
			continue;
		}
		const end = closers[k + 1] ?? -1;
		if (end === -1 || end >= close) break;
		found ??= [];
		if (!isBlankText(text, gapStart, tag.start)) found.ambiguous = true;
		for (let inner = k + 1; inner < end; inner++) {
			const nested = tags[inner] as ListedTag;
			if (nested.name === "parameter" && !nested.closing) found.ambiguous = true;
		}
		const key = attributeValue(text, tag.attrStart, tag.attrEnd, "name");
		// A key written twice: a value spelled further parameters of its own.
		if (key !== undefined && seen.has(key)) found.ambiguous = true;
		if (key !== undefined) {
			seen.add(key);
			found.push({
				key,
				value: text.slice(tag.end, (tags[end] as ListedTag).start),
				stringAttr: attributeValue(text, tag.attrStart, tag.attrEnd, "string")?.trim().toLowerCase(),
			});
		}
		gapStart = (tags[end] as ListedTag).end;
		k = end + 1;
	}
	if (found !== undefined && !isBlankText(text, gapStart, (tags[close] as ListedTag).start)) found.ambiguous = true;
	return found;
}

/**
 * An element's value as the model wrote it: the text between the tags
 * without the one newline the element form adds after the opener and the
 * one before the closer. Indentation and further newlines are the value's.
 */
export function elementValueBytes(inner: string): string {
	let start = 0;
	let end = inner.length;
	if (inner.startsWith("\r\n")) start = 2;
	else if (inner.startsWith("\n")) start = 1;
	if (end - start >= 2 && inner.endsWith("\r\n")) end -= 2;
	else if (end > start && inner.endsWith("\n")) end -= 1;
	return inner.slice(start, end);
}

/**
 * A value read from element text: `raw` is the model's bytes
 * ({@link elementValueBytes}); `value` as {@link readValueBytes} reads them.
 */
export function readTagValue(inner: string, json: "loose" | "strict"): { value: unknown; raw: string } {
	return readValueBytes(elementValueBytes(inner), json);
}

/**
 * A value from the model's exact bytes `raw`: `value` is the JSON value the
 * trimmed text spells when it is one (`json: "loose"` when it starts like
 * JSON, `"strict"` whenever it parses), else the bytes themselves, untrimmed.
 */
export function readValueBytes(raw: string, json: "loose" | "strict"): { value: unknown; raw: string } {
	const trimmed = raw.trim();
	const read = json === "strict" ? parseJsonValueOrString(trimmed) : maybeParseJsonValue(trimmed);
	return { value: read === trimmed ? raw : read, raw };
}
