/**
 * The `<tool_call>…</tool_call>` / `<tools>…</tools>` wrapper scan shared by
 * `qwen`, `glm` and `granite`. A wrapper runs from
 * an opener to the first closer of the same tag name (lazy match); scanning
 * resumes after it. Its body is read, in this order, as:
 *
 * 1. qwen `<function=NAME>` elements (grammar `qwen`);
 * 2. a JSON call object or array (the body, trimmed and with one markdown
 *    fence unwrapped, starts with `{` or `[`): a `<tool_call>` array body is
 *    Granite's call list (`granite`, or `qwen` when granite is disabled);
 *    every other JSON body is Qwen/Hermes' (`qwen`, or `granite` when qwen is
 *    disabled);
 * 3. a glm `NAME <arg_key>…` body (grammar `glm`).
 *
 * Every call of a wrapper shares the wrapper range; the fence check is at the
 * opener. A wrapper followed by a closer of its kind with no opener of its
 * own ended early (a value held the closer): its calls are strip-only. Linear: opener and closer offsets are collected once and walked
 * with forward-only pointers; each body is read once.
 */
import {
	allIndexesOf,
	type CaselessText,
	callsFromJsonText,
	caselessTextOf,
	codeOpeningBrace,
	codeOpeningBracket,
	strayCloserFollows,
	unwrapMarkdownFence,
} from "../scan.ts";
import type { GrammarCandidate, GrammarName, ScanContext } from "../types.ts";
import { glmCallIn } from "./glm.ts";
import { qwenCandidate, qwenFunctionsIn } from "./qwen.ts";

type WrapperKind = "tool_call" | "tools";

interface Opener {
	start: number;
	end: number;
	kind: WrapperKind;
}

function openersOf(lower: CaselessText): Opener[] {
	const openers: Opener[] = [];
	for (const kind of ["tool_call", "tools"] as const) {
		const tag = `<${kind}>`;
		for (const start of allIndexesOf(lower, tag)) openers.push({ start, end: start + tag.length, kind });
	}
	return openers.sort((a, b) => a.start - b.start);
}

/** The calls of a JSON body, labelled per the wrapper kind and the enabled families. */
function jsonBodyCandidates(
	context: ScanContext,
	kind: WrapperKind,
	body: string,
	start: number,
	end: number,
): GrammarCandidate[] {
	const json = unwrapMarkdownFence(body.trim());
	// Only a body that is JSON: a JSON value nested in a glm argument is data, not a call.
	const first = json.charCodeAt(0);
	if (first !== codeOpeningBrace && first !== codeOpeningBracket) return [];
	const preferred: GrammarName = kind === "tool_call" && first === codeOpeningBracket ? "granite" : "qwen";
	const other: GrammarName = preferred === "granite" ? "qwen" : "granite";
	const grammar = context.enabled.has(preferred) ? preferred : other;
	if (!context.enabled.has(grammar)) return [];
	const calls = callsFromJsonText(json);
	return calls.map((call) => ({ name: call.name, arguments: call.arguments, grammar, start, end }));
}

function bodyCandidates(context: ScanContext, opener: Opener, bodyEnd: number, end: number): GrammarCandidate[] {
	const { text } = context;
	const start = opener.start;
	if (context.enabled.has("qwen")) {
		const functions = qwenFunctionsIn(context, opener.end, bodyEnd);
		if (functions.length > 0) return functions.map((fn) => qwenCandidate(fn, start, end));
	}
	const json = jsonBodyCandidates(context, opener.kind, text.slice(opener.end, bodyEnd), start, end);
	if (json.length > 0) return json;
	if (context.enabled.has("glm")) {
		const glm = glmCallIn(text, caselessTextOf(context), opener.end, bodyEnd, start, end);
		if (glm) return [glm];
	}
	return [];
}

/** Every wrapper's calls, in document order. */
export function parseToolCallWrappers(context: ScanContext): GrammarCandidate[] {
	const lower = caselessTextOf(context);
	const openers = openersOf(lower);
	if (openers.length === 0) return [];
	const closers: Record<WrapperKind, Int32Array> = {
		tool_call: allIndexesOf(lower, "</tool_call>"),
		tools: allIndexesOf(lower, "</tools>"),
	};
	const pointer: Record<WrapperKind, number> = { tool_call: 0, tools: 0 };
	const openerStarts: Record<WrapperKind, number[]> = { tool_call: [], tools: [] };
	for (const opener of openers) openerStarts[opener.kind].push(opener.start);
	const found: GrammarCandidate[] = [];
	let pos = 0;
	for (const opener of openers) {
		if (opener.start < pos) continue;
		const list = closers[opener.kind];
		let p = pointer[opener.kind];
		while (p < list.length && (list[p] ?? 0) < opener.end) p++;
		pointer[opener.kind] = p;
		const close = list[p];
		if (close === undefined) continue;
		const end = close + opener.kind.length + 3;
		pos = end;
		if (context.isInsideFence(opener.start)) continue;
		const calls = bodyCandidates(context, opener, close, end);
		// A wrapper closer with no opener after this wrapper: a value held the closer and was cut there.
		if (strayCloserFollows(openerStarts[opener.kind], list, end)) for (const call of calls) call.stripOnly = true;
		found.push(...calls);
	}
	return found;
}
