/**
 * The shared scanning helpers every grammar family builds on, one concern per
 * file under `scan/`: character classes, cursor helpers, caseless search,
 * bracket matching, JSON calls, pythonic calls and markup. Everything walks
 * forward with an index; there is no regular expression over unbounded input.
 * JSON parsing, the plain-object test and `__proto__`-safe property sets are
 * the core's, so a value reads the same in a leaked call as in a real one.
 */
export { defineOwn, isPlainObject, parseModelJson } from "../core/json-value.ts";
export * from "./scan/brackets.ts";
export * from "./scan/caseless.ts";
export * from "./scan/chars.ts";
export * from "./scan/cursor.ts";
export * from "./scan/json-calls.ts";
export * from "./scan/markup.ts";
export * from "./scan/pythonic.ts";
