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
 * MiniMax M3 writes objects and lists as nested elements (`<edits><item>
 * <oldText>…`). A value read from such elements is typed from the schema
 * down to its leaves: a list where the schema wants an array and every child
 * is `<item>`, an object where it wants an object that declares every child,
 * a leaf by the rules above (an empty element is an empty list or mapping
 * when the schema wants just one of them). Anything else is ambiguous and
 * refuses the call (`typeArgumentsFromSchema` answers undefined): a child the
 * schema does not declare, `<item>` children the schema could read as a list
 * or as an object, child elements where the schema wants a string or says
 * nothing.
 *
 * Other values are typed at the top level only; plain JSON Schema and TypeBox schemas alike (TypeBox
 * schemas are JSON Schema objects with extra symbol keys). Unknown schemas
 * and unknown fields leave values as they are. The schema is read through
 * core's one schema-shape reader (`src/core/schema-shape.ts`).
 */

import { defineOwn, isPlainObject, isRecord, parseModelJson } from "../core/json-value.ts";
import {
	type JsonType,
	matchesAnyType,
	propertiesOf,
	type SchemaNode,
	schemaTypes as typesOf,
	unionBranches,
} from "../core/schema-shape.ts";
import { type ElementNode, isElementSource, readElementContent } from "./families/minimax-elements.ts";

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
		const parsed = parseModelJson(trimmed);
		if (parsed !== undefined && valueHasType(parsed, types)) return { ok: true, value: parsed };
	}
	return { ok: false };
}

/** A value the schema cannot decide: the call is refused. */
const AMBIGUOUS: unique symbol = Symbol("ambiguous");
type Typed = unknown | typeof AMBIGUOUS;

/**
 * A copy of `args` with values typed from `schema`, or undefined when a
 * value read from nested elements is ambiguous under it. `raw` holds the
 * source text of values the parser coerced or read from elements. Never
 * mutates its inputs.
 */
export function typeArgumentsFromSchema(
	args: Record<string, unknown>,
	schema: unknown,
	raw?: Readonly<Record<string, string>>,
): Record<string, unknown> | undefined {
	const properties = propertiesOf(schema);
	if (!properties) return args;
	const typed: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(args)) {
		const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
		const one = typeOneValue(value, property, raw?.[key]);
		if (one === AMBIGUOUS) return undefined;
		defineOwn(typed, key, one);
	}
	return typed;
}

function typeOneValue(value: unknown, schema: unknown, source: string | undefined): Typed {
	if (source !== undefined && (Array.isArray(value) || isPlainObject(value)) && isElementSource(source)) {
		const content = readElementContent(source);
		return content === undefined ? AMBIGUOUS : typeElement(content, schema);
	}
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

/** The one branch of `schema` (itself, or one `anyOf`/`oneOf` branch) that `has`, if exactly one does. */
function oneBranch(schema: unknown, has: (node: SchemaNode) => boolean): SchemaNode | undefined {
	if (!isRecord(schema)) return undefined;
	if (has(schema)) return schema;
	const branches = (unionBranches(schema) ?? []).filter(
		(branch): branch is SchemaNode => isRecord(branch) && has(branch),
	);
	return branches.length === 1 ? branches[0] : undefined;
}

/** The element schema of the array `schema` wants, if it says. */
function itemsOf(schema: unknown): unknown {
	return oneBranch(schema, (node) => isRecord(node.items))?.items;
}

/**
 * One element's value under `schema` (see the file header), or AMBIGUOUS.
 * The depth is bounded by the reader's nesting cap.
 */
function typeElement(node: ElementNode, schema: unknown): Typed {
	const types = schemaTypes(schema);
	const children = node.children;
	if (children === undefined) {
		const text = node.text ?? "";
		if (types.size === 0 || types.has("string")) return text;
		// An empty list or mapping is written as an empty element.
		if (text.trim() === "" && types.has("array") !== types.has("object")) return types.has("array") ? [] : {};
		const converted = valueFromText(text, types);
		return converted.ok ? converted.value : text;
	}
	const properties = types.has("object")
		? propertiesOf(oneBranch(schema, (branch) => isRecord(branch.properties)))
		: undefined;
	const declares = (name: string) => properties !== undefined && Object.hasOwn(properties, name);
	const asList = types.has("array") && children.every((child) => child.name === "item");
	const asObject = properties !== undefined && children.every((child) => declares(child.name));
	if (asList && asObject) return AMBIGUOUS;
	if (asList) {
		const items = itemsOf(schema);
		const list: unknown[] = [];
		for (const child of children) {
			const value = typeElement(child.node, items);
			if (value === AMBIGUOUS) return AMBIGUOUS;
			list.push(value);
		}
		return list;
	}
	if (asObject) {
		const object: Record<string, unknown> = {};
		for (const child of children) {
			if (Object.hasOwn(object, child.name)) return AMBIGUOUS;
			const value = typeElement(child.node, properties[child.name]);
			if (value === AMBIGUOUS) return AMBIGUOUS;
			defineOwn(object, child.name, value);
		}
		return object;
	}
	// Child elements are structure: a string field, a field the schema does not type, or an undeclared child is ambiguous.
	return AMBIGUOUS;
}
