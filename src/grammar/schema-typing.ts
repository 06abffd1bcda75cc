/**
 * Types recovered argument values from the tool's parameter schema
 * (`GrammarRecoveryOptions.toolSchemas`).
 *
 * Grammar text carries no types: `<parameter=limit>5</parameter>` could be
 * the number 5 or the text "5". Families coerce loosely (JSON when it looks
 * like JSON) and keep the trimmed source text beside it (`rawArguments`).
 * With the schema at hand the choice becomes safe:
 *
 * - a field that takes a string gets the source text back, never a decoded
 *   value (`"5"` stays `"5"`, `{"a":1}` stays text, `"1.2.3"` keeps its quotes);
 * - a string for a field that takes no string is converted only when the
 *   text is exactly a value of a wanted type (a JSON number, `true`/`false`,
 *   `null`, a JSON array or object); anything else is left for the repair
 *   pipeline, which rejects what it cannot prove.
 *
 * Top-level fields only; plain JSON Schema and TypeBox schemas alike (TypeBox
 * schemas are JSON Schema objects with extra symbol keys). Unknown schemas
 * and unknown fields leave values as they are. The schema is read through
 * core's one schema-shape reader (`src/core/schema-shape.ts`).
 */

import { defineOwn, tryParse } from "../core/json-value.ts";
import { type JsonType, matchesAnyType, propertiesOf, schemaTypes as typesOf } from "../core/schema-shape.ts";

// Argument typing looks only a few union levels deep: a tool's top-level field schemas are shallow.
const MAX_SCHEMA_DEPTH = 8;

/** The JSON types a schema admits (empty when it does not say). */
export function schemaTypes(schema: unknown): Set<JsonType> {
	return typesOf(schema, MAX_SCHEMA_DEPTH);
}

function valueHasType(value: unknown, types: ReadonlySet<JsonType>): boolean {
	return matchesAnyType(types, value);
}

/** A JSON number literal and nothing else (no `Infinity`, hex, spaces or `+`). */
function isJsonNumberText(text: string): boolean {
	let i = 0;
	const n = text.length;
	if (text.charCodeAt(i) === 45) i++;
	if (i >= n) return false;
	if (text.charCodeAt(i) === 48) i++;
	else {
		const digitsStart = i;
		while (i < n && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
		if (i === digitsStart) return false;
	}
	if (text.charCodeAt(i) === 46) {
		i++;
		const fracStart = i;
		while (i < n && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
		if (i === fracStart) return false;
	}
	if (text.charCodeAt(i) === 101 || text.charCodeAt(i) === 69) {
		i++;
		if (text.charCodeAt(i) === 43 || text.charCodeAt(i) === 45) i++;
		const expStart = i;
		while (i < n && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
		if (i === expStart) return false;
	}
	return i === n;
}

/** The exact typed value that `text` spells for one of `types`, if any. */
function valueFromText(text: string, types: ReadonlySet<JsonType>): { ok: true; value: unknown } | { ok: false } {
	const trimmed = text.trim();
	if ((types.has("number") || types.has("integer")) && isJsonNumberText(trimmed)) {
		const value = Number(trimmed);
		if (Number.isFinite(value) && valueHasType(value, types)) return { ok: true, value };
	}
	if (types.has("boolean") && (trimmed === "true" || trimmed === "false"))
		return { ok: true, value: trimmed === "true" };
	if (types.has("null") && trimmed === "null") return { ok: true, value: null };
	const first = trimmed.charCodeAt(0);
	if ((types.has("array") && first === 91) || (types.has("object") && first === 123)) {
		const parsed = tryParse(trimmed);
		if (parsed !== undefined && valueHasType(parsed, types)) return { ok: true, value: parsed };
	}
	return { ok: false };
}

/**
 * A copy of `args` with top-level values typed from `schema`. `raw` holds the
 * trimmed source text of values the parser coerced. Never mutates its inputs.
 */
export function typeArgumentsFromSchema(
	args: Record<string, unknown>,
	schema: unknown,
	raw?: Readonly<Record<string, string>>,
): Record<string, unknown> {
	const properties = propertiesOf(schema);
	if (!properties) return args;
	const typed: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(args)) {
		defineOwn(typed, key, typeOneValue(value, properties[key], raw?.[key]));
	}
	return typed;
}

function typeOneValue(value: unknown, schema: unknown, source: string | undefined): unknown {
	const types = schemaTypes(schema);
	// A field that takes a string gets the model's bytes: `"1.2.3"` stays those seven characters.
	if (types.has("string") && source !== undefined) return source;
	if (types.size === 0 || valueHasType(value, types)) return value;
	if (typeof value === "string") {
		const converted = valueFromText(value, types);
		if (converted.ok) return converted.value;
	}
	return value;
}
