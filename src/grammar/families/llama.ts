/**
 * Family `llama`: Meta Llama's `<|python_tag|>` calls and bare JSON calls
 * (Llama 3 prints them as text when served without its tool parser).
 *
 * Recognises, after the marker `<|python_tag|>` (ASCII case-insensitive) and
 * optional whitespace:
 * - a JSON call object or array of calls
 *   (`{"name": "read", "parameters": {…}}`); range = marker to the end of the
 *   JSON value;
 * - a pythonic call on that line (`ls(path="docs")`,
 *   `brave_search.call(query="pi")`); range = marker to the closing paren, or
 *   to the end of the line when only whitespace follows.
 * A directly following `<|eom_id|>` or `<|eot_id|>` end token joins the range.
 *
 * Llama 4 wraps its calls in `<|python_start|>` … `<|python_end|>` (the
 * tokens vLLM's llama4_pythonic parser strips): a JSON call or list of calls,
 * a pythonic list `[read(path="a"), ls()]` or one pythonic call. The block is
 * read only when the end token follows the calls (whitespace allowed), and a
 * list only when every element is a call; the range runs from marker to end
 * token. It starts before any bare JSON inside it, so the call is labelled
 * `llama`, never `mistral`.
 *
 * The call must start right after the marker. (The original took the first
 * `{` anywhere later in the text, which let a bare marker swallow unrelated
 * prose up to some later JSON, and let `{…}` inside pythonic arguments hide
 * the call.) A JSON value there that is not a call yields nothing.
 *
 * Bare JSON calls anywhere else are the shared scan of `mistral.ts`, labelled
 * `llama`; selection promotes text that both families see only once.
 *
 * Linear: markers are found with `indexOf` on the ASCII-lowered text from a
 * forward-only cursor; JSON and paren matching use the context's shared,
 * budgeted `BracketMatcher`; the pythonic read is limited to one line, whose
 * end comes from a remembered forward search.
 */
import {
	bracketMatcherFor,
	type CaselessText,
	callFields,
	callsFromJson,
	caselessTextOf,
	codeOpeningBrace,
	codeOpeningBracket,
	forwardFinder,
	type JsonCall,
	parseModelJson,
	pythonicCallAtLine,
	skipInlineSpace,
	skipWhitespace,
	splitTopLevel,
} from "../scan.ts";
import type { GrammarCandidate, ScanContext } from "../types.ts";
import { parseBareJsonCalls } from "./mistral.ts";

const MARKER = "<|python_tag|>";
const PYTHON_START = "<|python_start|>";
const PYTHON_END = "<|python_end|>";
const END_TOKENS = ["<|eom_id|>", "<|eot_id|>"] as const;

/** `end`, extended over inline spaces and one Llama end-of-message token when one follows. */
function absorbEndToken(text: string, lower: CaselessText, end: number): number {
	const at = skipInlineSpace(text, end);
	for (const token of END_TOKENS) if (lower.startsWith(token, at)) return at + token.length;
	return end;
}

function parseTagAt(
	context: ScanContext,
	lower: CaselessText,
	at: number,
	nextNewline: (from: number) => number,
): { found: GrammarCandidate[]; resume: number } {
	const text = context.text;
	const matcher = bracketMatcherFor(context);
	const afterMarker = at + MARKER.length;
	const body = skipWhitespace(text, afterMarker);
	const c = text.charCodeAt(body);
	if (c === codeOpeningBrace || c === codeOpeningBracket) {
		const close = matcher.closeOf(c === codeOpeningBrace ? "{" : "[", body);
		if (close === -1) return { found: [], resume: afterMarker };
		const calls = callsFromJson(parseModelJson(text.slice(body, close)));
		const end = absorbEndToken(text, lower, close);
		const found = calls.map((call) => ({ ...call, grammar: "llama" as const, start: at, end }));
		return { found, resume: close };
	}
	const newline = nextNewline(body);
	const lineEnd = newline === -1 ? text.length : newline;
	// Matched without a limit (and refused past the line) so an unclosed paren is learnt once.
	const call = pythonicCallAtLine(text, body, text.length, matcher);
	if (!call || call.end > lineEnd) return { found: [], resume: afterMarker };
	let end = absorbEndToken(text, lower, call.end);
	if (skipWhitespace(text, end, lineEnd) === lineEnd) end = lineEnd;
	return {
		found: [{ ...callFields(call), grammar: "llama", start: at, end }],
		resume: end,
	};
}

/** `<|python_tag|>` calls only (no bare JSON). */
export function parsePythonTagCalls(context: ScanContext): GrammarCandidate[] {
	const lower = caselessTextOf(context);
	const out: GrammarCandidate[] = [];
	const nextNewline = forwardFinder(context.text, "\n");
	let at = lower.indexOf(MARKER);
	while (at !== -1) {
		let resume = at + MARKER.length;
		if (!context.isInsideFence(at)) {
			const result = parseTagAt(context, lower, at, nextNewline);
			out.push(...result.found);
			resume = result.resume;
		}
		at = lower.indexOf(MARKER, resume);
	}
	return out;
}

/** Every element of a pythonic list body `a(x=1), b()` as a call, or undefined when one is not a whole call. */
function pythonicListCalls(inner: string): JsonCall[] | undefined {
	const calls: JsonCall[] = [];
	for (const piece of splitTopLevel(inner)) {
		const call = pythonicCallAtLine(piece, 0);
		if (!call || piece.slice(call.end).trim() !== "") return undefined;
		calls.push(callFields(call));
	}
	return calls.length > 0 ? calls : undefined;
}

/** The calls of the Llama 4 block whose marker is at `at` and where they end, or undefined. */
function pythonStartBlockAt(context: ScanContext, at: number): { calls: JsonCall[]; end: number } | undefined {
	const text = context.text;
	const matcher = bracketMatcherFor(context);
	const body = skipWhitespace(text, at + PYTHON_START.length);
	const c = text.charCodeAt(body);
	let calls: JsonCall[] | undefined;
	let close: number;
	if (
		c === codeOpeningBrace ||
		(c === codeOpeningBracket && text.charCodeAt(skipWhitespace(text, body + 1)) === codeOpeningBrace)
	) {
		close = matcher.closeOf(c === codeOpeningBrace ? "{" : "[", body);
		if (close === -1) return undefined;
		const parsed = parseModelJson(text.slice(body, close));
		calls = parsed === undefined ? undefined : callsFromJson(parsed);
	} else if (c === codeOpeningBracket) {
		close = matcher.closeOf("[", body);
		if (close === -1) return undefined;
		calls = pythonicListCalls(text.slice(body + 1, close - 1));
	} else {
		const call = pythonicCallAtLine(text, body, text.length, matcher);
		if (!call) return undefined;
		close = call.end;
		calls = [callFields(call)];
	}
	const endToken = skipWhitespace(text, close);
	if (!calls || calls.length === 0 || !caselessTextOf(context).startsWith(PYTHON_END, endToken)) return undefined;
	return { calls, end: endToken + PYTHON_END.length };
}

/** Llama 4 `<|python_start|>` … `<|python_end|>` blocks. */
export function parsePythonStartCalls(context: ScanContext): GrammarCandidate[] {
	const lower = caselessTextOf(context);
	const out: GrammarCandidate[] = [];
	let at = lower.indexOf(PYTHON_START);
	while (at !== -1) {
		let resume = at + PYTHON_START.length;
		if (!context.isInsideFence(at)) {
			const block = pythonStartBlockAt(context, at);
			if (block) {
				for (const call of block.calls) out.push({ ...call, grammar: "llama", start: at, end: block.end });
				resume = block.end;
			}
		}
		at = lower.indexOf(PYTHON_START, resume);
	}
	return out;
}

/** Python-tag calls, then Llama 4 blocks, then bare JSON labelled `llama`. */
export function parseLlama(context: ScanContext): GrammarCandidate[] {
	return [...parsePythonTagCalls(context), ...parsePythonStartCalls(context), ...parseBareJsonCalls(context, "llama")];
}
