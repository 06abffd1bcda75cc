/**
 * `qwen`: Qwen3-Coder / Hermes function XML.
 *
 *   <tool_call>
 *   <function=bash>
 *   <parameter=command>git status --short</parameter>
 *   </function>
 *   </tool_call>
 *
 * This file reads `<function=NAME>…</function>` elements: inside a
 * `<tool_call>`/`<tools>` wrapper (called by `tool-call-wrapper.ts`, which
 * owns the wrapper and its JSON bodies) and bare, outside any wrapper
 * (`parseQwen`, range = the element; a bare element inside a wrapper loses
 * to the wrapper at selection).
 *
 * Linear: the offsets of `<function=`, `</function>`, `<parameter=` and
 * `</parameter>` are collected once per text; every lookup is a binary search
 * or a forward move over those lists.
 */
import {
	allIndexesOf,
	caselessTextOf,
	codeGreaterThan,
	defineOwn,
	firstIndexAtOrAfter,
	indexOfBefore,
	isBlankText,
	perContext,
	readIdentifier,
	readTagValue,
	skipInlineSpace,
	strayCloserFollows,
} from "../scan.ts";
import type { GrammarCandidate, ScanContext } from "../types.ts";

const FUNCTION_OPEN = "<function=";
const FUNCTION_CLOSE = "</function>";
const PARAMETER_OPEN = "<parameter=";
const PARAMETER_CLOSE = "</parameter>";

interface QwenIndex {
	functionOpen: Int32Array;
	functionClose: Int32Array;
	parameterOpen: Int32Array;
	parameterClose: Int32Array;
}

const indexOf = perContext((context): QwenIndex => {
	const lower = caselessTextOf(context);
	return {
		functionOpen: allIndexesOf(lower, FUNCTION_OPEN),
		functionClose: allIndexesOf(lower, FUNCTION_CLOSE),
		parameterOpen: allIndexesOf(lower, PARAMETER_OPEN),
		parameterClose: allIndexesOf(lower, PARAMETER_CLOSE),
	};
});

/** First value in the ascending `list` that is `>= offset`, or -1. */
function firstAtOrAfter(list: Int32Array, offset: number): number {
	return list[firstIndexAtOrAfter(list, offset)] ?? -1;
}

/** A qwen function element with its offsets. */
export interface QwenFunction {
	name: string;
	arguments: Record<string, unknown>;
	rawArguments: Record<string, string>;
	start: number;
	end: number;
	/** The parameters' ends cannot be known: strip or observe, never run. */
	ambiguous: boolean;
}

/**
 * Reads `<parameter=KEY>V</parameter>` pairs in `[from, to)`: KEY trimmed, V
 * as the model's bytes (`readTagValue`). Ambiguous when anything but
 * whitespace stands between the parameters or after the last one (a value
 * that held its own `</parameter>`, a closer with no opener), a value holds
 * a parameter opener, or a key comes twice (a value that spelled further
 * parameters): the value's end cannot be known, so nothing may run.
 */
function readParameters(
	text: string,
	index: QwenIndex,
	from: number,
	to: number,
): { args: Record<string, unknown>; raw: Record<string, string>; ambiguous: boolean } {
	const args: Record<string, unknown> = {};
	const raw: Record<string, string> = {};
	let ambiguous = false;
	let gapStart = from;
	let at = firstAtOrAfter(index.parameterOpen, from);
	while (at !== -1 && at < to) {
		if (!isBlankText(text, gapStart, at)) ambiguous = true;
		const keyStart = at + PARAMETER_OPEN.length;
		const gt = indexOfBefore(text, ">", keyStart, to);
		if (gt === -1) break;
		const close = firstAtOrAfter(index.parameterClose, gt + 1);
		if (close === -1 || close + PARAMETER_CLOSE.length > to) break;
		const nested = firstAtOrAfter(index.parameterOpen, gt + 1);
		if (nested !== -1 && nested < close) ambiguous = true;
		const key = text.slice(keyStart, gt).trim();
		// A key written twice: a value spelled further parameters of its own.
		if (Object.hasOwn(raw, key)) ambiguous = true;
		if (key !== "") {
			const read = readTagValue(text.slice(gt + 1, close), "loose");
			defineOwn(args, key, read.value);
			defineOwn(raw, key, read.raw);
		}
		gapStart = close + PARAMETER_CLOSE.length;
		at = nested !== -1 && nested < close ? -1 : firstAtOrAfter(index.parameterOpen, gapStart);
	}
	if (!isBlankText(text, gapStart, to)) ambiguous = true;
	return { args, raw, ambiguous };
}

/** Every `<function=NAME>…</function>` element starting in `[from, to)` and closed by `to`, except those `skip` rejects by start. */
export function qwenFunctionsIn(
	context: ScanContext,
	from: number,
	to: number,
	skip?: (start: number) => boolean,
): QwenFunction[] {
	const { text } = context;
	const index = indexOf(context);
	const found: QwenFunction[] = [];
	let at = firstAtOrAfter(index.functionOpen, from);
	while (at !== -1 && at < to) {
		const nameStart = skipInlineSpace(text, at + FUNCTION_OPEN.length, to);
		const ident = readIdentifier(text, nameStart);
		const gt = ident ? skipInlineSpace(text, ident.end, to) : -1;
		if (!ident || text.charCodeAt(gt) !== codeGreaterThan) {
			at = firstAtOrAfter(index.functionOpen, at + 1);
			continue;
		}
		const close = firstAtOrAfter(index.functionClose, gt + 1);
		const end = close + FUNCTION_CLOSE.length;
		if (close === -1 || end > to) break;
		if (!skip?.(at)) {
			const read = readParameters(text, index, gt + 1, close);
			// A function or parameter closer with no opener after the element: a value held `</function>`.
			const cut =
				strayCloserFollows(index.functionOpen, index.functionClose, end) ||
				strayCloserFollows(index.parameterOpen, index.parameterClose, end);
			found.push({
				name: ident.name,
				arguments: read.args,
				rawArguments: read.raw,
				start: at,
				end,
				ambiguous: read.ambiguous || cut,
			});
		}
		at = firstAtOrAfter(index.functionOpen, end);
	}
	return found;
}

/** Builds a candidate from a qwen function with the given range. */
export function qwenCandidate(fn: QwenFunction, start: number, end: number): GrammarCandidate {
	const found: GrammarCandidate = { name: fn.name, arguments: fn.arguments, grammar: "qwen", start, end };
	if (Object.keys(fn.rawArguments).length > 0) found.rawArguments = fn.rawArguments;
	if (fn.ambiguous) found.stripOnly = true;
	return found;
}

/** Bare function elements anywhere in the text, each ranged to itself. */
export function parseQwen(context: ScanContext): GrammarCandidate[] {
	const found: GrammarCandidate[] = [];
	const fenced = (start: number) => context.isInsideFence(start);
	for (const fn of qwenFunctionsIn(context, 0, context.text.length, fenced)) {
		found.push(qwenCandidate(fn, fn.start, fn.end));
	}
	return found;
}
