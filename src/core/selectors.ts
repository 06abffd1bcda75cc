/**
 * Selector parsing and resolution for the preprocessing stage.
 *
 * A selector is a JSON-Pointer-like path (`""` or `"/"` is the root, `~1` is
 * `/`, `~0` is `~`) with one extension: `*` fans out over array elements.
 * Resolution yields locations as paths from the root, so a writer can copy
 * just the containers on the way to a location. A named segment addresses a
 * property of a record even when the property is absent; it never indexes an
 * array, so `/files/0` matches nothing.
 */
import { pointerSegments } from "./json-pointer.ts";
import { isRecord } from "./json-value.ts";

/** One decoded selector segment: a property name, or the array wildcard. */
export type SelectorSegment = { kind: "key"; key: string } | { kind: "each" };

/** A resolved location: the path of keys/indices from the root, and the value found there. */
export interface SelectorLocation {
	path: readonly (string | number)[];
	value: unknown;
}

/** Splits and decodes a selector; the root selectors give no segments. */
export function parseSelector(selector: string): SelectorSegment[] {
	return pointerSegments(selector).map((piece) => (piece === "*" ? { kind: "each" } : { kind: "key", key: piece }));
}

/** Every location `segments` addresses in `root`, in document order. */
export function resolveSegments(root: unknown, segments: readonly SelectorSegment[]): SelectorLocation[] {
	let locations: SelectorLocation[] = [{ path: [], value: root }];
	for (const segment of segments) {
		const next: SelectorLocation[] = [];
		for (const location of locations) {
			const { value } = location;
			if (segment.kind === "each") {
				if (Array.isArray(value)) {
					for (let index = 0; index < value.length; index++) {
						next.push({ path: [...location.path, index], value: value[index] });
					}
				}
			} else if (isRecord(value)) {
				next.push({ path: [...location.path, segment.key], value: value[segment.key] });
			}
		}
		locations = next;
	}
	return locations;
}

/** Parses and resolves in one step. */
export function resolveSelector(root: unknown, selector: string): SelectorLocation[] {
	return resolveSegments(root, parseSelector(selector));
}
