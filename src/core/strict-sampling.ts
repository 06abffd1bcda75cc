/**
 * Strict constrained sampling sends `null` for an omitted optional property:
 * providers that force every property into the output have no other way to
 * leave one out. For such tools, those nulls are the wire form of
 * "omitted": this module removes them, schema-driven and copy-on-write, so
 * the pipeline can judge the call as if they had been left out. The removal
 * is never reported as a change.
 */
import type { TSchema } from "typebox";
import { defineOwn, isRecord } from "./clone.ts";
import { shallowCopyRecord } from "./convert.ts";

// Schemas are finite trees, but a hostile recursive one must not hang the walk.
const MAX_SCHEMA_DEPTH = 64;

/**
 * The valid path's test, compiled once from the schema: `false` only when
 * `value` holds no null that {@link withoutOmittedNulls} could remove, so
 * the walk (and its copies) can be skipped. It visits only the properties
 * the schema names and exits at the first null.
 */
export function compileOmittedNullTest(schema: TSchema): (value: unknown) => boolean {
	return nullTestFor(schema, 0) ?? (() => false);
}

/** `undefined` where no null below can be an omitted property (the walk would leave the value as it is). */
function nullTestFor(schema: unknown, depth: number): ((value: unknown) => boolean) | undefined {
	if (!isRecord(schema)) return undefined;
	// Past the bound the walk stops too; a recursive schema compiles to this depth and no further.
	if (depth > MAX_SCHEMA_DEPTH) return undefined;
	const items = nullTestFor(schema.items, depth + 1);
	const properties = isRecord(schema.properties) ? schema.properties : undefined;
	const children =
		properties === undefined
			? []
			: Object.keys(properties).map((key) => ({ key, test: nullTestFor(properties[key], depth + 1) }));
	if (items === undefined && children.length === 0) return undefined;
	return (value) => {
		if (typeof value !== "object" || value === null) return false;
		if (Array.isArray(value)) {
			if (items !== undefined) for (const item of value) if (items(item)) return true;
			return false;
		}
		for (const { key, test } of children) {
			const item = (value as Record<string, unknown>)[key];
			if (item !== null && (test === undefined || typeof item !== "object")) continue;
			if (!Object.hasOwn(value, key)) continue;
			if (item === null || test?.(item) === true) return true;
		}
		return false;
	};
}

/** `value` without nulls at optional properties (any depth); the same reference when there were none. */
export function withoutOmittedNulls(schema: TSchema, value: unknown): unknown {
	return strip(schema, value, 0);
}

function strip(schema: unknown, value: unknown, depth: number): unknown {
	if (!isRecord(schema) || depth > MAX_SCHEMA_DEPTH || typeof value !== "object" || value === null) return value;
	if (Array.isArray(value)) return stripItems(schema, value, depth);
	const properties = isRecord(schema.properties) ? schema.properties : undefined;
	if (properties === undefined) return value;
	const required: unknown[] = Array.isArray(schema.required) ? schema.required : [];
	let out: Record<string, unknown> | undefined;
	for (const key of Object.keys(value)) {
		if (!Object.hasOwn(properties, key)) continue;
		const before = (value as Record<string, unknown>)[key];
		if (before === null && !required.includes(key)) {
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
