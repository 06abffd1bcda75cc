/**
 * The shared scanning helpers every grammar family builds on, one concern per
 * file under `scan/`: character classes, cursor helpers, caseless search,
 * bracket matching, JSON calls, pythonic calls and markup. Everything walks
 * forward with an index; there is no regular expression over unbounded input.
 * JSON parsing, the plain-object test and `__proto__`-safe property sets are
 * the core's, so a value reads the same in a leaked call as in a real one.
 */
import { defineOwn } from "../core/clone.ts";
import { tryParse } from "../core/json-text.ts";

export { isPlainObject } from "../core/envelope.ts";
export * from "./scan/brackets.ts";
export * from "./scan/caseless.ts";
export * from "./scan/chars.ts";
export * from "./scan/cursor.ts";
export * from "./scan/json-calls.ts";
export * from "./scan/markup.ts";
export * from "./scan/pythonic.ts";
export { defineOwn, tryParse };

// The two older names below are what `schema-typing.ts` imports; they go when it moves to `defineOwn` and `tryParse`.

/** `defineOwn` under its older name. */
export const setOwn = defineOwn;

/** `tryParse` with success spelled out: `{ ok: false }` when the text is not JSON. */
export function tryParseJson(text: string): { ok: true; value: unknown } | { ok: false } {
	const value = tryParse(text);
	return value === undefined ? { ok: false } : { ok: true, value };
}
