/**
 * Provenance: did the model itself mean this leaked text as a call?
 *
 * One rule, asked by every path that can act on leaked text (promotion of a
 * leak to a tool call, promotion of collapsed DSML debris, the silent-stop
 * continuation, the merge of a call split across parts). Leaked text is
 * data, never a call, when it is
 *
 * - `reasoning`: inside the model's reasoning in any spelling (`<think>`,
 *   `<thinking>`, `[THINK]`, `◁think▷`, nested or unclosed), or found in a
 *   reasoning channel by its family;
 * - `quoted`: in quoted text, read the CommonMark/HTML way (fences, indented
 *   code, inline code spans, blockquotes, `<pre>`, `<code>`, `<!-- -->`), or
 *   straddling the edge of such a region (a stray backtick in prose pairing
 *   with one inside the markup): part quoted, part not, it is not one call;
 * - `echo`: the same call text (or the same call) appears in a tool result of
 *   the current turn or in the user's message, wherever it stands in the reply;
 * - `mention`: written inside a sentence, with prose before it on its first
 *   line and after it on its last line ("I will not run <tool_call>… because").
 *   Other leaks next to it (pieces of one broken block) are not prose: the
 *   judge reads a run of touching leaks as one.
 *
 * Anything else is a `call`: a leak on its own lines, also with text after it.
 *
 * Usage: `const judge = createProvenanceJudge(text, echoes, leaks)` once per text,
 * then `judge.of({ start, end, name, arguments })` per leak (offsets into
 * `text`, `end` exclusive). `leakProvenance(text, leak, echoes)` is the
 * one-off form. Pure and linear in the text (the quoted index is built once,
 * each question is a binary search).
 */
import { createQuotedIndex, quotedRegions } from "./fences.ts";
import { reasoningSpans, type TextSpan } from "./reasoning.ts";
import {
	CaselessText,
	codeNewline,
	codeReturn,
	codeSpace,
	codeTab,
	firstIndexAtOrAfter,
	firstTagAtOrAfter,
	skipInlineSpace,
} from "./scan.ts";
import type { EchoIndex } from "./types.ts";

export type Provenance = "call" | "reasoning" | "quoted" | "echo" | "mention";

/** A leak in the judged text: its range and, when it spells one, the call it spells. */
export interface LeakSite {
	start: number;
	end: number;
	name?: string;
	arguments?: Record<string, unknown>;
	/** Set by a family that found the leak in a reasoning channel of its own grammar. */
	reasoning?: boolean;
}

export interface ProvenanceJudge {
	/** Who said the leak at `site`: only `"call"` may act. */
	of(site: LeakSite): Provenance;
	/** True when `[start, end)` starts in quoted text or crosses the edge of a quoted region. */
	touchesQuote(start: number, end: number): boolean;
}

/** True when text other than spaces stands on the site's first line before it and on its last line after it. */
export function standsInSentence(text: string, site: { start: number; end: number }): boolean {
	let before = site.start - 1;
	while (before >= 0 && (text.charCodeAt(before) === codeSpace || text.charCodeAt(before) === codeTab)) before--;
	if (before < 0 || text.charCodeAt(before) === codeNewline || text.charCodeAt(before) === codeReturn) return false;
	let after = site.end;
	while (after < text.length && (text.charCodeAt(after) === codeSpace || text.charCodeAt(after) === codeTab)) after++;
	return after < text.length && text.charCodeAt(after) !== codeNewline && text.charCodeAt(after) !== codeReturn;
}

/** True when nothing but whitespace follows `end` in `text`: the reply ends with the leak. */
export function endsText(text: string, end: number): boolean {
	return text.slice(end).trim() === "";
}

/** True when the range overlaps one of the sorted, disjoint `spans`. */
function overlapsAny(start: number, end: number, spans: readonly TextSpan[]): boolean {
	const last = spans[firstTagAtOrAfter(spans, end) - 1];
	return last !== undefined && last.end > start;
}

/**
 * Widens a site over the leaks that touch it (only spaces or tabs between),
 * so the pieces of one broken block are judged together.
 */
function touchingRun(text: string, leaks: readonly { start: number; end: number }[]) {
	const sorted = leaks.filter((leak) => leak.end > leak.start).sort((x, y) => x.start - y.start);
	const runs: TextSpan[] = [];
	for (const leak of sorted) {
		const last = runs[runs.length - 1];
		if (last !== undefined && leak.start <= skipInlineSpace(text, last.end)) last.end = Math.max(last.end, leak.end);
		else runs.push({ start: leak.start, end: leak.end });
	}
	return (site: { start: number; end: number }): TextSpan => {
		const run = runs[firstTagAtOrAfter(runs, site.start + 1) - 1];
		return run !== undefined && run.end >= site.end ? run : site;
	};
}

/**
 * The judge for one text. `echoes` holds the current turn's tool results and
 * the user's message; `leaks` are every leak found in the text (so pieces of
 * one block are not taken for prose around each other).
 */
export function createProvenanceJudge(
	text: string,
	echoes?: EchoIndex,
	leaks: readonly { start: number; end: number }[] = [],
): ProvenanceJudge {
	const run = touchingRun(text, leaks);
	let reasoning: TextSpan[] | undefined;
	let quoted: { isQuoted: (offset: number) => boolean; starts: Int32Array; ends: Int32Array } | undefined;
	const quotes = () => {
		if (quoted === undefined) {
			const lower = new CaselessText(text);
			const { starts, ends } = quotedRegions(text, lower);
			quoted = { isQuoted: createQuotedIndex(text, lower), starts, ends };
		}
		return quoted;
	};
	const touchesQuote = (start: number, end: number): boolean => {
		const { isQuoted, starts, ends } = quotes();
		if (isQuoted(start)) return true;
		// The last region starting inside the range must also end inside it.
		const last = firstIndexAtOrAfter(starts, end) - 1;
		return last >= 0 && (starts[last] ?? 0) > start && (ends[last] ?? 0) > end;
	};
	return {
		touchesQuote,
		of(site) {
			reasoning ??= reasoningSpans(text);
			if (site.reasoning === true || overlapsAny(site.start, site.end, reasoning)) return "reasoning";
			if (touchesQuote(site.start, site.end)) return "quoted";
			const call =
				site.name !== undefined && site.arguments !== undefined
					? { name: site.name, arguments: site.arguments }
					: undefined;
			if (echoes?.echoes(text.slice(site.start, site.end), call) === true) return "echo";
			if (standsInSentence(text, run(site))) return "mention";
			return "call";
		},
	};
}

/** One-off form of {@link createProvenanceJudge}: who said the leak at `site` in `text`. */
export function leakProvenance(text: string, site: LeakSite, echoes?: EchoIndex): Provenance {
	return createProvenanceJudge(text, echoes).of(site);
}
