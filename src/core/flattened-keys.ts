import { defineOwn, isRecord } from "./json-value.ts";
import { schemaAt } from "./schema-shape.ts";

/**
 * Flattened keys: some models spell a nested argument as path-named keys on
 * its parent (`"edits[0].oldText": …, "edits[0].newText": …`, or `"opts.mode": …`)
 * instead of the nested value. `rebuildFlattened` reads those keys back into
 * the one value they describe, and gives up on anything that does not name a
 * single, gap-free structure: a key it cannot read, two keys for one place, a
 * place that is both a leaf and a container, an index with leading zeros, or
 * array indices that do not run 0, 1, 2, … without a hole.
 */

type Segment = string | number;

const SEGMENT = /\[(0|[1-9]\d*)\]|\.([^.[\]]+)/y;
// Keeps a hostile key from describing an array with a huge index.
const MAX_INDEX = 10_000;

/** The segments after `field` in `key`, or `undefined` when `key` is not a readable path below `field`. */
export function flattenedPath(key: string, field: string): Segment[] | undefined {
	if (!key.startsWith(field) || key.length === field.length) return undefined;
	const next = key[field.length];
	if (next !== "[" && next !== ".") return undefined;
	const segments: Segment[] = [];
	SEGMENT.lastIndex = field.length;
	while (SEGMENT.lastIndex < key.length) {
		const start = SEGMENT.lastIndex;
		const match = SEGMENT.exec(key);
		if (match === null || match.index !== start) return undefined;
		if (match[1] === undefined) segments.push(match[2] as string);
		else {
			const index = Number(match[1]);
			if (index > MAX_INDEX) return undefined;
			segments.push(index);
		}
	}
	return segments;
}

/** The keys of `parent` that start like a path below `field` (`field[` or `field.`). */
export function flattenedKeysOf(parent: Record<string, unknown>, field: string): string[] {
	return Object.keys(parent).filter((key) => key.startsWith(`${field}[`) || key.startsWith(`${field}.`));
}

type Node = { kind: "leaf"; value: unknown } | { kind: "array" | "object"; children: Map<Segment, Node> };

/**
 * The nested value the flattened keys of `field` on `parent` describe, or
 * `undefined` when there are none or they do not describe exactly one value.
 */
export function rebuildFlattened(parent: Record<string, unknown>, field: string): unknown {
	const keys = flattenedKeysOf(parent, field);
	if (keys.length === 0) return undefined;
	let root: Node | undefined;
	for (const key of keys) {
		const path = flattenedPath(key, field);
		if (path === undefined || path.length === 0) return undefined;
		root = insert(root, path, 0, parent[key]);
		if (root === undefined) return undefined;
	}
	return root === undefined ? undefined : materialize(root);
}

/** `node` with `value` placed at `path[from…]`; `undefined` on any conflict. */
function insert(node: Node | undefined, path: readonly Segment[], from: number, value: unknown): Node | undefined {
	if (from === path.length) return node === undefined ? { kind: "leaf", value } : undefined;
	const segment = path[from] as Segment;
	const kind = typeof segment === "number" ? "array" : "object";
	const container: Node = node ?? { kind, children: new Map() };
	if (container.kind !== kind) return undefined;
	const child = insert(container.children.get(segment), path, from + 1, value);
	if (child === undefined) return undefined;
	container.children.set(segment, child);
	return container;
}

function materialize(node: Node): unknown {
	if (node.kind === "leaf") return node.value;
	if (node.kind === "object") {
		const out: Record<string, unknown> = {};
		for (const [key, child] of node.children) {
			const value = materialize(child);
			if (value === undefined) return undefined;
			defineOwn(out, String(key), value);
		}
		return out;
	}
	const out: unknown[] = [];
	for (let index = 0; index < node.children.size; index++) {
		const child = node.children.get(index);
		if (child === undefined) return undefined; // a gap: the list's length is unknown
		const value = materialize(child);
		if (value === undefined) return undefined;
		out.push(value);
	}
	return out;
}

/**
 * The `properties` a schema declares for the object at the instance path
 * `segments`, following only `properties` and `items`; or
 * `undefined` when the walk meets anything else (unions, refs, tuples,
 * pattern or schema-valued additional properties), where what is declared cannot be told for sure.
 */
export function declaredPropertiesAt(schema: unknown, segments: readonly string[]): ReadonlySet<string> | undefined {
	const node = schemaAt(schema, segments);
	if (node === undefined || !isRecord(node.properties)) return undefined;
	for (const keyword of ["patternProperties", "anyOf", "oneOf", "allOf", "$ref"]) {
		if (Object.hasOwn(node, keyword)) return undefined;
	}
	if (isRecord(node.additionalProperties)) return undefined;
	return new Set(Object.keys(node.properties));
}
