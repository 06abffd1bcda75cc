/**
 * Where a text part holds the model's reasoning rather than its answer.
 * Reasoning is never acted on, in any of the spellings models print it with:
 *
 * - `<think>` / `<thinking>` tags (any case, attributes allowed: `<think …>`);
 * - Magistral's `[THINK]` … `[/THINK]` (any case);
 * - Kimi's `◁think▷` … `◁/think▷`.
 *
 * Spellings nest with each other; an opener left unclosed runs to the end of
 * the text, and a closer with no opener marks everything before it.
 */
import { allIndexesOf, CaselessText, codeGreaterThan, indexOfBefore, isWhitespace, mayHoldMarkup } from "./scan.ts";

export interface TextSpan {
	start: number;
	end: number;
}

interface ReasoningTag {
	at: number;
	/** End of the tag's name; for a closer the `>` is looked for from here. */
	end: number;
	closing: boolean;
	/** True for the angle-bracket spelling, whose tag ends at a later `>`. */
	angle: boolean;
}

/** Bracketed spellings: the whole tag is the literal. */
const LITERAL_TAGS: ReadonlyArray<{ literal: string; closing: boolean }> = [
	{ literal: "[think]", closing: false },
	{ literal: "[/think]", closing: true },
	{ literal: "\u25c1think\u25b7", closing: false },
	{ literal: "\u25c1/think\u25b7", closing: true },
];

/** Every reasoning tag of a text, in text order. */
function reasoningTags(lower: CaselessText): ReasoningTag[] {
	const tags: ReasoningTag[] = [];
	for (const closing of [false, true]) {
		const needle = closing ? "</think" : "<think";
		for (const at of allIndexesOf(lower, needle)) {
			let name = at + needle.length;
			if (lower.startsWith("ing", name)) name += 3;
			if (name < lower.length && lower.charCodeAt(name) !== codeGreaterThan && !isWhitespace(lower.charCodeAt(name)))
				continue;
			tags.push({ at, end: name, closing, angle: true });
		}
	}
	for (const { literal, closing } of LITERAL_TAGS) {
		for (const at of allIndexesOf(lower, literal)) tags.push({ at, end: at + literal.length, closing, angle: false });
	}
	return tags.sort((a, b) => a.at - b.at);
}

/** True when the text holds the start of any reasoning tag (a cheap first look). */
function mayHoldReasoning(lower: CaselessText): boolean {
	return (
		lower.indexOf("think") !== -1 &&
		(lower.indexOf("<think") !== -1 ||
			lower.indexOf("</think") !== -1 ||
			lower.indexOf("think]") !== -1 ||
			lower.indexOf("think\u25b7") !== -1)
	);
}

/**
 * The reasoning spans of a text part, sorted and disjoint: from an outermost
 * opener to the closer that balances it (nesting counted across spellings),
 * an unclosed opener to the end, and a lone closer over everything before it.
 */
export function reasoningSpans(text: string): TextSpan[] {
	if (!mayHoldMarkup(text)) return [];
	const lower = new CaselessText(text);
	if (!mayHoldReasoning(lower)) return [];
	let spans: TextSpan[] = [];
	let depth = 0;
	let start = 0;
	for (const tag of reasoningTags(lower)) {
		if (!tag.closing) {
			if (depth === 0) start = tag.at;
			depth++;
			continue;
		}
		// A closer's `>` is looked for only a short way on, so many unfinished closers stay linear.
		const close = tag.angle ? indexOfBefore(text, ">", tag.end, tag.end + 64) : -1;
		const end = close === -1 ? tag.end : close + 1;
		if (depth === 0) {
			// A lone closer: everything before it was reasoning, whatever spans came earlier.
			spans = [{ start: 0, end }];
			continue;
		}
		depth--;
		if (depth === 0) spans.push({ start, end });
	}
	if (depth > 0) spans.push({ start, end: text.length });
	return spans;
}
