/**
 * Strict constrained sampling sends `null` for an omitted optional property:
 * providers that force every property into the output have no other way to
 * leave one out. For such tools, those nulls are the wire form of
 * "omitted": this module removes them, schema-driven and copy-on-write, so
 * the pipeline can judge the call as if they had been left out. The removal
 * is never reported as a change.
 */
import type { TSchema } from "typebox";
import { defineOwn, isRecord, shallowCopyRecord } from "./json-value.ts";
import { MAX_SCHEMA_DEPTH, propertiesOf, requiredOf } from "./schema-shape.ts";

/**
 * The valid path's test: `false` only when `value` holds no null at all, so
 * {@link withoutOmittedNulls} would certainly give it back as it is and its
 * walk can be skipped. It exits at the first null; past the schema depth
 * bound it answers `true` and lets the walk decide.
 */
export function mayHoldOmittedNull(value: unknown): boolean {
	return holdsNull(value, 0);
}

function holdsNull(value: unknown, depth: number): boolean {
	if (typeof value !== "object") return false;
	if (value === null) return true;
	if (depth > MAX_SCHEMA_DEPTH) return true;
	// Only a container is descended into: a scalar child is answered here, without a call.
	if (Array.isArray(value)) {
		for (let index = 0; index < value.length; index++) {
			const item: unknown = value[index];
			if (typeof item === "object" && (item === null || holdsNull(item, depth + 1))) return true;
		}
		return false;
	}
	// `for…in` also visits inherited enumerable keys: more than the walk looks at, never less.
	for (const key in value) {
		const item: unknown = (value as Record<string, unknown>)[key];
		if (typeof item === "object" && (item === null || holdsNull(item, depth + 1))) return true;
	}
	return false;
}

/** `value` without nulls at optional properties (any depth); the same reference when there were none. */
export function withoutOmittedNulls(schema: TSchema, value: unknown): unknown {
	return strip(schema, value, 0);
}

function strip(schema: unknown, value: unknown, depth: number): unknown {
	if (!isRecord(schema) || depth > MAX_SCHEMA_DEPTH || typeof value !== "object" || value === null) return value;
	if (Array.isArray(value)) return stripItems(schema, value, depth);
	const properties = propertiesOf(schema);
	if (properties === undefined) return value;
	const required = requiredOf(schema);
	let out: Record<string, unknown> | undefined;
	for (const key of Object.keys(value)) {
		if (!Object.hasOwn(properties, key)) continue;
		const before = (value as Record<string, unknown>)[key];
		if (before === null && !required.has(key)) {
			out ??= shallowCopyRecord(value as Record<string, unknown>);
			delete out[key];
			continue;
		}
		const after = strip(properties[key], before, depth + 1);
		if (after === before) continue;
		out ??= shallowCopyRecord(value as Record<string, unknown>);
		defineOwn(out, key, after);
	}
	return out ?? value;
}

function stripItems(schema: Record<string, unknown>, value: readonly unknown[], depth: number): unknown {
	const items = isRecord(schema.items) ? schema.items : undefined;
	if (items === undefined) return value;
	let out: unknown[] | undefined;
	for (let index = 0; index < value.length; index++) {
		const after = strip(items, value[index], depth + 1);
		if (after === value[index]) continue;
		out ??= value.slice();
		out[index] = after;
	}
	return out ?? value;
}
