/**
 * Key-order-insensitive serialization, used to recognise the same arguments
 * again (lifecycle keys, owner-shim change detection).
 */
import { defineOwn } from "./clone.ts";

/**
 * JSON text of `value` with every object's own enumerable keys sorted by
 * `localeCompare`. Falls back to `String(value)` when there is no JSON form
 * (`undefined`, functions) or serialization fails (cycles, BigInt).
 */
export function stableSerialize(value: unknown): string {
	try {
		const text = JSON.stringify(normalize(value, new Set<object>()));
		return text === undefined ? String(value) : text;
	} catch {
		return String(value);
	}
}

function normalize(value: unknown, ancestors: Set<object>): unknown {
	if (typeof value !== "object" || value === null) {
		return value;
	}
	if (ancestors.has(value)) {
		throw new TypeError("stableSerialize: cyclic value");
	}
	ancestors.add(value);
	try {
		if (Array.isArray(value)) {
			return value.map((item: unknown) => normalize(item, ancestors));
		}
		const sorted: Record<string, unknown> = {};
		for (const key of Object.keys(value).sort((a, b) => a.localeCompare(b))) {
			defineOwn(sorted, key, normalize((value as Record<string, unknown>)[key], ancestors));
		}
		return sorted;
	} finally {
		ancestors.delete(value);
	}
}
