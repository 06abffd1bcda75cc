/**
 * The shared scanning helpers every grammar family builds on, one concern per
 * file under `scan/`: character classes, cursor helpers, caseless search,
 * bracket matching, JSON calls, pythonic calls and markup. Everything walks
 * forward with an index; there is no regular expression over unbounded input.
 */

export { defineOwn } from "../core/clone.ts";
export { isPlainObject } from "../core/envelope.ts";

import { tryParse } from "../core/json-text.ts";

/**
 * The older names `schema-typing.ts` imports, kept until it moves to the
 * core's `defineOwn` and `tryParse` (it is maintained apart from this folder).
 */
export { defineOwn as setOwn } from "../core/clone.ts";
export * from "./scan/brackets.ts";
export * from "./scan/caseless.ts";
export * from "./scan/chars.ts";
export * from "./scan/cursor.ts";
export * from "./scan/json-calls.ts";
export * from "./scan/markup.ts";
export * from "./scan/pythonic.ts";
export { tryParse };

/** `tryParse` with success spelled out: `{ ok: false }` when the text is not JSON. */
export function tryParseJson(text: string): { ok: true; value: unknown } | { ok: false } {
	const value = tryParse(text);
	return value === undefined ? { ok: false } : { ok: true, value };
}
