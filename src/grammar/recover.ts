/**
 * The `recoverGrammarLeaks` driver (extension-contract §2.3–§2.4, §2.8–§2.9a,
 * with decisions §4.4–§4.5).
 *
 * Per scannable part (`text`, `thinking`): detect, then — outside `observe` —
 * strip the kept ranges and collect the calls that may run. Promotion appends
 * real `toolCall` parts and turns `stopReason` into `"toolUse"` only when
 * every gate holds: mode `recover`, assistant role, original stop reason
 * `"stop"`, no real tool call present, an allowed tool name, at least one
 * argument key, not strip-only, not fenced (dropped at detection).
 *
 * Reasoning is never acted on (decisions §4.5): candidates in `thinking`
 * parts, inside `<think>…</think>` spans of text parts, or flagged
 * `reasoning` by their family are counted as detected and otherwise left
 * alone — neither stripped nor promoted.
 *
 * Never throws and never mutates the input: a failure returns the unchanged
 * result; changed parts and the message are shallow copies.
 */
import { detectGrammarLeaks } from "./parse.ts";
import { removeRanges } from "./ranges.ts";
import { allIndexesOf, CaselessText } from "./scan.ts";
import { typeArgumentsFromSchema } from "./schema-typing.ts";
import type {
	GrammarCandidate,
	GrammarName,
	GrammarRecoveryOptions,
	GrammarRecoveryResult,
	MinimalAssistantMessage,
	RecoveredToolCall,
} from "./types.ts";
import { GRAMMAR_NAMES } from "./types.ts";

type Part = MinimalAssistantMessage["content"][number];

function unchangedResult(message: MinimalAssistantMessage): GrammarRecoveryResult {
	return {
		changed: false,
		recoveredCalls: [],
		strippedGrammars: [],
		strippedRanges: 0,
		promoted: false,
		observed: false,
		detectedGrammars: [],
		detectedRanges: 0,
		promotedCallIds: [],
		message,
	};
}

/** The `<think>…</think>` spans of a text part; an unclosed opener runs to the end, a lone closer covers what precedes it. */
export function thinkSpans(text: string): Array<{ start: number; end: number }> {
	if (!/think>/i.test(text)) return [];
	const lower = new CaselessText(text);
	const openers = allIndexesOf(lower, "<think>");
	const closers = allIndexesOf(lower, "</think>");
	const spans: Array<{ start: number; end: number }> = [];
	let o = 0;
	let c = 0;
	let pos = 0;
	if (closers.length > 0 && (openers.length === 0 || (closers[0] ?? 0) < (openers[0] ?? 0))) {
		const end = (closers[0] ?? 0) + "</think>".length;
		spans.push({ start: 0, end });
		pos = end;
	}
	while (o < openers.length) {
		const start = openers[o] ?? 0;
		if (start < pos) {
			o++;
			continue;
		}
		while (c < closers.length && (closers[c] ?? 0) < start) c++;
		const close = closers[c];
		const end = close === undefined ? text.length : close + "</think>".length;
		spans.push({ start, end });
		pos = end;
		o++;
	}
	return spans;
}

/**
 * True when the candidate overlaps one of the sorted, disjoint `spans`. Only
 * the last span starting before the candidate ends can reach it (every earlier
 * one ends earlier still), so one binary search answers it.
 */
function overlapsAny(candidate: GrammarCandidate, spans: ReadonlyArray<{ start: number; end: number }>): boolean {
	let low = 0;
	let high = spans.length;
	while (low < high) {
		const mid = (low + high) >>> 1;
		if ((spans[mid]?.start ?? 0) < candidate.end) low = mid + 1;
		else high = mid;
	}
	const last = spans[low - 1];
	return last !== undefined && last.end > candidate.start;
}

function promotedCallId(grammar: GrammarName, time: number, index: number): string {
	return `tool_repair_${grammar.replace(/[^A-Za-z0-9]/g, "_")}_${time.toString(36)}_${index}`;
}

/** `recoverGrammarLeaks` itself: see the file header. */
export function recoverGrammarLeaks(
	message: MinimalAssistantMessage,
	options: GrammarRecoveryOptions,
): GrammarRecoveryResult {
	try {
		return recoverOrThrow(message, options);
	} catch {
		return unchangedResult(message);
	}
}

function recoverOrThrow(message: MinimalAssistantMessage, options: GrammarRecoveryOptions): GrammarRecoveryResult {
	if (options.mode === "off" || message?.role !== "assistant" || !Array.isArray(message.content)) {
		return unchangedResult(message);
	}
	const knownTools = options.knownTools instanceof Set ? options.knownTools : new Set<string>();
	const requireKnownTool = options.requireKnownTool !== false;
	const stripUnknown = options.unknownToolText === "strip";
	const grammars = options.grammars ?? GRAMMAR_NAMES;
	const isAllowed = (name: string) => !requireKnownTool || (knownTools.size > 0 && knownTools.has(name));

	const existingToolCalls = message.content.filter(
		(part) => part !== null && typeof part === "object" && part.type === "toolCall" && typeof part.name === "string",
	);
	const detectedGrammars = new Set<GrammarName>();
	const strippedGrammars = new Set<GrammarName>();
	let detectedRanges = 0;
	let strippedRanges = 0;
	let changed = false;
	const collected: RecoveredToolCall[] = [];
	const content: Part[] = [];

	for (const part of message.content) {
		const field = scannableField(part);
		if (!field) {
			content.push(part);
			continue;
		}
		const partText = (part as Record<string, unknown>)[field] as string;
		const detected = detectGrammarLeaks(partText, grammars);
		if (detected.length === 0) {
			content.push(part);
			continue;
		}
		detectedRanges += detected.length;
		for (const candidate of detected) detectedGrammars.add(candidate.grammar);
		if (options.mode === "observe" || field === "thinking") {
			content.push(part);
			continue;
		}
		const spans = thinkSpans(partText);
		const kept = detected.filter(
			(candidate) =>
				!candidate.reasoning &&
				!overlapsAny(candidate, spans) &&
				(candidate.stripOnly === true || isAllowed(candidate.name) || stripUnknown),
		);
		if (kept.length === 0) {
			content.push(part);
			continue;
		}
		strippedRanges += kept.length;
		changed = true;
		for (const candidate of kept) {
			strippedGrammars.add(candidate.grammar);
			if (candidate.stripOnly || !isAllowed(candidate.name)) continue;
			if (Object.keys(candidate.arguments).length === 0) continue;
			const schema = options.toolSchemas?.get(candidate.name);
			const args =
				schema === undefined
					? candidate.arguments
					: typeArgumentsFromSchema(candidate.arguments, schema, candidate.rawArguments);
			collected.push({ name: candidate.name, arguments: args, grammar: candidate.grammar });
		}
		content.push({ ...part, [field]: removeRanges(partText, kept) });
	}

	const shouldRecover =
		options.mode === "recover" &&
		existingToolCalls.length === 0 &&
		collected.length > 0 &&
		message.stopReason === "stop";

	if (!changed && !shouldRecover) {
		const result = unchangedResult(message);
		if (detectedRanges > 0) {
			result.observed = true;
			result.detectedGrammars = [...detectedGrammars];
			result.detectedRanges = detectedRanges;
		}
		return result;
	}

	const recoveredCalls: RecoveredToolCall[] = [];
	const promotedCallIds: string[] = [];
	if (shouldRecover) {
		const time = (options.now ?? Date.now)();
		collected.forEach((call, index) => {
			const id = promotedCallId(call.grammar, time, index);
			promotedCallIds.push(id);
			recoveredCalls.push(call);
			content.push({ type: "toolCall", id, name: call.name, arguments: call.arguments });
		});
	}
	const next: MinimalAssistantMessage = { ...message, content };
	if (shouldRecover) next.stopReason = "toolUse";
	return {
		changed: true,
		recoveredCalls,
		strippedGrammars: [...strippedGrammars],
		strippedRanges,
		promoted: shouldRecover,
		observed: detectedRanges > 0,
		detectedGrammars: [...detectedGrammars],
		detectedRanges,
		promotedCallIds,
		message: next,
	};
}

/** The string field a part is scanned by: `text` of a text part, `thinking` of a thinking part. */
function scannableField(part: Part): "text" | "thinking" | undefined {
	if (part === null || typeof part !== "object") return undefined;
	if (part.type === "text" && typeof part.text === "string") return "text";
	if (part.type === "thinking" && typeof part.thinking === "string") return "thinking";
	return undefined;
}
