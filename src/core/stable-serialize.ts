/**
 * Key-order-insensitive serialization, used to recognise the same arguments
 * again (lifecycle keys, owner-shim change detection).
 */
import { cloneJsonSorted } from "./clone.ts";

/**
 * JSON text of `value` with every object's own enumerable keys sorted by
 * `localeCompare`. Falls back to `String(value)` when there is no JSON form
 * (`undefined`, functions) or serialization fails (cycles, BigInt).
 */
export function stableSerialize(value: unknown): string {
	try {
		const text = JSON.stringify(cloneJsonSorted(value));
		return text === undefined ? String(value) : text;
	} catch {
		return String(value);
	}
}
