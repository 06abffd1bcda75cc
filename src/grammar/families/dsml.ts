/**
 * `dsml`: DeepSeek's DSML tool-call markup (extension-contract §2.10).
 *
 *   <｜DSML｜tool_calls>
 *   <｜DSML｜invoke name="ls">
 *   <｜DSML｜parameter name="path" string="true">src</｜DSML｜parameter>
 *   </｜DSML｜invoke>
 *   </｜DSML｜tool_calls>
 *
 * Two steps, in collection order: complete blocks (one candidate per invoke,
 * all sharing the block range) and dangling markers (every DSML tag, also a
 * truncated one without `>`, as a strip-only candidate).
 *
 * Linear: one pass finds every DSML tag from the occurrences of `dsml`; the
 * block walk then moves a cursor forward over that tag list, with closer
 * lookups answered from "next tag of this kind" tables built in one backward
 * pass. Tag bounds never cross a newline or another `<`.
 */
import {
	allIndexesOf,
	argumentsFromJsonBody,
	attributeValue,
	type CaselessText,
	isWhitespace,
	lowerTextOf,
	parseJsonValueOrString,
	setOwn,
} from "../scan.ts";
import type { GrammarCandidate, ScanContext } from "../types.ts";

const TAG_NAMES = ["tool_calls", "function_calls", "invoke", "parameter"] as const;
type DsmlTagName = (typeof TAG_NAMES)[number];

const FULLWIDTH_BAR = 0xff5c;
const ASCII_BAR = 124;
/** Whitespace allowed around the prefix's bars (the ASCII `< | DSML | x>` style). */
const MAX_PREFIX_SPACE = 8;

interface DsmlTag {
	start: number;
	/** After `>`; for an unterminated tag, where its attribute text stops. */
	end: number;
	name: DsmlTagName;
	closing: boolean;
	/** The tag ends with `>`. */
	complete: boolean;
	/** Offsets of the attribute text (after the name, before `>`). */
	attrStart: number;
	attrEnd: number;
}

function isBar(code: number): boolean {
	return code === FULLWIDTH_BAR || code === ASCII_BAR;
}

/** Skips up to `MAX_PREFIX_SPACE` whitespace characters backwards from `i` (inclusive). */
function skipSpaceBack(text: string, i: number): number {
	let j = i;
	while (j >= 0 && i - j < MAX_PREFIX_SPACE && isWhitespace(text.charCodeAt(j))) j--;
	return j;
}

function skipSpaceForward(text: string, i: number): number {
	let j = i;
	while (j < text.length && j - i < MAX_PREFIX_SPACE && isWhitespace(text.charCodeAt(j))) j++;
	return j;
}

/** Reads the DSML tag whose `DSML` word starts at `word`, if there is one. */
function readTagAround(text: string, lower: CaselessText, word: number): DsmlTag | undefined {
	// Backwards: [ws] bars(0-2) [ws] then `<` or `</`.
	let j = skipSpaceBack(text, word - 1);
	let bars = 0;
	while (j >= 0 && bars < 2 && isBar(text.charCodeAt(j))) {
		j--;
		bars++;
	}
	if (bars > 0) j = skipSpaceBack(text, j);
	let closing = false;
	if (text.charCodeAt(j) === 47) {
		closing = true;
		j--;
	}
	if (text.charCodeAt(j) !== 60) return undefined;
	const start = j;
	// Forwards: [ws] bars(1-2) [ws] name.
	let i = skipSpaceForward(text, word + 4);
	let after = 0;
	while (i < text.length && after < 2 && isBar(text.charCodeAt(i))) {
		i++;
		after++;
	}
	if (after === 0) return undefined;
	i = skipSpaceForward(text, i);
	const name = TAG_NAMES.find((n) => lower.startsWith(n, i));
	if (!name) return undefined;
	const nameEnd = i + name.length;
	const next = text.charCodeAt(nameEnd);
	if (nameEnd < text.length && next !== 62 && !isWhitespace(next) && next !== 60) return undefined;
	let k = nameEnd;
	while (k < text.length) {
		const c = text.charCodeAt(k);
		if (c === 62 || c === 60 || c === 10) break;
		k++;
	}
	const complete = text.charCodeAt(k) === 62;
	return { start, end: complete ? k + 1 : k, name, closing, complete, attrStart: nameEnd, attrEnd: k };
}

const tagCache = new WeakMap<ScanContext, DsmlTag[]>();

/** Every DSML tag in the text, ascending by start (computed once per context). */
function findTags(context: ScanContext): DsmlTag[] {
	const cached = tagCache.get(context);
	if (cached) return cached;
	const tags: DsmlTag[] = [];
	// Every tag has a bar right after its DSML word: without one, no search for the word.
	if (!context.text.includes("|") && !context.text.includes("\uff5c")) {
		tagCache.set(context, tags);
		return tags;
	}
	const lower = lowerTextOf(context);
	let lastEnd = 0;
	for (const word of allIndexesOf(lower, "dsml")) {
		if (word < lastEnd) continue;
		const tag = readTagAround(context.text, lower, word);
		if (tag && tag.start >= lastEnd) {
			tags.push(tag);
			lastEnd = tag.end;
		}
	}
	tagCache.set(context, tags);
	return tags;
}

/** `next[k]` = index of the first complete tag at or after `k` matching `test`, or -1. */
function nextIndexTable(tags: DsmlTag[], test: (tag: DsmlTag) => boolean): Int32Array {
	const next = new Int32Array(tags.length + 1).fill(-1);
	for (let k = tags.length - 1; k >= 0; k--) {
		const tag = tags[k];
		next[k] = tag?.complete && test(tag) ? k : (next[k + 1] ?? -1);
	}
	return next;
}

interface Tables {
	closeToolCalls: Int32Array;
	closeFunctionCalls: Int32Array;
	closeInvoke: Int32Array;
	closeParameter: Int32Array;
	/** Index of the last complete `</invoke>` tag, or -1. */
	lastCloseInvoke: number;
}

function buildTables(tags: DsmlTag[]): Tables {
	let lastCloseInvoke = -1;
	tags.forEach((tag, k) => {
		if (tag.complete && tag.closing && tag.name === "invoke") lastCloseInvoke = k;
	});
	return {
		closeToolCalls: nextIndexTable(tags, (t) => t.closing && t.name === "tool_calls"),
		closeFunctionCalls: nextIndexTable(tags, (t) => t.closing && t.name === "function_calls"),
		closeInvoke: nextIndexTable(tags, (t) => t.closing && t.name === "invoke"),
		closeParameter: nextIndexTable(tags, (t) => t.closing && t.name === "parameter"),
		lastCloseInvoke,
	};
}

interface ParsedInvoke {
	name: string;
	arguments: Record<string, unknown>;
	rawArguments: Record<string, string>;
}

/** Arguments of one invoke whose opener is tag `open` and closer tag `close`. */
function parseInvoke(text: string, tags: DsmlTag[], tables: Tables, open: number, close: number): ParsedInvoke {
	const opener = tags[open] as DsmlTag;
	const closer = tags[close] as DsmlTag;
	const name = (attributeValue(text, opener.attrStart, opener.attrEnd, "name") ?? "").trim();
	const args: Record<string, unknown> = {};
	const raw: Record<string, string> = {};
	let sawParameter = false;
	let k = open + 1;
	while (k < close) {
		const tag = tags[k] as DsmlTag;
		if (!tag.complete || tag.closing || tag.name !== "parameter") {
			k++;
			continue;
		}
		const end = tables.closeParameter[k + 1] ?? -1;
		if (end === -1 || end >= close) break;
		sawParameter = true;
		const key = attributeValue(text, tag.attrStart, tag.attrEnd, "name");
		const value = text.slice(tag.end, (tags[end] as DsmlTag).start);
		if (key !== undefined) {
			const stringAttr = attributeValue(text, tag.attrStart, tag.attrEnd, "string");
			if (stringAttr?.trim().toLowerCase() === "false") {
				setOwn(args, key, parseJsonValueOrString(value.trim()));
				setOwn(raw, key, value.trim());
			} else {
				setOwn(args, key, value);
			}
		}
		k = end + 1;
	}
	if (!sawParameter) {
		return { name, arguments: argumentsFromJsonBody(text.slice(opener.end, closer.start)), rawArguments: raw };
	}
	return { name, arguments: args, rawArguments: raw };
}

/** Complete DSML blocks: one candidate per named invoke, all sharing the block's range. */
export function parseDsmlBlocks(context: ScanContext): GrammarCandidate[] {
	const { text } = context;
	const tags = findTags(context);
	if (tags.length === 0) return [];
	const tables = buildTables(tags);
	const found: GrammarCandidate[] = [];
	let k = 0;
	while (k < tags.length) {
		const opener = tags[k] as DsmlTag;
		const isOuter = opener.name === "tool_calls" || opener.name === "function_calls";
		if (!opener.complete || opener.closing || !isOuter || context.isInsideFence(opener.start)) {
			k++;
			continue;
		}
		let closeIndex = tables.closeToolCalls[k + 1] ?? -1;
		if (closeIndex === -1) closeIndex = tables.closeFunctionCalls[k + 1] ?? -1;
		let bodyEndTag: number;
		let blockEnd: number;
		if (closeIndex !== -1) {
			bodyEndTag = closeIndex;
			blockEnd = (tags[closeIndex] as DsmlTag).end;
		} else if (tables.lastCloseInvoke > k) {
			// No outer closer: the block runs to the last invoke closer, which belongs to the body.
			bodyEndTag = tables.lastCloseInvoke + 1;
			blockEnd = (tags[tables.lastCloseInvoke] as DsmlTag).end;
		} else {
			k++;
			continue;
		}
		let j = k + 1;
		while (j < bodyEndTag) {
			const tag = tags[j] as DsmlTag;
			if (!tag.complete || tag.closing || tag.name !== "invoke") {
				j++;
				continue;
			}
			const close = tables.closeInvoke[j + 1] ?? -1;
			if (close === -1 || close >= bodyEndTag) break;
			const call = parseInvoke(text, tags, tables, j, close);
			if (call.name !== "") {
				const candidate: GrammarCandidate = {
					name: call.name,
					arguments: call.arguments,
					grammar: "dsml",
					start: opener.start,
					end: blockEnd,
				};
				if (Object.keys(call.rawArguments).length > 0) candidate.rawArguments = call.rawArguments;
				found.push(candidate);
			}
			j = close + 1;
		}
		k = bodyEndTag + 1;
	}
	return found;
}

/**
 * Dangling DSML markers: every DSML tag outside a fence, complete or cut off,
 * as a strip-only candidate. Only when the text holds `DSML` (case-sensitive).
 */
export function parseDsmlMarkers(context: ScanContext): GrammarCandidate[] {
	if (!context.text.includes("DSML")) return [];
	const found: GrammarCandidate[] = [];
	for (const tag of findTags(context)) {
		if (context.isInsideFence(tag.start)) continue;
		found.push({ name: "", arguments: {}, grammar: "dsml", start: tag.start, end: tag.end, stripOnly: true });
	}
	return found;
}

/** Both DSML steps in collection order. */
export function parseDsml(context: ScanContext): GrammarCandidate[] {
	return [...parseDsmlBlocks(context), ...parseDsmlMarkers(context)];
}
