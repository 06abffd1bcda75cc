/**
 * `dsml`: DeepSeek's DSML tool-call markup.
 *
 *   <｜DSML｜tool_calls>
 *   <｜DSML｜invoke name="ls">
 *   <｜DSML｜parameter name="path" string="true">src</｜DSML｜parameter>
 *   </｜DSML｜invoke>
 *   </｜DSML｜tool_calls>
 *
 * V4.1 spellings read the same (CommandCodeAI/command-code#909, pi users):
 * a space before the tag name (`<｜DSML｜ calls>`), a `calls` envelope, as
 * well as `tool_use` and `tool_call` ones (AgentFlocks/flocks#687), doubled
 * bars (`｜｜DSML｜｜`), U+2016 `‖` bars, ASCII `|` bars, and a complete
 * `invoke` at the root with no envelope at all (diegosouzapw/OmniRoute#13345).
 * An envelope `tool_calls` or `function_calls` closes at a `tool_calls`
 * closer first (as DeepSeek V3 wrote it), every newer envelope at its own kind.
 *
 * Three steps, in collection order: complete blocks and root invokes (one
 * candidate per invoke; the calls of a block share its range), collapsed
 * debris calls, and dangling markers (every DSML tag, also a truncated one
 * without `>`, and collapsed debris such as `<｜DSML｜toolcall>` whose name is
 * no DSML element, as a strip-only candidate).
 *
 * A collapsed debris call is a debris tag naming a tool (`<｜DSML｜read_file>`,
 * `<｜｜DSML｜｜r=execute_bash>`), one value (a plain line, or one
 * `<parameter=KEY>` element) and the next DSML tag. It is strip-only too; it
 * runs only when the tool's schema has a single string field (named KEY, when
 * one is written), the one place the value can go. Otherwise its tags strip
 * and the value stays.
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
	caselessTextOf,
	codeBar,
	codeEqual,
	codeGreaterThan,
	codeLessThan,
	codeMinus,
	codeNewline,
	codeSlash,
	defineOwn,
	isIdentifier,
	isIdentifierPart,
	isWhitespace,
	nextCloserTable,
	parameterElements,
	parseJsonValueOrString,
	perContext,
} from "../scan.ts";
import type { GrammarCandidate, ScanContext } from "../types.ts";

/** Longest first where one name starts another (`tool_calls` before `tool_call`). */
const TAG_NAMES = ["tool_calls", "function_calls", "calls", "tool_use", "tool_call", "invoke", "parameter"] as const;
/** `debris`: a DSML-prefixed tag whose name is no DSML element (collapsed markup): strip-only. */
type DsmlTagName = (typeof TAG_NAMES)[number] | "debris";

const ENVELOPES: ReadonlySet<DsmlTagName> = new Set(["tool_calls", "function_calls", "calls", "tool_use", "tool_call"]);

/** The closer kinds that end an envelope, in order of preference. */
function closerKinds(opener: DsmlTagName): readonly DsmlTagName[] {
	return opener === "tool_calls" || opener === "function_calls" ? ["tool_calls", "function_calls"] : [opener];
}

const FULLWIDTH_BAR = 0xff5c;
const DOUBLE_VERTICAL_LINE = 0x2016;
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
	/** Offset of the tag name (its end is `attrStart`). */
	nameStart: number;
	/** Offsets of the attribute text (after the name, before `>`). */
	attrStart: number;
	attrEnd: number;
}

function isBar(code: number): boolean {
	return code === FULLWIDTH_BAR || code === codeBar || code === DOUBLE_VERTICAL_LINE;
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

/** True when a tag name may end at `at`: `>`, whitespace, `<` or the end of the text follow. */
function endsName(text: string, at: number): boolean {
	if (at >= text.length) return true;
	const next = text.charCodeAt(at);
	return next === codeGreaterThan || next === codeLessThan || isWhitespace(next);
}

/** Letters, digits, `_`, `-`, `=` (OpenHands/software-agent-sdk#4845's `r=execute_bash`), `/`. */
function isDebrisNameChar(code: number): boolean {
	return isIdentifierPart(code) || code === codeMinus || code === codeEqual || code === codeSlash;
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
	if (text.charCodeAt(j) === codeSlash) {
		closing = true;
		j--;
	}
	if (text.charCodeAt(j) !== codeLessThan) return undefined;
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
	const known = TAG_NAMES.find((n) => lower.startsWith(n, i) && endsName(text, i + n.length));
	let nameEnd = i + (known?.length ?? 0);
	if (!known) {
		while (nameEnd < text.length && isDebrisNameChar(text.charCodeAt(nameEnd))) nameEnd++;
		if (nameEnd === i || !endsName(text, nameEnd)) return undefined;
	}
	const name: DsmlTagName = known ?? "debris";
	let k = nameEnd;
	while (k < text.length) {
		const c = text.charCodeAt(k);
		if (c === codeGreaterThan || c === codeLessThan || c === codeNewline) break;
		k++;
	}
	const complete = text.charCodeAt(k) === codeGreaterThan;
	return { start, end: complete ? k + 1 : k, name, closing, complete, nameStart: i, attrStart: nameEnd, attrEnd: k };
}

/** Every DSML tag in the text, ascending by start (computed once per context). */
const findTags = perContext((context): DsmlTag[] => {
	const tags: DsmlTag[] = [];
	// Every tag has a bar right after its DSML word: without one, no search for the word.
	const { text } = context;
	if (!text.includes("|") && !text.includes("\uff5c") && !text.includes("\u2016")) return tags;
	const lower = caselessTextOf(context);
	let lastEnd = 0;
	for (const word of allIndexesOf(lower, "dsml")) {
		if (word < lastEnd) continue;
		const tag = readTagAround(context.text, lower, word);
		if (tag && tag.start >= lastEnd) {
			tags.push(tag);
			lastEnd = tag.end;
		}
	}
	return tags;
});

interface Tables {
	/** Next complete closer of each envelope kind. */
	closeEnvelope: ReadonlyMap<DsmlTagName, Int32Array>;
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
		closeEnvelope: new Map([...ENVELOPES].map((kind) => [kind, nextCloserTable(tags, kind)] as const)),
		closeInvoke: nextCloserTable(tags, "invoke"),
		closeParameter: nextCloserTable(tags, "parameter"),
		lastCloseInvoke,
	};
}

interface ParsedInvoke {
	name: string;
	arguments: Record<string, unknown>;
	rawArguments: Record<string, string>;
	/** A value's end cannot be known: strip or observe, never run. */
	ambiguous?: boolean;
}

/** Arguments of one invoke whose opener is tag `open` and closer tag `close`. */
function readDsmlInvoke(text: string, tags: DsmlTag[], tables: Tables, open: number, close: number): ParsedInvoke {
	const opener = tags[open] as DsmlTag;
	const closer = tags[close] as DsmlTag;
	const name = (attributeValue(text, opener.attrStart, opener.attrEnd, "name") ?? "").trim();
	const parameters = parameterElements(text, tags, tables.closeParameter, open, close);
	if (parameters === undefined) {
		return { name, arguments: argumentsFromJsonBody(text.slice(opener.end, closer.start)), rawArguments: {} };
	}
	const args: Record<string, unknown> = {};
	const raw: Record<string, string> = {};
	for (const parameter of parameters) {
		// DSML marks non-strings with `string="false"`; any other value is the text verbatim.
		if (parameter.stringAttr === "false") {
			const value = parameter.value.trim();
			defineOwn(args, parameter.key, parseJsonValueOrString(value));
			defineOwn(raw, parameter.key, value);
		} else {
			defineOwn(args, parameter.key, parameter.value);
		}
	}
	return { name, arguments: args, rawArguments: raw, ...(parameters.ambiguous ? { ambiguous: true } : {}) };
}

function candidateOf(call: ParsedInvoke, start: number, end: number): GrammarCandidate {
	const candidate: GrammarCandidate = { name: call.name, arguments: call.arguments, grammar: "dsml", start, end };
	if (Object.keys(call.rawArguments).length > 0) candidate.rawArguments = call.rawArguments;
	if (call.ambiguous === true) candidate.stripOnly = true;
	return candidate;
}

/** The closer ending the envelope opened at tag `k`, or -1. */
function envelopeCloser(opener: DsmlTag, tables: Tables, k: number): number {
	for (const kind of closerKinds(opener.name)) {
		const close = tables.closeEnvelope.get(kind)?.[k + 1] ?? -1;
		if (close !== -1) return close;
	}
	return -1;
}

/**
 * Complete DSML blocks (one candidate per named invoke, all sharing the
 * block's range) and complete root invokes outside any envelope (ranged to
 * the invoke element).
 */
export function parseDsmlBlocks(context: ScanContext): GrammarCandidate[] {
	const { text } = context;
	const tags = findTags(context);
	if (tags.length === 0) return [];
	const tables = buildTables(tags);
	const found: GrammarCandidate[] = [];
	let k = 0;
	while (k < tags.length) {
		const opener = tags[k] as DsmlTag;
		if (!opener.complete || opener.closing || context.isInsideFence(opener.start)) {
			k++;
			continue;
		}
		if (opener.name === "invoke") {
			const close = tables.closeInvoke[k + 1] ?? -1;
			if (close === -1) break;
			const call = readDsmlInvoke(text, tags, tables, k, close);
			if (call.name !== "") found.push(candidateOf(call, opener.start, (tags[close] as DsmlTag).end));
			k = close + 1;
			continue;
		}
		if (!ENVELOPES.has(opener.name)) {
			k++;
			continue;
		}
		const closeIndex = envelopeCloser(opener, tables, k);
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
			const call = readDsmlInvoke(text, tags, tables, j, close);
			if (call.name !== "") found.push(candidateOf(call, opener.start, blockEnd));
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

/** OpenHands' compact form writes the tool as `r=NAME` (OpenHands/software-agent-sdk#4845). */
const COMPACT_TOOL_PREFIX = "r=";
const PARAMETER_OPEN = "<parameter=";
const PARAMETER_CLOSE = "</parameter>";

/** The tool a collapsed debris tag names (`<｜DSML｜read_file>`, `<｜DSML｜r=execute_bash>`), if it names one. */
function debrisToolName(text: string, tag: DsmlTag): string | undefined {
	if (tag.name !== "debris" || !tag.complete || tag.closing || text.slice(tag.attrStart, tag.attrEnd).trim() !== "") {
		return undefined;
	}
	let name = text.slice(tag.nameStart, tag.attrStart);
	if (name.startsWith(COMPACT_TOOL_PREFIX)) name = name.slice(COMPACT_TOOL_PREFIX.length);
	return isIdentifier(name) ? name : undefined;
}

/** One line of plain text: no markup, no code quote, no line break, not blank. */
function isPlainLine(value: string): boolean {
	return value !== "" && !value.includes("<") && !value.includes("`") && !value.includes("\n");
}

/**
 * The one value of a debris body: the whole trimmed body when it is a plain
 * line, or the value of exactly one `<parameter=KEY>VALUE</parameter>` (the
 * compact form) with its key. Anything else holds no unambiguous value.
 */
function soleValueOf(body: string): { value: string; key?: string } | undefined {
	const trimmed = body.trim();
	if (isPlainLine(trimmed)) return { value: trimmed };
	if (!trimmed.startsWith(PARAMETER_OPEN) || !trimmed.endsWith(PARAMETER_CLOSE)) return undefined;
	const inner = trimmed.slice(PARAMETER_OPEN.length, trimmed.length - PARAMETER_CLOSE.length);
	const gt = inner.indexOf(">");
	const key = inner.slice(0, gt).trim();
	const value = inner.slice(gt + 1).trim();
	return gt !== -1 && isIdentifier(key) && isPlainLine(value) ? { value, key } : undefined;
}

/**
 * Collapsed debris calls: a complete debris tag that names a tool, one value,
 * and the next DSML tag, all outside quoted text. Strip-only like every
 * debris tag; the driver alone decides, from the tool's schema, whether the
 * value can go anywhere but one field (see `soleValue`).
 */
export function parseDsmlDebrisCalls(context: ScanContext): GrammarCandidate[] {
	if (!context.text.includes("DSML")) return [];
	const { text } = context;
	const tags = findTags(context);
	const found: GrammarCandidate[] = [];
	for (let k = 0; k + 1 < tags.length; k++) {
		const tag = tags[k] as DsmlTag;
		const name = debrisToolName(text, tag);
		const next = tags[k + 1] as DsmlTag;
		if (name === undefined || !next.complete) continue;
		const soleValue = soleValueOf(text.slice(tag.end, next.start));
		if (soleValue === undefined || context.isInsideFence(tag.start) || context.isInsideFence(next.start)) continue;
		found.push({
			name,
			arguments: {},
			grammar: "dsml",
			start: tag.start,
			end: next.end,
			stripOnly: true,
			soleValue,
			markers: [
				{ start: tag.start, end: tag.end },
				{ start: next.start, end: next.end },
			],
		});
		k++;
	}
	return found;
}

/** The DSML steps in collection order. */
export function parseDsml(context: ScanContext): GrammarCandidate[] {
	return [...parseDsmlBlocks(context), ...parseDsmlDebrisCalls(context), ...parseDsmlMarkers(context)];
}
