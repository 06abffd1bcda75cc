/**
 * The one reader of JSON Schema shape the layer has: unions, type lists,
 * properties, required names, array items, and the JSON types a schema
 * admits. Conversion, strict sampling, the expected-shape description and the
 * grammar layer's argument typing all walk schemas through these, so plain
 * JSON Schema and TypeBox types (JSON Schema objects with extra symbol keys)
 * read the same everywhere.
 */
import { isRecord } from "./json-value.ts";

/** A schema object; anything else in schema position says nothing. */
export type SchemaNode = Record<string, unknown>;

/** Schemas are finite trees, but a hostile recursive one must not hang a walk. */
export const MAX_SCHEMA_DEPTH = 64;

/** The JSON types a schema can name. */
export type JsonType = "string" | "number" | "integer" | "boolean" | "array" | "object" | "null";

const JSON_TYPES: ReadonlySet<string> = new Set(["string", "number", "integer", "boolean", "array", "object", "null"]);

/** The branches of an `anyOf` (or else `oneOf`) union, or `undefined` when the node is not a union. */
export function unionBranches(node: SchemaNode): readonly unknown[] | undefined {
	return Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
}

/** `type` as a list: a type list as it is, one name as one entry, none as none. */
export function typeList(type: unknown): readonly unknown[] {
	if (Array.isArray(type)) return type;
	return type === undefined ? [] : [type];
}

/** The `properties` map of an object schema, if it has one. */
export function propertiesOf(node: unknown): SchemaNode | undefined {
	return isRecord(node) && isRecord(node.properties) ? node.properties : undefined;
}

/** The names `required` lists (strings only). */
export function requiredOf(node: SchemaNode): Set<string> {
	return new Set(Array.isArray(node.required) ? node.required.filter((k): k is string => typeof k === "string") : []);
}

/** True when `value` has the JSON type named by `type`. */
export function jsonTypeMatches(type: unknown, value: unknown): boolean {
	switch (type) {
		case "string":
			return typeof value === "string";
		case "number":
			return typeof value === "number";
		case "integer":
			return typeof value === "number" && Number.isInteger(value);
		case "boolean":
			return typeof value === "boolean";
		case "null":
			return value === null;
		case "array":
			return Array.isArray(value);
		case "object":
			return isRecord(value);
		default:
			return false;
	}
}

/** True when `value` has one of `types`. */
export function matchesAnyType(types: Iterable<unknown>, value: unknown): boolean {
	for (const type of types) if (jsonTypeMatches(type, value)) return true;
	return false;
}

function typeOfConstant(value: unknown): JsonType | undefined {
	if (value === null) return "null";
	if (typeof value === "string") return "string";
	if (typeof value === "number") return "number";
	if (typeof value === "boolean") return "boolean";
	if (Array.isArray(value)) return "array";
	if (isRecord(value)) return "object";
	return undefined;
}

/** The JSON types a schema admits through `type`, its unions, `const` and `enum` (empty when it does not say). */
export function schemaTypes(schema: unknown, maxDepth = MAX_SCHEMA_DEPTH): Set<JsonType> {
	const types = new Set<JsonType>();
	collectTypes(schema, 0, maxDepth, types);
	return types;
}

function collectTypes(schema: unknown, depth: number, maxDepth: number, types: Set<JsonType>): void {
	if (!isRecord(schema) || depth > maxDepth) return;
	for (const type of typeList(schema.type))
		if (typeof type === "string" && JSON_TYPES.has(type)) types.add(type as JsonType);
	for (const key of ["anyOf", "oneOf"] as const) {
		const members = schema[key];
		if (Array.isArray(members)) for (const member of members) collectTypes(member, depth + 1, maxDepth, types);
	}
	if (Object.hasOwn(schema, "const")) {
		const type = typeOfConstant(schema.const);
		if (type !== undefined) types.add(type);
	}
	if (Array.isArray(schema.enum)) {
		for (const value of schema.enum) {
			const type = typeOfConstant(value);
			if (type !== undefined) types.add(type);
		}
	}
}

/**
 * The schema of the value at `segments` of an instance of `schema`, found by
 * following `properties` by name and a single `items` schema by index;
 * `undefined` when the walk meets anything else (a union, a tuple, a `$ref`),
 * where the place has no one schema to read.
 */
export function schemaAt(schema: unknown, segments: readonly string[]): SchemaNode | undefined {
	let node: unknown = schema;
	for (const segment of segments) {
		if (!isRecord(node)) return undefined;
		const properties = propertiesOf(node);
		if (properties !== undefined && Object.hasOwn(properties, segment)) node = properties[segment];
		else if (/^\d+$/.test(segment) && isRecord(node.items)) node = node.items;
		else return undefined;
	}
	return isRecord(node) ? node : undefined;
}
