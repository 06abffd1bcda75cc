/**
 * Deep copy and structural equality for JSON-domain values.
 *
 * Owns the one cloning primitive the pipeline uses. Strings and other
 * primitives are shared by reference (they are immutable), so copying a
 * record that holds a large `content` string costs only the containers.
 * An own `__proto__` key is kept as an inert data property: a copy must never
 * acquire a prototype chosen by model output.
 */

/** A non-null object that is not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Deep-copies arrays and records; primitives are returned as they are.
 *
 * Throws a `TypeError` on functions, symbols and cycles, the values
 * `structuredClone` would also refuse. Shared (acyclic) references are copied
 * once per occurrence.
 */
export function cloneJson<T>(value: T): T {
	return copyValue(value, new Set<object>()) as T;
}

function copyValue(value: unknown, ancestors: Set<object>): unknown {
	if (typeof value === "function") {
		throw new TypeError("cloneJson: functions cannot be cloned");
	}
	if (typeof value === "symbol") {
		throw new TypeError("cloneJson: symbols cannot be cloned");
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
				out[index] = copyValue(value[index], ancestors);
			}
			return out;
		}
		const out: Record<string, unknown> = {};
		for (const key of Object.keys(value)) {
			defineOwn(out, key, copyValue((value as Record<string, unknown>)[key], ancestors));
		}
		return out;
	} finally {
		ancestors.delete(value);
	}
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
