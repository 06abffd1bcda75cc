/**
 * Family `mistral`: Mistral's `[TOOL_CALLS]` sentinel forms and the bare-JSON
 * call scan.
 *
 * Recognises
 * - `[TOOL_CALLS] [{"name": …, "arguments": {…}}, …]`: one call per object of
 *   the array; range = marker to the end of the array;
 * - `[TOOL_CALLS] {"name": …}`: the same with a single object;
 * - the V11 form `[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{…}`, and the same without
 *   `[CALL_ID]ID` as newer tokenizers print it; range = marker to the end of
 *   the argument object;
 * - bare JSON (exported as `parseBareJsonCalls`, reused by `llama` with its own
 *   label): a `{` whose first key is `"name"`, `"function_name"` or
 *   `"function"`, or a `[` whose first element is such an object.
 *
 * The marker is case-sensitive. The JSON after `[ARGS]` (or after the marker)
 * must follow directly (whitespace allowed): a truncated call never borrows a
 * JSON value from text further on.
 *
 * A bare JSON value that is balanced is consumed whole: call objects nested in
 * it are not reported on their own (they would lose to it at selection anyway,
 * and JSON that is not a call is data, not a leaked call).
 *
 * Linear: the marker and the bracket openers are found with `indexOf` from a
 * cursor that only moves forward (the next `{` and `[` are remembered, so
 * neither is searched for twice over the same stretch), and every bracket match
 * goes through the context's shared, budgeted `BracketMatcher`. The bare-JSON
 * walk runs once per text; `llama` reuses its spans.
 */
import {
	argumentsFromJsonText,
	type BracketKind,
	bracketMatcherFor,
	callFromJsonObject,
	callsFromJson,
	codeColon,
	codeOpeningBrace,
	codeOpeningBracket,
	parseModelJson,
	perContext,
	readIdentifier,
	skipWhitespace,
} from "../scan.ts";
import type { GrammarCandidate, GrammarName, ScanContext } from "../types.ts";

const MARKER = "[TOOL_CALLS]";
const CALL_ID = "[CALL_ID]";
const ARGS = "[ARGS]";

/** First keys that make a JSON object look like a call. */
const CALL_KEYS = ['"name"', '"function_name"', '"function"'] as const;

/** True when `text` at `at` is one of the call keys followed by optional whitespace and a colon. */
function startsWithCallKey(text: string, at: number): boolean {
	for (const key of CALL_KEYS) {
		if (!text.startsWith(key, at)) continue;
		const colon = skipWhitespace(text, at + key.length);
		if (text.charCodeAt(colon) === codeColon) return true;
	}
	return false;
}

/** Kind of bare-JSON candidate opening at `at`, if any: `{"name": …` or `[{"name": …`. */
function bareJsonKindAt(text: string, at: number): BracketKind | undefined {
	const c = text.charCodeAt(at);
	if (c === codeOpeningBrace) return startsWithCallKey(text, skipWhitespace(text, at + 1)) ? "{" : undefined;
	if (c === codeOpeningBracket) {
		const inner = skipWhitespace(text, at + 1);
		if (text.charCodeAt(inner) !== codeOpeningBrace) return undefined;
		return startsWithCallKey(text, skipWhitespace(text, inner + 1)) ? "[" : undefined;
	}
	return undefined;
}

function candidatesFromJson(jsonText: string, grammar: GrammarName, start: number, end: number): GrammarCandidate[] {
	return callsFromJson(parseModelJson(jsonText)).map((call) => ({
		name: call.name,
		arguments: call.arguments,
		grammar,
		start,
		end,
	}));
}

interface BareJsonSpan {
	start: number;
	end: number;
}

/**
 * Bare JSON call objects and arrays of call objects anywhere outside a fence,
 * labelled `grammar` (`mistral` or `llama`).
 */
export function parseBareJsonCalls(context: ScanContext, grammar: GrammarName): GrammarCandidate[] {
	const text = context.text;
	const out: GrammarCandidate[] = [];
	for (const span of bareJsonSpans(context)) {
		out.push(...candidatesFromJson(text.slice(span.start, span.end), grammar, span.start, span.end));
	}
	return out;
}

/**
 * The balanced bare-JSON spans of the text, found once per context and shared
 * by `mistral` and `llama`: the walk does not depend on the label, and the
 * second family's bracket queries would only repeat answers the shared
 * matcher already holds.
 */
const bareJsonSpans = perContext((context): readonly BareJsonSpan[] => {
	const text = context.text;
	const out: BareJsonSpan[] = [];
	const matcher = bracketMatcherFor(context);
	let nextBrace = -2;
	let nextBracket = -2;
	let cursor = 0;
	while (cursor < text.length) {
		if (nextBrace !== -1 && nextBrace < cursor) nextBrace = text.indexOf("{", cursor);
		if (nextBracket !== -1 && nextBracket < cursor) nextBracket = text.indexOf("[", cursor);
		const open = nextBrace === -1 ? nextBracket : nextBracket === -1 ? nextBrace : Math.min(nextBrace, nextBracket);
		if (open === -1) break;
		cursor = open + 1;
		const kind = bareJsonKindAt(text, open);
		if (kind === undefined || context.isInsideFence(open)) continue;
		const end = matcher.closeOf(kind, open);
		if (end === -1) continue;
		out.push({ start: open, end });
		cursor = end;
	}
	return out;
});

/** Candidates of one `[TOOL_CALLS]` marker at `at`, and where scanning resumes. */
function parseMarkerAt(context: ScanContext, at: number): { found: GrammarCandidate[]; resume: number } {
	const text = context.text;
	const matcher = bracketMatcherFor(context);
	const afterMarker = at + MARKER.length;
	const miss = { found: [], resume: afterMarker };
	const next = skipWhitespace(text, afterMarker);
	const c = text.charCodeAt(next);
	if (c === codeOpeningBracket || c === codeOpeningBrace) {
		// Only a list of objects (or one object) can hold calls; anything else is not worth parsing.
		if (c === codeOpeningBracket && text.charCodeAt(skipWhitespace(text, next + 1)) !== codeOpeningBrace) return miss;
		const end = matcher.closeOf(c === codeOpeningBracket ? "[" : "{", next);
		if (end === -1) return miss;
		const parsed = parseModelJson(text.slice(next, end));
		if (parsed === undefined) return { found: [], resume: end };
		const calls = Array.isArray(parsed) ? callsFromJson(parsed) : [callFromJsonObject(parsed)];
		const found: GrammarCandidate[] = [];
		for (const call of calls) {
			if (call) found.push({ name: call.name, arguments: call.arguments, grammar: "mistral", start: at, end });
		}
		return { found, resume: end };
	}
	const ident = readIdentifier(text, next);
	if (!ident) return miss;
	let argsAt = -1;
	if (text.startsWith(ARGS, ident.end)) {
		argsAt = ident.end + ARGS.length;
	} else if (text.startsWith(CALL_ID, ident.end)) {
		const bracket = text.indexOf("[", ident.end + CALL_ID.length);
		if (bracket !== -1 && text.startsWith(ARGS, bracket)) argsAt = bracket + ARGS.length;
	}
	if (argsAt === -1) return miss;
	const json = skipWhitespace(text, argsAt);
	const jc = text.charCodeAt(json);
	if (jc !== codeOpeningBrace && jc !== codeOpeningBracket) return miss;
	const end = matcher.closeOf(jc === codeOpeningBrace ? "{" : "[", json);
	if (end === -1) return miss;
	const args = argumentsFromJsonText(text.slice(json, end));
	return { found: [{ name: ident.name, arguments: args, grammar: "mistral", start: at, end }], resume: end };
}

/** `[TOOL_CALLS]` marker forms only (no bare JSON). */
export function parseMistralMarkers(context: ScanContext): GrammarCandidate[] {
	const text = context.text;
	const out: GrammarCandidate[] = [];
	let at = text.indexOf(MARKER);
	while (at !== -1) {
		let resume = at + MARKER.length;
		if (!context.isInsideFence(at)) {
			const result = parseMarkerAt(context, at);
			out.push(...result.found);
			resume = result.resume;
		}
		at = text.indexOf(MARKER, resume);
	}
	return out;
}

/** Marker forms first, then bare JSON labelled `mistral` (collection order decides exact range ties at selection). */
export function parseMistral(context: ScanContext): GrammarCandidate[] {
	return [...parseMistralMarkers(context), ...parseBareJsonCalls(context, "mistral")];
}
