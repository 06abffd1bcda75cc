/**
 * Stage 1: envelope recovery.
 *
 * Turns an argument envelope that is not yet an object (a JSON-encoded string,
 * possibly encoded more than once; one markdown fence or quoting layer around
 * the object; a one-element array around the object; JSON text with raw
 * control characters inside its strings) into the object,
 * recording one change per step. Bounded by the envelope limits before any
 * work is done. When no object comes out, every decode is discarded and the
 * only offer left is a truncation candidate (see `truncation.ts`), which the
 * pipeline accepts only if it survives the whole downstream pipeline.
 */
import { cloneJson } from "./clone.ts";
import { unframedObjectText } from "./json-text.ts";
import { isPlainObject, measureBytes, nestingDepth, parseModelJson, upperBoundBytes } from "./json-value.ts";
import { resolveLimits } from "./limits.ts";
import { parseRelaxedJson } from "./relaxed-json.ts";
import { RULE } from "./rule-ids.ts";
import { completionSuffix } from "./truncation.ts";
import type { EnvelopeLimits, EnvelopeRecoveryResult, RepairChange, RepairPipelineLimits } from "./types.ts";

const DECODE_NOTE =
	"The argument envelope was itself a JSON-encoded string and has been decoded. Send the argument object itself, not an encoded string, in future calls.";
const ESCAPE_NOTE =
	"Raw control characters inside string literals of the argument JSON were escaped before it was parsed.";
const UNWRAP_NOTE =
	"The arguments arrived as an array holding a single object; that object was taken out and used as the arguments.";
const UNFRAME_NOTE =
	"The argument object arrived inside a markdown code fence or a pair of quotes; that framing was removed. Send the bare JSON object in future calls.";
const TRUNCATED_NOTE =
	"The argument JSON was cut off before its end. It was closed, and the closed object was accepted only because it satisfied the tool's schema.";

/**
 * The note of `envelope.decode-json` as it appears in pipeline results, and of
 * the engine's `parseJsonStringifiedRootObject`: one text for both, naming the tool.
 */
export function decodeJsonNoteFor(toolName: string): string {
	return `The arguments for ${toolName} arrived as a JSON-stringified string and have been parsed. In future calls pass a JSON object, not a string.`;
}

/** The change recorded when a truncation candidate is accepted. */
export function truncatedEnvelopeChange(): RepairChange {
	return { ruleId: RULE.completeTruncatedObject, stage: "envelope", note: TRUNCATED_NOTE };
}

/**
 * Replaces every code point below U+0020 inside a JSON string literal by its
 * `\u00xx` escape. Text between tokens is left alone, the code point after a
 * backslash is copied as is, and an unterminated string escapes to the end.
 * Returns the same string when nothing needed escaping.
 */
export function escapeJsonStringControlCharacters(text: string): string {
	let output: string | undefined;
	let copiedUpTo = 0;
	let inString = false;
	for (let index = 0; index < text.length; index++) {
		const code = text.charCodeAt(index);
		if (!inString) {
			if (code === 0x22) {
				inString = true;
			}
			continue;
		}
		if (code === 0x5c) {
			index++;
			continue;
		}
		if (code === 0x22) {
			inString = false;
			continue;
		}
		if (code < 0x20) {
			output = `${output ?? ""}${text.slice(copiedUpTo, index)}\\u${code.toString(16).padStart(4, "0")}`;
			copiedUpTo = index + 1;
		}
	}
	return output === undefined ? text : output + text.slice(copiedUpTo);
}

/**
 * Recovers an object from the argument envelope; see the file header. The
 * caller's input is never mutated: an object input is worked on as a copy.
 */
export function recoverEnvelope(
	input: unknown,
	overrides: RepairPipelineLimits = {},
	toolName?: string,
): EnvelopeRecoveryResult {
	// Named for the tool when the caller knows it, so the model reads which call was decoded.
	const decodeNote = toolName === undefined ? DECODE_NOTE : decodeJsonNoteFor(toolName);
	const limits = resolveLimits(overrides);
	if (!withinLimits(input, limits)) {
		return limitedResult(input);
	}
	const startedAt = performance.now();
	const elapsed = (): number => performance.now() - startedAt;
	const changes: RepairChange[] = [];
	let value: unknown = typeof input === "string" ? input : cloneJson(input);

	let attempts = 0;
	while (typeof value === "string" && attempts < limits.maxDecodeAttempts && elapsed() <= limits.maxWorkMs) {
		attempts++;
		const escaped = escapeJsonStringControlCharacters(value);
		const parsed = parseModelJson(escaped);
		if (parsed === undefined) {
			break;
		}
		changes.push({ ruleId: RULE.decodeJson, stage: "envelope", note: decodeNote });
		if (attempts === 1 && escaped !== value) {
			changes.push({ ruleId: RULE.escapeControlCharacter, stage: "envelope", note: ESCAPE_NOTE });
		}
		value = parsed;
	}

	// Trailing commas, end tokens, doubled braces and Python literals, when nothing else is wrong with the text.
	const relaxed = typeof value === "string" ? parseRelaxedJson(value) : undefined;
	if (relaxed !== undefined) {
		for (const change of relaxed.changes) changes.push(change);
		value = relaxed.value;
	}

	// Exactly one fence or quoting layer around a complete object is framing, not an argument value.
	const framed = typeof value === "string" ? unframedObjectText(value) : undefined;
	if (framed !== undefined) {
		const parsed = parseModelJson(escapeJsonStringControlCharacters(framed));
		if (isPlainObject(parsed)) {
			changes.push({ ruleId: RULE.unwrapFramedJson, stage: "envelope", note: UNFRAME_NOTE });
			value = parsed;
		}
	}

	if (Array.isArray(value) && value.length === 1 && isPlainObject(value[0])) {
		value = value[0];
		changes.push({ ruleId: RULE.unwrapSingletonObjectArray, stage: "envelope", note: UNWRAP_NOTE });
	}

	if (isPlainObject(value)) {
		if (nestingDepth(value, limits.maxNestingDepth) > limits.maxNestingDepth) {
			return limitedResult(input);
		}
		return { value, changes, candidates: [], limited: false };
	}

	const candidates: unknown[] = [];
	if (typeof input === "string" && limits.maxCandidates > 0 && elapsed() <= limits.maxWorkMs) {
		const candidate = truncationCandidate(input, limits);
		if (candidate !== undefined) {
			candidates.push(candidate);
		}
	}
	return { value: input, changes: [], candidates, limited: false };
}

function limitedResult(input: unknown): EnvelopeRecoveryResult {
	return { value: input, changes: [], candidates: [], limited: true };
}

/** The single completion of a cut-off object text, kept only if it parses to a plain object within the depth bound. */
function truncationCandidate(text: string, limits: EnvelopeLimits): Record<string, unknown> | undefined {
	const suffix = completionSuffix(text);
	if (suffix === undefined) {
		return undefined;
	}
	const parsed = parseModelJson(escapeJsonStringControlCharacters(text + suffix));
	if (!isPlainObject(parsed) || nestingDepth(parsed, limits.maxNestingDepth) > limits.maxNestingDepth) {
		return undefined;
	}
	return parsed;
}

function withinLimits(input: unknown, limits: EnvelopeLimits): boolean {
	// Depth first: its walk is bounded by the limit, so the byte count never recurses deeper than that.
	if (nestingDepth(input, limits.maxNestingDepth) > limits.maxNestingDepth) {
		return false;
	}
	// A cheap upper bound settles most inputs without reading their strings.
	if (typeof input !== "string" && upperBoundBytes(input, limits.maxInputBytes) <= limits.maxInputBytes) {
		return true;
	}
	return measureBytes(input, limits.maxInputBytes) <= limits.maxInputBytes;
}
