/**
 * The `recoverGrammarLeaks` driver.
 *
 * Per scannable part (`text`, `thinking`): detect, then — outside `observe` —
 * strip the kept ranges and collect the calls that may run. Promotion appends
 * real `toolCall` parts and turns `stopReason` into `"toolUse"` only when
 * every gate holds: mode `recover`, assistant role, original stop reason
 * `"stop"`, no real tool call present, an allowed tool name, at least one
 * argument key, not strip-only, not quoted (dropped at detection).
 *
 * Only the model's own calls act (`provenance.ts`): candidates in `thinking`
 * parts or reasoning spans are counted as detected and otherwise left alone;
 * quoted ones, echoes of the current turn's tool results or the user's
 * message (`options.echoSources`) and mentions inside a sentence are data,
 * neither counted, stripped nor promoted. Text never becomes code: no leak is
 * promoted into a script-running tool, and collapsed debris only into one of
 * pi's own built-ins (`targets.ts`).
 *
 * One message never runs the same call twice: a call with the same name and
 * arguments (key order aside) as one already promoted is stripped, not run;
 * past {@link MAX_PROMOTED_CALLS_PER_MESSAGE} promotions the rest are stripped
 * too. Stripping removes only sentinel-framed markup (`isSentinelFramed`); a
 * call written without a sentinel (bare JSON, a `name(arg=…)` line) leaves the
 * text only by becoming a call.
 *
 * Never throws and never mutates the input: an internal error is told to
 * `options.onContainedError` and the unchanged result returned; changed parts
 * and the message are shallow copies.
 */
import { stableSerialize } from "../core/stable-serialize.ts";
import { createEchoIndex, NO_ECHOES } from "./echo.ts";
import { detectGrammarLeaks } from "./parse.ts";
import { createProvenanceJudge, type Provenance } from "./provenance.ts";
import { removeRanges } from "./ranges.ts";
import { defineOwn, isPlainObject, mayHoldMarkup } from "./scan.ts";
import { typeArgumentsFromSchema } from "./schema-typing.ts";
import { isSentinelFramed } from "./select.ts";
import { mayReceiveLeak } from "./targets.ts";
import type {
	EchoIndex,
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

/**
 * The most calls one message may promote. A real turn seldom makes more than
 * a handful; text holding dozens of calls is more likely a pasted log than a
 * request, and each promoted call runs with the user's permissions.
 */
export const MAX_PROMOTED_CALLS_PER_MESSAGE = 16;

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
	} catch (error) {
		options?.onContainedError?.("grammar:recover", error);
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
	const canPromote = options.mode === "recover" && existingToolCalls.length === 0 && message.stopReason === "stop";
	const detectedGrammars = new Set<GrammarName>();
	const strippedGrammars = new Set<GrammarName>();
	let detectedRanges = 0;
	let strippedRanges = 0;
	let changed = false;
	const collected: RecoveredToolCall[] = [];
	const promotedKeys = new Set<string>();
	const echoes = options.echoSources === undefined ? NO_ECHOES : createEchoIndex(options.echoSources);
	const content: Part[] = [];

	for (const part of message.content) {
		const field = scannableField(part);
		if (!field) {
			content.push(part);
			continue;
		}
		const partText = (part as Record<string, unknown>)[field] as string;
		// Only the model's own calls and its reasoning count as leaks; quoted text, echoes and mentions are data.
		const judged = judgeLeaks(partText, field, grammars, echoes);
		const detected = judged.filter(({ who }) => who === "call" || who === "reasoning");
		if (detected.length === 0) {
			content.push(part);
			continue;
		}
		detectedRanges += detected.length;
		for (const { candidate } of detected) detectedGrammars.add(candidate.grammar);
		if (options.mode === "observe" || field === "thinking") {
			content.push(part);
			continue;
		}
		const kept = detected
			.filter(({ who }) => who === "call")
			.map(({ candidate }) => candidate)
			.filter((candidate) => candidate.stripOnly === true || isAllowed(candidate.name) || stripUnknown);
		const removed: Array<{ start: number; end: number }> = [];
		for (const candidate of kept) {
			const promoted = canPromote && promote(candidate);
			if (!promoted && !isSentinelFramed(partText, candidate)) continue;
			removed.push(...(promoted || candidate.markers === undefined ? [candidate] : candidate.markers));
			strippedGrammars.add(candidate.grammar);
		}
		if (removed.length === 0) {
			content.push(part);
			continue;
		}
		strippedRanges += removed.length;
		changed = true;
		content.push({ ...part, [field]: removeRanges(partText, removed) });
	}

	/** Collects the candidate's call when it may run and is new to this message; true when it was collected. */
	function promote(candidate: GrammarCandidate): boolean {
		if (!isAllowed(candidate.name)) return false;
		const schema = options.toolSchemas?.get(candidate.name);
		if (!mayReceiveLeak(candidate, schema, options.debrisTools)) return false;
		const written = candidate.stripOnly ? soleFieldArguments(candidate.soleValue, schema) : candidate.arguments;
		if (written === undefined || Object.keys(written).length === 0) return false;
		const args = schema === undefined ? written : typeArgumentsFromSchema(written, schema, candidate.rawArguments);
		// Nested elements the schema cannot type unambiguously are not a call.
		if (args === undefined) return false;
		const key = `${candidate.name}\u0000${stableSerialize(args)}`;
		if (promotedKeys.has(key)) return false;
		if (collected.length >= MAX_PROMOTED_CALLS_PER_MESSAGE) return false;
		promotedKeys.add(key);
		collected.push({ name: candidate.name, arguments: args, grammar: candidate.grammar });
		return true;
	}

	const shouldRecover = canPromote && collected.length > 0;

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

/** A leak found in a part, with who said it (the provenance rule). */
export interface JudgedLeak {
	candidate: GrammarCandidate;
	who: Provenance;
}

/**
 * Every leak of one part's text, each judged by the one provenance rule: a
 * `thinking` part is reasoning throughout, and a debris candidate whose tags
 * touch quoted text is quoted. Shared by promotion and the split-call merge.
 */
export function judgeLeaks(
	text: string,
	field: "text" | "thinking",
	grammars: Iterable<GrammarName>,
	echoes: EchoIndex,
): JudgedLeak[] {
	const found = detectGrammarLeaks(text, grammars);
	const judge = createProvenanceJudge(text, echoes, found);
	return found.map((candidate) => ({
		candidate,
		who:
			field === "thinking"
				? "reasoning"
				: candidate.markers?.some((marker) => judge.touchesQuote(marker.start, marker.end))
					? "quoted"
					: judge.of(candidate),
	}));
}

/**
 * The arguments of a strip-only candidate that holds one value: the value
 * under the tool's one required field, when that field is a string named like
 * the value's parameter (when one was written) and every other field is
 * optional (DeepSeek V4.1 writes `bash`'s `command` this way; `timeout` may be
 * left out). A tool with no required field qualifies only with a single
 * field. Undefined otherwise: with two required fields, or none known, the
 * value could go elsewhere.
 */
function soleFieldArguments(sole: GrammarCandidate["soleValue"], schema: unknown): Record<string, unknown> | undefined {
	if (sole === undefined || !isPlainObject(schema) || !isPlainObject(schema.properties)) return undefined;
	const field = soleRequiredField(schema.properties, schema.required);
	if (field === undefined || (sole.key !== undefined && sole.key !== field)) return undefined;
	const property = schema.properties[field];
	if (!isPlainObject(property) || property.type !== "string") return undefined;
	const args: Record<string, unknown> = {};
	defineOwn(args, field, sole.value);
	return args;
}

/** The one field a lone value can belong to: the only required one, or the only one when none is required. */
function soleRequiredField(properties: Record<string, unknown>, required: unknown): string | undefined {
	const fields = Object.keys(properties);
	const named = Array.isArray(required) ? required.filter((key): key is string => typeof key === "string") : [];
	if (named.length === 0) return fields.length === 1 ? fields[0] : undefined;
	const [field] = named;
	return named.length === 1 && field !== undefined && Object.hasOwn(properties, field) ? field : undefined;
}

/** The string field a part is scanned by: `text` of a text part, `thinking` of a thinking part. */
export function scannableField(part: Part): "text" | "thinking" | undefined {
	if (part === null || typeof part !== "object") return undefined;
	if (part.type === "text" && typeof part.text === "string") return "text";
	if (part.type === "thinking" && typeof part.thinking === "string") return "thinking";
	return undefined;
}

/** Whether a part may hold leaked markup: only a text or thinking part whose text is not plain ({@link mayHoldMarkup}). */
export function mayHoldLeak(part: Part): boolean {
	const field = scannableField(part);
	return field !== undefined && mayHoldMarkup(String(part[field]));
}
