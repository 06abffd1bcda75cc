/**
 * Deep copy and structural equality for JSON-domain values.
 *
 * Owns the one cloning primitive the pipeline uses. Strings and other
 * primitives are shared by reference (they are immutable), so copying a
 * record that holds a large `content` string costs only the containers.
 * An own `__proto__` key is kept as an inert data property: a copy must never
 * acquire a prototype chosen by model output.
 */
import { defineOwn } from "./json-value.ts";

/**
 * Deep-copies arrays and records; primitives are returned as they are.
 *
 * Throws a `TypeError` on functions, symbols and cycles, the values
 * `structuredClone` would also refuse. Shared (acyclic) references are copied
 * once per occurrence.
 */
export function cloneJson<T>(value: T): T {
	return copyValue(value, new Set<object>(), false) as T;
}

/**
 * The same copy with every record's keys in `localeCompare` order, for a
 * key-order-insensitive serialization; functions and symbols are kept for
 * `JSON.stringify` to drop as it always does.
 */
export function cloneJsonSorted(value: unknown): unknown {
	return copyValue(value, new Set<object>(), true);
}

function copyValue(value: unknown, ancestors: Set<object>, sorted: boolean): unknown {
	if (typeof value === "function" || typeof value === "symbol") {
		if (sorted) return value;
		throw new TypeError(`cloneJson: ${typeof value}s cannot be cloned`);
	}
	if (typeof value !== "object" || value === null) {
		return value;
	}
	if (ancestors.has(value)) {
		throw new TypeError("cloneJson: cyclic structures cannot be cloned");
	}
	ancestors.add(value);
	try {
		if (Array.isArray(value)) {
			const out: unknown[] = new Array(value.length);
			for (let index = 0; index < value.length; index++) {
				out[index] = copyValue(value[index], ancestors, sorted);
			}
			return out;
		}
		const out: Record<string, unknown> = {};
		const keys = Object.keys(value);
		if (sorted) keys.sort((a, b) => a.localeCompare(b));
		for (const key of keys) {
			defineOwn(out, key, copyValue((value as Record<string, unknown>)[key], ancestors, sorted));
		}
		return out;
	} finally {
		ancestors.delete(value);
	}
}

/**
 * Deep structural equality for JSON-domain values. Exits at the first
 * difference and allocates nothing; key order does not matter.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
	if (a === b) {
		return true;
	}
	if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
		return false;
	}
	const aIsArray = Array.isArray(a);
	if (aIsArray !== Array.isArray(b)) {
		return false;
	}
	if (aIsArray) {
		const left = a as unknown[];
		const right = b as unknown[];
		if (left.length !== right.length) {
			return false;
		}
		for (let index = 0; index < left.length; index++) {
			if (!jsonEqual(left[index], right[index])) {
				return false;
			}
		}
		return true;
	}
	const left = a as Record<string, unknown>;
	const right = b as Record<string, unknown>;
	let leftCount = 0;
	for (const key in left) {
		if (!Object.hasOwn(left, key)) {
			continue;
		}
		leftCount++;
		if (!Object.hasOwn(right, key) || !jsonEqual(left[key], right[key])) {
			return false;
		}
	}
	let rightCount = 0;
	for (const key in right) {
		if (Object.hasOwn(right, key)) {
			rightCount++;
		}
	}
	return leftCount === rightCount;
}
