/**
 * Standalone value strips (extension-contract §3.3, with decisions §4.3):
 * leaked GLM grammar tokens and leaked regex anchors in tool-call values.
 *
 * - `stripGrammarTokenLeak` (GLM models): removes `<arg_key>`/`<arg_value>`
 *   at the start and `</arg_key>`/`</arg_value>` at the end of every key and
 *   string. Only the tokens go: a string without a leaked token is returned
 *   byte for byte (no trimming, trailing newline kept), and one with tokens
 *   loses exactly those tokens.
 * - `stripAnchorBleed` (kimi-k2, MiniMax, GLM): removes leading `^` and
 *   trailing `$` of string values, except the top-level fields listed in
 *   `ANCHOR_STRIP_SKIP` (`grep.pattern` is a regex: anchors are real there).
 *
 * Both strips repeat until nothing more comes off, so applying the function
 * twice gives the same result as once. The caller's value is never mutated:
 * a changed input comes back as a deep copy, an unchanged one as the same
 * reference. At runtime the same rules run as core preprocessors; this module
 * is the standalone form.
 */
import { RULE } from "../core/rule-ids.ts";

export const ANCHOR_BLEED_MODELS: readonly RegExp[] = [/kimi-k2/i, /minimax/i, /glm/i];
export const GRAMMAR_LEAK_MODELS: readonly RegExp[] = [/glm/i];
export const ANCHOR_STRIP_SKIP: Record<string, ReadonlySet<string>> = { grep: new Set(["pattern"]) };
export const STRIP_ANCHOR_RULE = RULE.stripAnchorBleed;
export const STRIP_GRAMMAR_RULE = RULE.stripGrammarTokenLeak;

export interface ValueStripResult {
	changed: boolean;
	rules: string[];
	notes: string[];
}

const LEADING_TOKENS = ["<arg_key>", "<arg_value>"] as const;
const TRAILING_TOKENS = ["</arg_key>", "</arg_value>"] as const;
/** Deeper trees are left alone: real tool arguments are nowhere near this. */
const MAX_DEPTH = 64;

function gateOpen(patterns: readonly RegExp[], modelId: string | undefined): boolean {
	return typeof modelId === "string" && modelId !== "" && patterns.some((p) => p.test(modelId));
}

/** Removes leaked grammar tokens from both ends until none is left. */
export function stripGrammarTokens(value: string): string {
	let s = value;
	let again = true;
	while (again) {
		again = false;
		for (const token of LEADING_TOKENS) {
			if (s.startsWith(token)) {
				s = s.slice(token.length);
				again = true;
			}
		}
		for (const token of TRAILING_TOKENS) {
			if (s.endsWith(token)) {
				s = s.slice(0, -token.length);
				again = true;
			}
		}
	}
	return s;
}

/** Removes every leading `^` and every trailing `$`. */
export function stripAnchors(value: string): string {
	let start = 0;
	let end = value.length;
	while (start < end && value.charCodeAt(start) === 94) start++;
	while (end > start && value.charCodeAt(end - 1) === 36) end--;
	return start === 0 && end === value.length ? value : value.slice(start, end);
}

interface Passes {
	grammar: boolean;
	anchor: boolean;
}

/** Which strips removed something. */
interface Fired {
	grammar: boolean;
	anchor: boolean;
}

/** Cleans one string: the enabled strips, repeated until stable. */
function cleanString(value: string, passes: Passes, fired: Fired): string {
	let current = value;
	for (;;) {
		let next = current;
		if (passes.grammar) {
			const stripped = stripGrammarTokens(next);
			if (stripped !== next) fired.grammar = true;
			next = stripped;
		}
		if (passes.anchor) {
			const stripped = stripAnchors(next);
			if (stripped !== next) fired.anchor = true;
			next = stripped;
		}
		if (next === current) return current;
		current = next;
	}
}

/** Copy-on-write clean of any value: unchanged subtrees keep their identity. */
function cleanValue(value: unknown, passes: Passes, fired: Fired, depth: number): unknown {
	if (typeof value === "string") return cleanString(value, passes, fired);
	if (depth > MAX_DEPTH || value === null || typeof value !== "object") return value;
	if (Array.isArray(value)) {
		let copy: unknown[] | undefined;
		value.forEach((item, i) => {
			const cleaned = cleanValue(item, passes, fired, depth + 1);
			if (cleaned !== item) {
				copy ??= [...value];
				copy[i] = cleaned;
			}
		});
		return copy ?? value;
	}
	return cleanObject(value as Record<string, unknown>, passes, fired, depth, undefined);
}

/** Cleans keys (grammar strip) and values; `anchorSkip` keys get the grammar strip only. */
function cleanObject(
	object: Record<string, unknown>,
	passes: Passes,
	fired: Fired,
	depth: number,
	anchorSkip: ReadonlySet<string> | undefined,
): Record<string, unknown> {
	const keyPasses: Passes = { grammar: passes.grammar, anchor: false };
	let changed = false;
	const kept: Array<[string, unknown]> = [];
	const renamed: Array<[string, unknown]> = [];
	for (const [key, value] of Object.entries(object)) {
		const cleanKey = cleanString(key, keyPasses, fired);
		const valuePasses = anchorSkip?.has(cleanKey) ? keyPasses : passes;
		const cleaned = cleanValue(value, valuePasses, fired, depth + 1);
		if (cleanKey !== key) {
			changed = true;
			renamed.push([cleanKey, cleaned]);
		} else {
			if (cleaned !== value) changed = true;
			kept.push([key, cleaned]);
		}
	}
	if (!changed) return object;
	// A renamed key moves to the end of key order and wins over a same-named original.
	const out: Record<string, unknown> = {};
	for (const [key, value] of kept) defineOwn(out, key, value);
	for (const [key, value] of renamed) {
		delete out[key];
		defineOwn(out, key, value);
	}
	return out;
}

function grammarNote(tool: string): string {
	return `Removed call-grammar marker tokens (<arg_key>/<arg_value>) from the keys or values of the ${tool} input. Those markers belong to the tool-call format, not to your data; send keys and values without them next time.`;
}

function anchorNote(tool: string): string {
	return `Removed regex anchors (^ at the start, $ at the end) from one or more string values of the ${tool} input. They had leaked in from the call grammar and were not part of the intended values.`;
}

/** Applies the model-gated strips to one tool input. */
export function stripValues(o: { toolName: string; input: unknown; modelId: string | undefined }): {
	input: unknown;
	result: ValueStripResult;
} {
	const unchanged = { input: o.input, result: { changed: false, rules: [], notes: [] } };
	const input = o.input;
	if (input === null || typeof input !== "object") return unchanged;
	const passes: Passes = {
		grammar: gateOpen(GRAMMAR_LEAK_MODELS, o.modelId),
		anchor: gateOpen(ANCHOR_BLEED_MODELS, o.modelId),
	};
	if (!passes.grammar && !passes.anchor) return unchanged;
	const fired: Fired = { grammar: false, anchor: false };
	const cleaned = Array.isArray(input)
		? cleanValue(input, passes, fired, 0)
		: cleanObject(input as Record<string, unknown>, passes, fired, 0, ANCHOR_STRIP_SKIP[o.toolName]);
	if (!fired.grammar && !fired.anchor) return unchanged;
	const rules: string[] = [];
	const notes: string[] = [];
	if (fired.grammar) {
		rules.push(STRIP_GRAMMAR_RULE);
		notes.push(grammarNote(o.toolName));
	}
	if (fired.anchor) {
		rules.push(STRIP_ANCHOR_RULE);
		notes.push(anchorNote(o.toolName));
	}
	return { input: deepCopy(cleaned), result: { changed: true, rules, notes } };
}

/** A deep copy so the result shares nothing with the caller's value. */
function deepCopy(value: unknown): unknown {
	try {
		return structuredClone(value);
	} catch {
		return value;
	}
}

/** Own enumerable property, also for `__proto__` (plain assignment would change the prototype). */
function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
	Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
