/**
 * Family `kimi`: Moonshot Kimi K2's sentinel tokens, which K2
 * prints as text when served without its tool parser.
 *
 * Recognises a section
 * `<|tool_calls_section_begin|>` … `<|tool_calls_section_end|>` (the singular
 * `tool_call_section` spelling too, at either end, ASCII case-insensitive)
 * holding calls
 * `<|tool_call_begin|>ID<|tool_call_argument_begin|>ARGS<|tool_call_end|>`.
 * ID `functions.NAME:N` names the tool NAME; a relaxed `[functions.]NAME[:N]`
 * does too, unless NAME is an OpenAI-style call id (`call_0001`), which drops
 * the call. ARGS is a JSON object (or a JSON string holding one, decoded once
 * more), else `{}`. Every call of a section shares
 * the section's range; a section without a closer, or without a usable call,
 * yields nothing (its text is left alone).
 *
 * Linear: every token is found with `indexOf` on the ASCII-lowered text from a
 * cursor that only moves forward; both spellings of the section tokens share
 * the prefix `<|tool_call`, so one search serves both and each hit is checked
 * in constant time.
 */
import {
	argumentObjectOf,
	type CaselessText,
	caselessTextOf,
	forwardFinder,
	isDigit,
	parseModelJson,
	readIdentifier,
} from "../scan.ts";
import type { GrammarCandidate, ScanContext } from "../types.ts";

const TOKEN_PREFIX = "<|tool_call";
const SECTION_BEGIN = ["<|tool_calls_section_begin|>", "<|tool_call_section_begin|>"] as const;
const SECTION_END = ["<|tool_calls_section_end|>", "<|tool_call_section_end|>"] as const;
const CALL_BEGIN = "<|tool_call_begin|>";
const ARGUMENT_BEGIN = "<|tool_call_argument_begin|>";
const CALL_END = "<|tool_call_end|>";
const FUNCTIONS_PREFIX = "functions.";

/** The token of `tokens` found in `lower` at `at`, as its length, or 0. */
function tokenLengthAt(lower: CaselessText, at: number, tokens: readonly string[]): number {
	for (const token of tokens) if (lower.startsWith(token, at)) return token.length;
	return 0;
}

/** Next occurrence at or after `from` of one of `tokens` (all starting with `<|tool_call`). */
function findToken(
	lower: CaselessText,
	from: number,
	tokens: readonly string[],
): { at: number; length: number } | undefined {
	let at = lower.indexOf(TOKEN_PREFIX, from);
	while (at !== -1) {
		const length = tokenLengthAt(lower, at, tokens);
		if (length > 0) return { at, length };
		at = lower.indexOf(TOKEN_PREFIX, at + 1);
	}
	return undefined;
}

/** True for OpenAI-style call ids: `call`, an optional `_` or `-`, then digits. */
function looksLikeCallId(name: string): boolean {
	if (name.length < 5 || name.slice(0, 4).toLowerCase() !== "call") return false;
	let i = 4;
	if (name[i] === "_" || name[i] === "-") i++;
	if (i === name.length) return false;
	for (; i < name.length; i++) if (!isDigit(name.charCodeAt(i))) return false;
	return true;
}

/** All digits and at least one. */
function isIndexSuffix(text: string): boolean {
	if (text.length === 0) return false;
	for (let i = 0; i < text.length; i++) if (!isDigit(text.charCodeAt(i))) return false;
	return true;
}

/** Tool name of a Kimi call ID, or undefined when the ID names no tool. */
export function kimiToolName(rawId: string): string | undefined {
	const id = rawId.trim();
	const prefixed = id.slice(0, FUNCTIONS_PREFIX.length).toLowerCase() === FUNCTIONS_PREFIX;
	const rest = prefixed ? id.slice(FUNCTIONS_PREFIX.length) : id;
	const ident = readIdentifier(rest, 0);
	if (!ident) return undefined;
	const tail = rest.slice(ident.end);
	const indexed = tail.startsWith(":") && isIndexSuffix(tail.slice(1));
	if (tail !== "" && !indexed) return undefined;
	if (prefixed && indexed) return ident.name;
	return looksLikeCallId(ident.name) ? undefined : ident.name;
}

/** ARGS as an object; a JSON string holding the object (arguments encoded twice) is decoded once more. */
function parseArguments(raw: string): Record<string, unknown> {
	return argumentObjectOf(parseModelJson(raw.trim())) ?? {};
}

interface SectionFinders {
	callBegin: (from: number) => number;
	callEnd: (from: number) => number;
}

/** Calls inside one section body `[from, limit)`. */
function callsInSection(
	text: string,
	lower: CaselessText,
	from: number,
	limit: number,
	find: SectionFinders,
): Array<{ name: string; arguments: Record<string, unknown> }> {
	const calls: Array<{ name: string; arguments: Record<string, unknown> }> = [];
	let at = find.callBegin(from);
	while (at !== -1 && at < limit) {
		const idStart = at + CALL_BEGIN.length;
		// The section closer starts with "<", so this search stops inside the section.
		const lt = lower.indexOf("<", idStart);
		if (lt === -1 || lt >= limit) break;
		if (!lower.startsWith(ARGUMENT_BEGIN, lt)) {
			at = find.callBegin(lt);
			continue;
		}
		const argsStart = lt + ARGUMENT_BEGIN.length;
		const argsEnd = find.callEnd(argsStart);
		if (argsEnd === -1 || argsEnd + CALL_END.length > limit) break;
		const name = kimiToolName(text.slice(idStart, lt));
		if (name !== undefined) calls.push({ name, arguments: parseArguments(text.slice(argsStart, argsEnd)) });
		at = find.callBegin(argsEnd + CALL_END.length);
	}
	return calls;
}

/** Every Kimi call in the scanned text. */
export function parseKimi(context: ScanContext): GrammarCandidate[] {
	const text = context.text;
	const lower = caselessTextOf(context);
	const out: GrammarCandidate[] = [];
	const find: SectionFinders = {
		callBegin: forwardFinder(lower, CALL_BEGIN),
		callEnd: forwardFinder(lower, CALL_END),
	};
	let cursor = 0;
	for (;;) {
		const open = findToken(lower, cursor, SECTION_BEGIN);
		if (!open) break;
		const bodyStart = open.at + open.length;
		const close = findToken(lower, bodyStart, SECTION_END);
		// No closer after this opener means none after any later opener either.
		if (!close) break;
		const end = close.at + close.length;
		cursor = end;
		if (context.isInsideFence(open.at)) continue;
		for (const call of callsInSection(text, lower, bodyStart, close.at, find)) {
			out.push({ ...call, grammar: "kimi", start: open.at, end });
		}
	}
	return out;
}
