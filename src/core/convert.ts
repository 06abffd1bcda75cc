/**
 * Safe, schema-driven native conversion (pipeline stage 7).
 *
 * Only lossless scalar conversions are made, and only where the schema names
 * the target type: decimal JSON number text (`"5"`, `"-0.5"`) becomes a
 * number, a number its exact decimal text, a `"true"`/`"false"` string a
 * boolean. Anything else would change what the call means, so it is never
 * converted and the call fails validation: `"0x10"`, `"1e3"` and `" 5 "` stay
 * text, a boolean never becomes `"true"`/`"false"` (a path or a command named
 * `true` is not what the model meant), `null` stays `null`, nothing is
 * wrapped into or taken out of an array, objects and arrays never trade
 * places. The walk follows
 * `properties`, `patternProperties`, schema-form `additionalProperties`, `items` (list and tuple
 * form), `allOf` and the unions `anyOf`/`oneOf` (first branch whose converted
 * value passes), so TypeBox types and plain JSON Schema behave the same.
 * Copy-on-write: the same reference comes back when nothing changed.
 */
import type { TSchema } from "typebox";
import { defineOwn, isRecord, shallowCopyRecord } from "./json-value.ts";
import {
	MAX_SCHEMA_DEPTH,
	matchesAnyType,
	propertiesOf,
	type SchemaNode,
	typeList,
	unionBranches,
} from "./schema-shape.ts";
import { check } from "./validator.ts";

/** Converts `value` towards `schema`; returns `value` itself when no conversion applies. */
export function convertToSchema(schema: TSchema, value: unknown): unknown {
	return convertNode(schema, value, 0);
}

function convertNode(schema: unknown, value: unknown, depth: number): unknown {
	if (!isRecord(schema) || depth > MAX_SCHEMA_DEPTH) return value;
	const node = schema as SchemaNode;
	let current = value;
	const union = unionBranches(node);
	if (union !== undefined) current = convertUnion(union, current, depth);
	if (Array.isArray(node.allOf)) {
		for (const part of node.allOf) current = convertNode(part, current, depth + 1);
	}
	current = convertScalar(node.type, current);
	if (isRecord(current)) return convertObject(node, current, depth);
	if (Array.isArray(current)) return convertArray(node, current, depth);
	return current;
}

function convertUnion(branches: readonly unknown[], value: unknown, depth: number): unknown {
	for (const branch of branches) {
		if (isRecord(branch) && check(branch, value)) return value;
	}
	for (const branch of branches) {
		if (!isRecord(branch)) continue;
		const converted = convertNode(branch, value, depth + 1);
		if (converted !== value && check(branch, converted)) return converted;
	}
	return value;
}

function convertScalar(type: unknown, value: unknown): unknown {
	const types = typeList(type);
	if (types.length === 0 || matchesAnyType(types, value)) return value;
	for (const target of types) {
		const converted = convertScalarTo(target, value);
		if (converted !== undefined) return converted;
	}
	return value;
}

/** The converted scalar, or `undefined` when no allowed conversion exists. */
function convertScalarTo(type: unknown, value: unknown): unknown {
	switch (type) {
		case "number":
			return numberFromString(value, false);
		case "integer":
			return numberFromString(value, true);
		case "string":
			return typeof value === "number" ? decimalText(value) : undefined;
		case "boolean":
			if (typeof value !== "string") return undefined;
			if (value.toLowerCase() === "true") return true;
			if (value.toLowerCase() === "false") return false;
			return undefined;
		default:
			return undefined;
	}
}

function numberFromString(value: unknown, integer: boolean): number | undefined {
	if (typeof value !== "string") return undefined;
	const parsed = numberFromDecimalText(value);
	if (parsed === undefined || (integer && !Number.isInteger(parsed))) return undefined;
	return parsed;
}

// JSON number grammar without an exponent: no sign but `-`, no padding, no hex, no `1e3`.
const DECIMAL_NUMBER_TEXT = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

/** The number written by decimal JSON number text, or `undefined` for any other text. */
export function numberFromDecimalText(text: string): number | undefined {
	if (text.length > 400 || !DECIMAL_NUMBER_TEXT.test(text)) return undefined;
	const parsed = Number(text);
	return Number.isFinite(parsed) ? parsed : undefined;
}

/** A finite number's decimal text, or `undefined` when JavaScript would write it with an exponent. */
export function decimalText(value: number): string | undefined {
	if (!Number.isFinite(value)) return undefined;
	const text = String(value);
	return DECIMAL_NUMBER_TEXT.test(text) ? text : undefined;
}

function convertObject(node: SchemaNode, value: Record<string, unknown>, depth: number): Record<string, unknown> {
	const properties = propertiesOf(node);
	const patterns = patternSchemas(node.patternProperties);
	const additional = isRecord(node.additionalProperties) ? node.additionalProperties : undefined;
	if (properties === undefined && patterns.length === 0 && additional === undefined) return value;
	let out: Record<string, unknown> | undefined;
	for (const key of Object.keys(value)) {
		const child =
			properties !== undefined && Object.hasOwn(properties, key)
				? properties[key]
				: (patterns.find(([pattern]) => pattern.test(key))?.[1] ?? additional);
		if (child === undefined) continue;
		const before = value[key];
		const after = convertNode(child, before, depth + 1);
		if (after === before) continue;
		out ??= shallowCopyRecord(value);
		defineOwn(out, key, after);
	}
	return out ?? value;
}

/** `patternProperties` as compiled regexes; an invalid pattern is ignored (the validator decides there). */
function patternSchemas(patternProperties: unknown): Array<[RegExp, unknown]> {
	if (!isRecord(patternProperties)) return [];
	const out: Array<[RegExp, unknown]> = [];
	for (const [source, schema] of Object.entries(patternProperties)) {
		try {
			out.push([new RegExp(source, "u"), schema]);
		} catch {
			// Not a pattern this engine can read: no conversion under it.
		}
	}
	return out;
}

function convertArray(node: SchemaNode, value: readonly unknown[], depth: number): readonly unknown[] {
	const tuple = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : undefined;
	const rest = isRecord(node.items) ? node.items : undefined;
	if (tuple === undefined && rest === undefined) return value;
	let out: unknown[] | undefined;
	for (let index = 0; index < value.length; index++) {
		const child = tuple !== undefined && index < tuple.length ? tuple[index] : rest;
		if (child === undefined) continue;
		const before = value[index];
		const after = convertNode(child, before, depth + 1);
		if (after === before) continue;
		out ??= value.slice();
		out[index] = after;
	}
	return out ?? value;
}
