/**
 * The one home of the small JSON-value helpers every stage shares: the
 * record and plain-object tests, the `__proto__`-safe own-property set and
 * one-level copy, the parse that answers `undefined` instead of throwing, and
 * the size and depth measurement of the envelope bounds. A stage that needs
 * one of these imports it from here; none keeps its own copy.
 */

/** A non-null object that is not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
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
 * Sets `key` as an own enumerable data property. Plain assignment would route
 * `__proto__` through the prototype setter; defining the property never does.
 */
export function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
	if (key === "__proto__") {
		Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
	} else {
		target[key] = value;
	}
}

/**
 * A one-level copy of a record's own enumerable keys, `__proto__` kept inert;
 * a record without a prototype stays without one.
 */
export function shallowCopyRecord(value: Record<string, unknown>): Record<string, unknown> {
	const out: Record<string, unknown> = Object.getPrototypeOf(value) === null ? Object.create(null) : {};
	for (const key of Object.keys(value)) defineOwn(out, key, value[key]);
	return out;
}

/** `JSON.stringify(value)`, or `undefined` when it throws (a cycle, a BigInt, a throwing `toJSON`). */
export function tryStringify(value: unknown): string | undefined {
	try {
		return JSON.stringify(value);
	} catch {
		return undefined;
	}
}

/** The JSON value of `text`, or `undefined` when it does not parse (no JSON text parses to `undefined`). */
export function tryParse(text: string): unknown {
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return undefined;
	}
}

/**
 * The JSON value of text a model wrote, or `undefined` when it does not parse
 * or when an object in it gives one key twice: `JSON.parse` keeps the last
 * value, which is a guess at what the model meant (`{"command": "ls",
 * "command": "rm -rf ~"}` would run the second).
 */
export function parseModelJson(text: string): unknown {
	const value = tryParse(text);
	return typeof value === "object" && value !== null && repeatsKey(text) ? undefined : value;
}

/**
 * True when `text` is JSON that {@link parseModelJson} refuses only because
 * an object in it gives a key twice: a value written so is ambiguous, not
 * text, and a reader that keeps unreadable values as text must not keep it.
 */
export function repeatsKeyInJson(text: string): boolean {
	const value = tryParse(text);
	return typeof value === "object" && value !== null && repeatsKey(text);
}

/** The character codes JSON text is read by, shared by every scan of it in the core. */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;

/**
 * True when an object in `text`, which must be JSON that `JSON.parse`
 * accepts, gives one key twice. Keys are compared as `JSON.parse` reads them,
 * so `"a"` and `"\u0061"` are one key. One pass; each open object keeps the
 * set of its keys.
 */
function repeatsKey(text: string): boolean {
	// An object's key set, or `undefined` for an array.
	const open: Array<Set<string> | undefined> = [];
	let atKey = false;
	for (let index = 0; index < text.length; index++) {
		const code = text.charCodeAt(index);
		if (code === QUOTE) {
			const end = afterString(text, index);
			if (atKey) {
				const literal = text.slice(index, end);
				const key = literal.includes("\\") ? (JSON.parse(literal) as string) : literal.slice(1, -1);
				const keys = open[open.length - 1];
				if (keys?.has(key) === true) return true;
				keys?.add(key);
				atKey = false;
			}
			index = end - 1;
		} else if (code === OPEN_BRACE) {
			open.push(new Set());
			atKey = true;
		} else if (code === OPEN_BRACKET) {
			open.push(undefined);
			atKey = false;
		} else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
			open.pop();
			atKey = false;
		} else if (code === COMMA) {
			atKey = open[open.length - 1] !== undefined;
		}
	}
	return false;
}

/** The index just past the JSON string literal that opens at `start` (its end of text when it never closes). */
export function afterString(text: string, start: number): number {
	let index = start + 1;
	while (index < text.length) {
		const code = text.charCodeAt(index);
		if (code === BACKSLASH) index += 2;
		else if (code === QUOTE) return index + 1;
		else index++;
	}
	return text.length;
}

/**
 * Maximum depth of `value` (root 0, every array element or property value one
 * deeper). An object reached twice, a cycle or a shared sub-object, counts as
 * over the limit. Stops as soon as `limit` is exceeded.
 */
export function nestingDepth(value: unknown, limit: number): number {
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
	return textBytes(text, budget, false);
}

/** UTF-8 bytes of the JSON string literal for `text`, quotes and escapes included; stops past `budget`. */
function jsonStringBytes(text: string, budget: number): number {
	return textBytes(text, budget, true);
}

const BACKSPACE = 0x08;
const FORM_FEED = 0x0c;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const TAB = 0x09;

/** One scan for both counts: as a JSON literal, quotes, escapes and `\uXXXX` lone surrogates add their bytes. */
function textBytes(text: string, budget: number, asJsonLiteral: boolean): number {
	const quotes = asJsonLiteral ? 2 : 0;
	if (text.length + quotes > budget) {
		return text.length + quotes;
	}
	let bytes = quotes;
	for (let index = 0; index < text.length; index++) {
		const code = text.charCodeAt(index);
		if (asJsonLiteral && code < 0x20) {
			const short =
				code === BACKSPACE || code === FORM_FEED || code === LINE_FEED || code === CARRIAGE_RETURN || code === TAB;
			bytes += short ? 2 : 6;
		} else if (asJsonLiteral && (code === QUOTE || code === BACKSLASH)) {
			bytes += 2;
		} else if (code < 0x80) {
			bytes += 1;
		} else if (code < 0x800) {
			bytes += 2;
		} else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
			bytes += 4;
			index++;
		} else if (asJsonLiteral && code >= 0xd800 && code <= 0xdfff) {
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
