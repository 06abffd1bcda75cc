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
import { tryParse, unframedObjectText } from "./json-text.ts";
import { resolveLimits } from "./limits.ts";
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

/** A non-null, non-array object whose prototype is `Object.prototype` or `null`. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
	if (typeof value !== "object" || value === null || Array.isArray(value)) {
		return false;
	}
	const prototype: unknown = Object.getPrototypeOf(value);
	return prototype === Object.prototype || prototype === null;
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
		const parsed = tryParse(escaped);
		if (parsed === undefined) {
			break;
		}
		changes.push({ ruleId: RULE.decodeJson, stage: "envelope", note: decodeNote });
		if (attempts === 1 && escaped !== value) {
			changes.push({ ruleId: RULE.escapeControlCharacter, stage: "envelope", note: ESCAPE_NOTE });
		}
		value = parsed;
	}

	// Exactly one fence or quoting layer around a complete object is framing, not an argument value.
	const framed = typeof value === "string" ? unframedObjectText(value) : undefined;
	if (framed !== undefined) {
		const parsed = tryParse(escapeJsonStringControlCharacters(framed));
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
	const parsed = tryParse(escapeJsonStringControlCharacters(text + suffix));
	if (!isPlainObject(parsed) || nestingDepth(parsed, limits.maxNestingDepth) > limits.maxNestingDepth) {
		return undefined;
	}
	return parsed;
}

/** True when `input` is within the size and depth bounds of the envelope stage. */
export function withinEnvelopeLimits(input: unknown, overrides: RepairPipelineLimits): boolean {
	return withinLimits(input, resolveLimits(overrides));
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

/**
 * Maximum depth of `value` (root 0, every array element or property value one
 * deeper). An object reached twice, a cycle or a shared sub-object, counts as
 * over the limit. Stops as soon as `limit` is exceeded.
 */
function nestingDepth(value: unknown, limit: number): number {
	const seen = new Set<object>();
	const over = limit + 1;
	const walk = (node: unknown, depth: number): number => {
		if (depth > limit) {
			return depth;
		}
		if (typeof node !== "object" || node === null) {
			return depth;
		}
		if (seen.has(node)) {
			return over;
		}
		seen.add(node);
		let deepest = depth;
		const children: readonly unknown[] = Array.isArray(node)
			? node
			: Object.keys(node).map((key) => (node as Record<string, unknown>)[key]);
		for (const child of children) {
			deepest = Math.max(deepest, walk(child, depth + 1));
			if (deepest > limit) {
				return deepest;
			}
		}
		return deepest;
	};
	return walk(value, 0);
}

/**
 * The UTF-8 size used by the size bound: a string's own bytes, anything else
 * the bytes of its `JSON.stringify` text. Counting stops once `budget` is
 * exceeded, so an oversized input costs nothing to reject; values that cannot
 * be stringified (cycles, BigInt) are infinitely large.
 */
export function measureBytes(value: unknown, budget: number): number {
	if (typeof value === "string") {
		return utf8Length(value, budget);
	}
	return countJsonBytes(value, budget, false);
}

/**
 * An upper bound of `measureBytes` for non-string values that reads only
 * string lengths: no JSON string literal takes more than 6 bytes per UTF-16
 * unit plus its quotes.
 */
export function upperBoundBytes(value: unknown, budget: number): number {
	return countJsonBytes(value, budget, true);
}

function countJsonBytes(value: unknown, budget: number, upperBound: boolean): number {
	const counter = new JsonByteCounter(budget, upperBound);
	try {
		counter.root(value);
	} catch (error) {
		if (error === EXCEEDED) {
			return Number.POSITIVE_INFINITY;
		}
		if (error === NEEDS_STRINGIFY) {
			return stringifiedBytes(value, budget);
		}
		throw error;
	}
	return counter.total;
}

const EXCEEDED: unique symbol = Symbol("exceeded");
const NEEDS_STRINGIFY: unique symbol = Symbol("needs-stringify");

/**
 * Counts the bytes `JSON.stringify` would produce for JSON-domain values
 * without building the text. Anything with its own serialization (`toJSON`)
 * is handed back to the real `JSON.stringify`.
 */
class JsonByteCounter {
	total = 0;
	private readonly budget: number;
	private readonly upperBound: boolean;
	private readonly ancestors = new Set<object>();

	constructor(budget: number, upperBound: boolean) {
		this.budget = budget;
		this.upperBound = upperBound;
	}

	private stringBytes(text: string): number {
		return this.upperBound ? text.length * 6 + 2 : jsonStringBytes(text, this.budget - this.total);
	}

	root(value: unknown): void {
		if (value === undefined || typeof value === "function" || typeof value === "symbol") {
			return;
		}
		this.value(value);
	}

	private add(bytes: number): void {
		this.total += bytes;
		if (this.total > this.budget) {
			throw EXCEEDED;
		}
	}

	private value(value: unknown): void {
		switch (typeof value) {
			case "string":
				this.add(this.stringBytes(value));
				return;
			case "number":
				this.add(Number.isFinite(value) ? String(value).length : 4);
				return;
			case "boolean":
				this.add(value ? 4 : 5);
				return;
			case "bigint":
				throw EXCEEDED;
			case "object":
				if (value === null) {
					this.add(4);
					return;
				}
				this.container(value);
				return;
			case "undefined":
			case "function":
			case "symbol":
				this.add(4); // inside an array these become `null`
		}
	}

	private container(node: object): void {
		if (typeof (node as { toJSON?: unknown }).toJSON === "function") {
			throw NEEDS_STRINGIFY;
		}
		if (this.ancestors.has(node)) {
			throw EXCEEDED;
		}
		this.ancestors.add(node);
		if (Array.isArray(node)) {
			this.add(2 + Math.max(0, node.length - 1));
			for (const element of node) {
				this.value(element);
			}
		} else {
			this.add(2);
			let first = true;
			for (const key of Object.keys(node)) {
				const child = (node as Record<string, unknown>)[key];
				if (child === undefined || typeof child === "function" || typeof child === "symbol") {
					continue;
				}
				this.add((first ? 0 : 1) + this.stringBytes(key) + 1);
				first = false;
				this.value(child);
			}
		}
		this.ancestors.delete(node);
	}
}

function stringifiedBytes(value: unknown, budget: number): number {
	let text: string | undefined;
	try {
		text = JSON.stringify(value);
	} catch {
		return Number.POSITIVE_INFINITY;
	}
	return text === undefined ? 0 : utf8Length(text, budget);
}

/** UTF-8 bytes of `text` (lone surrogates count as the 3-byte replacement character); stops past `budget`. */
function utf8Length(text: string, budget: number): number {
	if (text.length > budget) {
		return text.length;
	}
	let bytes = 0;
	for (let index = 0; index < text.length; index++) {
		const code = text.charCodeAt(index);
		if (code < 0x80) {
			bytes += 1;
		} else if (code < 0x800) {
			bytes += 2;
		} else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
			bytes += 4;
			index++;
		} else {
			bytes += 3;
		}
		if (bytes > budget) {
			return bytes;
		}
	}
	return bytes;
}

/** UTF-8 bytes of the JSON string literal for `text`, quotes and escapes included; stops past `budget`. */
function jsonStringBytes(text: string, budget: number): number {
	if (text.length + 2 > budget) {
		return text.length + 2;
	}
	let bytes = 2;
	for (let index = 0; index < text.length; index++) {
		const code = text.charCodeAt(index);
		if (code === 0x22 || code === 0x5c || code === 0x08 || code === 0x0c || code === 0x0a || code === 0x0d) {
			bytes += 2;
		} else if (code === 0x09) {
			bytes += 2;
		} else if (code < 0x20) {
			bytes += 6;
		} else if (code < 0x80) {
			bytes += 1;
		} else if (code < 0x800) {
			bytes += 2;
		} else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
			bytes += 4;
			index++;
		} else if (code >= 0xd800 && code <= 0xdfff) {
			bytes += 6; // a lone surrogate is written as a \uXXXX escape
		} else {
			bytes += 3;
		}
		if (bytes > budget) {
			return bytes;
		}
	}
	return bytes;
}

function isLowSurrogate(code: number): boolean {
	return code >= 0xdc00 && code <= 0xdfff;
}
