import { isRecord } from "./json-value.ts";

/**
 * The one JSON Pointer reader of the core: validator instance paths and
 * preprocessing selectors both decode their segments here (`~1` is `/`, `~0`
 * is `~`, in that order, so `~01` stays `~1`). `""` and `"/"` are the root.
 */

const ALL_DIGITS = /^\d+$/;

/** The decoded segments of `pointer`; a missing leading `/` is tolerated. */
export function pointerSegments(pointer: string): string[] {
	if (pointer === "" || pointer === "/") return [];
	const pieces = pointer.split("/");
	if (pieces[0] === "") pieces.shift();
	return pieces.map((piece) => piece.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** An all-digit segment indexes an array; any other names a property. */
export function segmentKey(segment: string): string | number {
	return ALL_DIGITS.test(segment) ? Number(segment) : segment;
}

/** The own child of a record, or the element of an array; `undefined` when there is none. */
export function childOf(container: unknown, key: string | number): unknown {
	if (Array.isArray(container)) return typeof key === "number" ? container[key] : undefined;
	if (isRecord(container)) return Object.hasOwn(container, String(key)) ? container[String(key)] : undefined;
	return undefined;
}

/** The value `segments` lead to from `root`, or `undefined` when the path breaks off. */
export function valueAtSegments(root: unknown, segments: readonly string[]): unknown {
	let current = root;
	for (const segment of segments) {
		current = childOf(current, segmentKey(segment));
		if (current === undefined) return undefined;
	}
	return current;
}
