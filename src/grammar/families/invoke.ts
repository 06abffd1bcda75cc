/**
 * `invoke`: the Anthropic/MiniMax `<invoke>` XML tool-call form, which
 * MiniMax models print as text when served without their parser, in three
 * shapes, in this collection order:
 *
 * 1. wrapped:    <minimax:tool_call> <invoke name="grep">…</invoke> </minimax:tool_call>
 *                (any `ns:` or none; the namespaces of opener and closer need not match)
 * 2. standalone: <invoke name="grep"><parameter name="pattern">TODO</parameter></invoke>
 * 3. malformed:  a line starting `invoke name="read">` whose brackets were eaten,
 *                with `parameter name="k">V parameter>` lines, up to a line `/invoke>`
 *                (or `invoke>`) or the end of the text.
 *
 * MiniMax M3 writes arguments as elements named by their key instead of
 * `parameter` tags (`<path>src</path>`; a nested mapping as child elements,
 * a list as `<item>` children), with its namespace token `]<]minimax[>[`
 * before every tag (ml-explore/mlx-lm#1416). `minimax-elements.ts` reads such
 * a body, only when it is elements from end to end (else the call has no
 * arguments and never runs); the tool's schema types the values later.
 *
 * Linear: tags are collected once (indexOf per tag name, attribute text never
 * crosses another `<`), closers are looked up in next-closer tables, and every
 * walk moves forward. The wrapper's namespace is read backwards at most
 * `MAX_NAMESPACE` characters.
 */
import {
	allIndexesOf,
	argumentsFromJsonBody,
	attributeValue,
	type CaselessText,
	caselessTextOf,
	codeColon,
	codeDoubleQuote,
	codeEqual,
	codeGreaterThan,
	codeLessThan,
	codeNewline,
	codeSingleQuote,
	codeSlash,
	codeSpace,
	codeTab,
	defineOwn,
	findMarkupTags,
	firstTagAtOrAfter,
	indexOfBefore,
	isIdentifierPart,
	isWhitespace,
	type MarkupTag,
	nextCloserTable,
	parameterElements,
	readTagValue,
	skipInlineSpace,
} from "../scan.ts";
import type { GrammarCandidate, ScanContext } from "../types.ts";
import { M3_NAMESPACE, readElementArguments } from "./minimax-elements.ts";

const MAX_NAMESPACE = 64;

interface InvokeCall {
	name: string;
	arguments: Record<string, unknown>;
	rawArguments: Record<string, string>;
	/** A value's end cannot be known: strip or observe, never run. */
	ambiguous?: boolean;
}

interface InvokeIndex {
	tags: MarkupTag[];
	closeInvoke: Int32Array;
	closeParameter: Int32Array;
}

function buildIndex(context: ScanContext): InvokeIndex {
	const tags = findMarkupTags(caselessTextOf(context), ["invoke", "parameter"]);
	return { tags, closeInvoke: nextCloserTable(tags, "invoke"), closeParameter: nextCloserTable(tags, "parameter") };
}

function candidate(text: string, call: InvokeCall, start: number, end: number): GrammarCandidate {
	// A namespace token right before the range is part of the markup.
	const from = text.startsWith(M3_NAMESPACE, start - M3_NAMESPACE.length) ? start - M3_NAMESPACE.length : start;
	const found: GrammarCandidate = { name: call.name, arguments: call.arguments, grammar: "invoke", start: from, end };
	if (call.ambiguous === true) found.stripOnly = true;
	if (Object.keys(call.rawArguments).length > 0) found.rawArguments = call.rawArguments;
	return found;
}

/** Arguments of the invoke between tag indexes `open` and `close` (shapes 1–2). */
function readInvoke(text: string, index: InvokeIndex, open: number, close: number): InvokeCall | undefined {
	const { tags } = index;
	const opener = tags[open] as MarkupTag;
	const closer = tags[close] as MarkupTag;
	const name = attributeValue(text, opener.attrStart, opener.attrEnd, "name")?.trim();
	if (!name) return undefined;
	const parameters = parameterElements(text, tags, index.closeParameter, open, close);
	// An invoke or parameter closer right after the call (no opener between): a value held `</invoke>`.
	const cut = tags[close + 1]?.closing === true;
	if (parameters === undefined) {
		const body = text.slice(opener.end, closer.start);
		const elements = readElementArguments(body);
		const call: InvokeCall = elements
			? { name, arguments: elements.args, rawArguments: elements.raw }
			: { name, arguments: argumentsFromJsonBody(body), rawArguments: {} };
		if (cut) call.ambiguous = true;
		return call;
	}
	const args: Record<string, unknown> = {};
	const raw: Record<string, string> = {};
	for (const parameter of parameters) {
		// Values are the model's bytes, loosely coerced; `string="false"` asks for JSON outright.
		const read = readTagValue(parameter.value, parameter.stringAttr === "false" ? "strict" : "loose");
		defineOwn(args, parameter.key, read.value);
		defineOwn(raw, parameter.key, read.raw);
	}
	return { name, arguments: args, rawArguments: raw, ...(parameters.ambiguous || cut ? { ambiguous: true } : {}) };
}

/** Every invoke element whose opener lies in `[from, to)` and whose closer ends by `to`. */
function invokesBetween(text: string, index: InvokeIndex, from: number, to: number): InvokeCall[] {
	const { tags } = index;
	const calls: InvokeCall[] = [];
	let k = firstTagAtOrAfter(tags, from);
	while (k < tags.length && (tags[k] as MarkupTag).start < to) {
		const tag = tags[k] as MarkupTag;
		if (tag.closing || tag.name !== "invoke") {
			k++;
			continue;
		}
		const close = index.closeInvoke[k + 1] ?? -1;
		if (close === -1 || (tags[close] as MarkupTag).end > to) break;
		const call = readInvoke(text, index, k, close);
		if (call) calls.push(call);
		k = close + 1;
	}
	return calls;
}

interface WrapperTag {
	start: number;
	end: number;
	closing: boolean;
}

/** `<tool_call>`, `<ns:tool_call>`, `</tool_call>`, `</ns:tool_call>`, ascending. */
function findWrapperTags(lower: CaselessText): WrapperTag[] {
	const tags: WrapperTag[] = [];
	for (const at of allIndexesOf(lower, "tool_call>")) {
		let j = at - 1;
		if (lower.charCodeAt(j) === codeColon) {
			const stop = Math.max(-1, j - 1 - MAX_NAMESPACE);
			let k = j - 1;
			while (k > stop && isIdentifierPart(lower.charCodeAt(k))) k--;
			if (k === j - 1) continue;
			j = k;
		}
		let closing = false;
		if (lower.charCodeAt(j) === codeSlash) {
			closing = true;
			j--;
		}
		if (lower.charCodeAt(j) !== codeLessThan) continue;
		tags.push({ start: j, end: at + "tool_call>".length, closing });
	}
	return tags;
}

/** Shape 1: wrappers holding invoke elements; every call shares the wrapper range. */
function parseWrapped(context: ScanContext, index: InvokeIndex): GrammarCandidate[] {
	const { text } = context;
	const wrappers = findWrapperTags(caselessTextOf(context));
	const found: GrammarCandidate[] = [];
	let k = 0;
	let closer = 0;
	while (k < wrappers.length) {
		const opener = wrappers[k] as WrapperTag;
		if (opener.closing) {
			k++;
			continue;
		}
		while (
			closer < wrappers.length &&
			((wrappers[closer] as WrapperTag).start < opener.end || !wrappers[closer]?.closing)
		)
			closer++;
		const close = wrappers[closer];
		if (!close) break;
		if (!context.isInsideFence(opener.start)) {
			for (const call of invokesBetween(text, index, opener.end, close.start)) {
				found.push(candidate(text, call, opener.start, close.end));
			}
		}
		k = closer + 1;
	}
	return found;
}

/** Shape 2: every invoke element on its own, ranged to the element. */
function parseStandalone(context: ScanContext, index: InvokeIndex): GrammarCandidate[] {
	const { text } = context;
	const { tags } = index;
	const found: GrammarCandidate[] = [];
	let k = 0;
	while (k < tags.length) {
		const tag = tags[k] as MarkupTag;
		if (tag.closing || tag.name !== "invoke") {
			k++;
			continue;
		}
		const close = index.closeInvoke[k + 1] ?? -1;
		if (close === -1) break;
		if (!context.isInsideFence(tag.start)) {
			const call = readInvoke(text, index, k, close);
			if (call) found.push(candidate(text, call, tag.start, (tags[close] as MarkupTag).end));
		}
		k = close + 1;
	}
	return found;
}

/**
 * The start of the line holding `at` when only spaces and tabs precede `at`
 * on it, else -1. Walks back over that run only, so repeated calls stay linear.
 */
function lineStartIfLeading(text: string, at: number): number {
	let j = at - 1;
	while (j >= 0) {
		const c = text.charCodeAt(j);
		if (c === codeNewline) return j + 1;
		if (!isWhitespace(c)) return -1;
		j--;
	}
	return 0;
}

/** Reads `name="X">` (or `name='X'>`) at `at`; returns the name and the offset after `>`. */
function readNameAttribute(text: string, at: number): { name: string; end: number } | undefined {
	if (!text.startsWith("name", at)) return undefined;
	let i = skipInlineSpace(text, at + 4);
	if (text.charCodeAt(i) !== codeEqual) return undefined;
	i = skipInlineSpace(text, i + 1);
	const quote = text.charCodeAt(i);
	if (quote !== codeDoubleQuote && quote !== codeSingleQuote) return undefined;
	// The name ends on its own line: never search past the line end.
	const newline = text.indexOf("\n", i + 1);
	const close = indexOfBefore(text, String.fromCharCode(quote), i + 1, newline === -1 ? text.length : newline);
	if (close === -1) return undefined;
	const gt = skipInlineSpace(text, close + 1);
	if (text.charCodeAt(gt) !== codeGreaterThan) return undefined;
	return { name: text.slice(i + 1, close), end: gt + 1 };
}

/** Offsets of line-leading `/invoke>` or `invoke>` closers (end offsets), ascending. */
function malformedClosers(text: string, lower: CaselessText): number[] {
	const ends: number[] = [];
	for (const at of allIndexesOf(lower, "invoke>")) {
		let j = at - 1;
		if (text.charCodeAt(j) === codeSlash) j--;
		while (j >= 0 && (text.charCodeAt(j) === codeSpace || text.charCodeAt(j) === codeTab)) j--;
		if (j >= 0 && text.charCodeAt(j) === codeNewline) ends.push(at + "invoke>".length);
	}
	return ends;
}

/**
 * A bracket-less value without what the lost closer left before `parameter>`:
 * `</`, `/`, `<` or one space. The rest is the model's bytes.
 */
function withoutCloserResidue(value: string): string {
	let end = value.length;
	if (value.endsWith("/", end)) end--;
	if (value.endsWith("<", end)) end--;
	else if (end === value.length && value.endsWith(" ")) end--;
	return value.slice(0, end);
}

/**
 * Parameters of a bracket-less invoke body: `parameter name="k">V parameter>`,
 * V as the model's bytes (`readTagValue`) loosely coerced; ambiguous when a key
 * comes twice (a value that spelled further parameters of its own).
 */
function malformedParameters(
	text: string,
	lower: CaselessText,
	from: number,
	to: number,
): { args: Record<string, unknown>; raw: Record<string, string>; ambiguous: boolean } {
	const args: Record<string, unknown> = {};
	const raw: Record<string, string> = {};
	let ambiguous = false;
	let at = indexOfBefore(lower, "parameter", from, to);
	while (at !== -1) {
		const attr = skipInlineSpace(text, at + "parameter".length);
		const named = attr > at + "parameter".length ? readNameAttribute(text, attr) : undefined;
		if (!named) {
			at = indexOfBefore(lower, "parameter", at + 1, to);
			continue;
		}
		const close = indexOfBefore(lower, "parameter>", named.end, to);
		const value = text.slice(named.end, close === -1 ? to : close);
		const read = readTagValue(close === -1 ? value : withoutCloserResidue(value), "loose");
		if (Object.hasOwn(raw, named.name)) ambiguous = true;
		defineOwn(args, named.name, read.value);
		defineOwn(raw, named.name, read.raw);
		if (close === -1) break;
		at = indexOfBefore(lower, "parameter", close + "parameter>".length, to);
	}
	return { args, raw, ambiguous };
}

/** Shape 3: bracket-less invokes at a line start. */
function parseMalformed(context: ScanContext): GrammarCandidate[] {
	const { text } = context;
	const lower = caselessTextOf(context);
	const found: GrammarCandidate[] = [];
	let closers: number[] | undefined;
	let closerIndex = 0;
	let pos = 0;
	for (const at of allIndexesOf(lower, "invoke")) {
		if (at < pos) continue;
		const lineStart = lineStartIfLeading(text, at);
		if (lineStart === -1) continue;
		const afterWord = at + "invoke".length;
		const attr = skipInlineSpace(text, afterWord);
		if (attr === afterWord) continue;
		const named = readNameAttribute(text, attr);
		if (!named || named.name.trim() === "") continue;
		closers ??= malformedClosers(text, lower);
		while (closerIndex < closers.length && (closers[closerIndex] ?? 0) <= named.end) closerIndex++;
		const closerEnd = closers[closerIndex];
		const end = closerEnd ?? text.length;
		const bodyEnd = closerEnd === undefined ? end : lower.lastIndexOf("invoke>", end - 1);
		pos = end;
		if (context.isInsideFence(lineStart)) continue;
		const { args, raw, ambiguous } = malformedParameters(text, lower, named.end, bodyEnd);
		const call: InvokeCall = { name: named.name.trim(), arguments: args, rawArguments: raw };
		if (ambiguous) call.ambiguous = true;
		found.push(candidate(text, call, lineStart, end));
	}
	return found;
}

/** All three invoke shapes in collection order. */
export function parseInvoke(context: ScanContext): GrammarCandidate[] {
	const index = buildIndex(context);
	return [...parseWrapped(context, index), ...parseStandalone(context, index), ...parseMalformed(context)];
}
