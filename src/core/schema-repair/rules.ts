/**
 * The issue-site rules of the schema-repair engine, as a table tried in
 * order for every site (the first rule that applies fires, then the engine
 * moves to the next site). Each rule is a row `{ id, applies, apply }`;
 * `apply` mutates the engine's private working copy and returns the note.
 *
 * What the rules refuse matters as much as what they do: nothing is renamed
 * (aliases are preprocessing rows), `null` array elements are never dropped, a
 * string that reads as a list literal is never wrapped (a list is not one item), and
 * JSON text is parsed only where the schema asked for an array or an object.
 */

import { escapeJsonStringControlCharacters } from "../envelope.ts";
import { declaredPropertiesAt, flattenedKeysOf, rebuildFlattened } from "../flattened-keys.ts";
import { defineOwn, isRecord, parseModelJson } from "../json-value.ts";
import { readsAsStructuredData } from "../list-literal.ts";
import { RULE } from "../rule-ids.ts";
import { jsonTypeMatches, propertiesOf, requiredOf, type SchemaNode, schemaAt, schemaTypes } from "../schema-shape.ts";
import type { IssueSite } from "./issue-sites.ts";
import {
	dropEmptyObjectPlaceholderNote,
	dropEmptyStringForOptionalFieldNote,
	dropNullOrUndefinedFieldNote,
	parseJsonStringifiedArrayNote,
	parseJsonStringifiedObjectNote,
	parseJsonWithRawControlCharactersNote,
	rebuildFlattenedKeysNote,
	unwrapSameNameWrapperNote,
	unwrapSingletonArrayNote,
	wrapBareStringAsArrayNote,
} from "./notes.ts";

export interface RuleContext {
	toolName: string;
	/** The tool's parameter schema; rules that must know what is declared refuse without it. */
	schema?: unknown;
}

export interface IssueRule {
	id: string;
	applies(site: IssueSite, context: RuleContext): boolean;
	/** Performs the repair on `site.parent` and returns the note. Only called when `applies` held. */
	apply(site: IssueSite, context: RuleContext): string;
}

function recordSite(site: IssueSite): { parent: Record<string, unknown>; key: string } | undefined {
	return typeof site.key === "string" && isRecord(site.parent) ? { parent: site.parent, key: site.key } : undefined;
}

function valueAt(site: IssueSite): unknown {
	const { parent, key } = site;
	if (Array.isArray(parent)) return typeof key === "number" ? parent[key] : undefined;
	return Object.hasOwn(parent, String(key)) ? parent[String(key)] : undefined;
}

function replaceAt(site: IssueSite, value: unknown): void {
	const { parent, key } = site;
	if (Array.isArray(parent) && typeof key === "number") parent[key] = value;
	else if (!Array.isArray(parent)) defineOwn(parent, String(key), value);
}

function isNullish(value: unknown): value is null | undefined {
	return value === null || value === undefined;
}

/** Parses `text` when its trimmed form is delimited by `open`/`close`; `undefined` otherwise. */
function parseDelimited(text: string, open: string, close: string): unknown {
	const trimmed = text.trim();
	if (!trimmed.startsWith(open) || !trimmed.endsWith(close)) return undefined;
	return parseModelJson(trimmed);
}

function parsedRecord(value: unknown): Record<string, unknown> | undefined {
	if (typeof value !== "string") return undefined;
	const parsed = parseDelimited(value, "{", "}");
	return isRecord(parsed) ? parsed : undefined;
}

/** The schema that describes the value at `site`, where one plain walk from the root finds it. */
function siteSchema(site: IssueSite, context: RuleContext): SchemaNode | undefined {
	if (site.parentSegments === undefined) return undefined;
	const parent = schemaAt(context.schema, site.parentSegments);
	if (parent === undefined) return undefined;
	if (typeof site.key === "number") return isRecord(parent.items) ? parent.items : undefined;
	const properties = propertiesOf(parent);
	const node = properties !== undefined && Object.hasOwn(properties, site.key) ? properties[site.key] : undefined;
	return isRecord(node) ? node : undefined;
}

/**
 * The array or object a string at `site` encodes as JSON (goose#9710, pi#5698),
 * where the schema there wants that kind of container: named by the issue, or
 * by the schema at the site when a union or a type list hides it from the
 * issue. A field that accepts a string keeps its JSON text: it is a valid string.
 */
function decodedContainer(site: IssueSite, context: RuleContext): unknown[] | Record<string, unknown> | undefined {
	const value = valueAt(site);
	if (typeof value !== "string") return undefined;
	const schema = siteSchema(site, context);
	const declared = schema === undefined ? new Set<string>() : schemaTypes(schema);
	if (declared.has("string")) return undefined;
	const wants = (kind: "array" | "object") => site.expectedType === kind || declared.has(kind);
	if (wants("array")) {
		const parsed = parseDelimited(value, "[", "]");
		if (Array.isArray(parsed)) return parsed;
	}
	if (wants("object")) return parsedRecord(value);
	return undefined;
}

/**
 * True when `""` at `site` stands for an omitted optional field (pi#12286):
 * the field is declared, not required, and its schema takes no string at
 * all. A string field, or a union or enum that takes strings, keeps its `""`.
 */
function emptyStringForOmitted(site: IssueSite, context: RuleContext): boolean {
	const at = recordSite(site);
	if (at === undefined || at.parent[at.key] !== "" || site.parentSegments === undefined) return false;
	const parent = schemaAt(context.schema, site.parentSegments);
	if (parent === undefined || requiredOf(parent).has(at.key)) return false;
	const field = siteSchema(site, context);
	if (field === undefined) return false;
	const types = schemaTypes(field);
	return types.size > 0 && !types.has("string");
}

/**
 * JSON text of the `kind` wanted here whose strings hold raw control
 * characters (pi#8521): escaping them is lossless, since inside a JSON
 * string a raw line break or tab can only mean that character. Only tried
 * when the plain parse fails, so it never competes with the plain parse rules.
 */
function parsedWithRawControlCharacters(value: unknown, kind: string): unknown[] | Record<string, unknown> | undefined {
	if (typeof value !== "string" || (kind !== "array" && kind !== "object")) return undefined;
	const [open, close] = kind === "array" ? ["[", "]"] : ["{", "}"];
	const trimmed = value.trim();
	if (!trimmed.startsWith(open) || !trimmed.endsWith(close)) return undefined;
	const escaped = escapeJsonStringControlCharacters(trimmed);
	if (escaped === trimmed || parseDelimited(trimmed, open, close) !== undefined) return undefined;
	const parsed = parseDelimited(escaped, open, close);
	if (kind === "array") return Array.isArray(parsed) ? parsed : undefined;
	return isRecord(parsed) ? parsed : undefined;
}

/**
 * The value inside a same-name wrapper (`edits: {"edits": […]}`, or that
 * object as JSON text where an array or object is wanted): an object whose
 * only key is the field's own name, holding a value of the wanted type.
 */
function sameNameInner(site: IssueSite): unknown {
	if (typeof site.key !== "string" || site.expectedType === undefined) return undefined;
	const value = valueAt(site);
	let wrapper: unknown = value;
	if (typeof value === "string") {
		// A string field is never decoded: only where the schema wants a container.
		if (site.expectedType !== "array" && site.expectedType !== "object") return undefined;
		wrapper = parsedRecord(value) ?? parsedWithRawControlCharacters(value, "object");
	}
	if (!isRecord(wrapper)) return undefined;
	const keys = Object.keys(wrapper);
	if (keys.length !== 1 || keys[0] !== site.key) return undefined;
	const inner = wrapper[site.key];
	return jsonTypeMatches(site.expectedType, inner) ? inner : undefined;
}

const SCALAR_TYPES = new Set(["string", "number", "integer", "boolean"]);

/** The lone element of a one-element array where a scalar of that element's type is wanted. */
function singletonElement(site: IssueSite): { value: unknown } | undefined {
	if (site.expectedType === undefined || !SCALAR_TYPES.has(site.expectedType)) return undefined;
	const value = valueAt(site);
	if (!Array.isArray(value) || value.length !== 1) return undefined;
	return jsonTypeMatches(site.expectedType, value[0]) ? { value: value[0] } : undefined;
}

/**
 * The value flattened keys rebuild for a missing required property, only
 * where the schema declares that property and none of the flattened keys.
 */
function rebuiltFromFlattenedKeys(site: IssueSite, context: RuleContext): unknown {
	const at = recordSite(site);
	if (at === undefined || site.keyword !== "required" || Object.hasOwn(at.parent, at.key)) return undefined;
	const declared = declaredPropertiesAt(context.schema, site.parentSegments ?? []);
	if (declared === undefined || !declared.has(at.key)) return undefined;
	const keys = flattenedKeysOf(at.parent, at.key);
	if (keys.length === 0 || keys.some((key) => declared.has(key))) return undefined;
	return rebuildFlattened(at.parent, at.key);
}

/** Rows for the shapes models send in late 2026; tried after the plain parse rules, before wrapping. */
const SHAPE_RULES: readonly IssueRule[] = [
	// Before wrapping: `""` for an omitted optional list is no list item.
	{
		id: RULE.dropEmptyStringForOptionalField,
		applies(site, context) {
			return emptyStringForOmitted(site, context);
		},
		apply(site, context) {
			const { parent, key } = recordSite(site) as { parent: Record<string, unknown>; key: string };
			delete parent[key];
			return dropEmptyStringForOptionalFieldNote(key, context.toolName);
		},
	},
	{
		id: RULE.parseJsonWithRawControlCharacters,
		applies(site) {
			return parsedWithRawControlCharacters(valueAt(site), site.expectedType ?? "") !== undefined;
		},
		apply(site, context) {
			const kind = site.expectedType === "array" ? "array" : "object";
			replaceAt(site, parsedWithRawControlCharacters(valueAt(site), kind));
			return parseJsonWithRawControlCharactersNote(String(site.key), context.toolName, kind);
		},
	},
	{
		id: RULE.unwrapSameNameWrapper,
		applies(site) {
			return sameNameInner(site) !== undefined;
		},
		apply(site, context) {
			replaceAt(site, sameNameInner(site));
			return unwrapSameNameWrapperNote(String(site.key), context.toolName);
		},
	},
	{
		id: RULE.unwrapSingletonArray,
		applies(site) {
			return singletonElement(site) !== undefined;
		},
		apply(site, context) {
			replaceAt(site, singletonElement(site)?.value);
			return unwrapSingletonArrayNote(String(site.key), context.toolName, site.expectedType ?? "value");
		},
	},
	{
		id: RULE.rebuildFlattenedKeys,
		applies(site, context) {
			return rebuiltFromFlattenedKeys(site, context) !== undefined;
		},
		apply(site, context) {
			const { parent, key } = recordSite(site) as { parent: Record<string, unknown>; key: string };
			const rebuilt = rebuiltFromFlattenedKeys(site, context);
			const flattened = flattenedKeysOf(parent, key);
			for (const flat of flattened) delete parent[flat];
			defineOwn(parent, key, rebuilt);
			return rebuildFlattenedKeysNote(key, context.toolName, flattened.length);
		},
	},
];

export const ISSUE_RULES: readonly IssueRule[] = [
	{
		id: RULE.dropNullOrUndefinedField,
		applies(site) {
			const at = recordSite(site);
			return at !== undefined && Object.hasOwn(at.parent, at.key) && isNullish(at.parent[at.key]);
		},
		apply(site, context) {
			const { parent, key } = recordSite(site) as { parent: Record<string, unknown>; key: string };
			const kind = parent[key] === null ? "null" : "undefined";
			delete parent[key];
			return dropNullOrUndefinedFieldNote(kind, key, context.toolName);
		},
	},
	{
		id: RULE.dropEmptyObjectPlaceholder,
		applies(site) {
			const at = recordSite(site);
			if (site.expectedType !== "array" || at === undefined || !Object.hasOwn(at.parent, at.key)) return false;
			const value = at.parent[at.key];
			return isRecord(value) && Object.keys(value).length === 0;
		},
		apply(site, context) {
			const { parent, key } = recordSite(site) as { parent: Record<string, unknown>; key: string };
			delete parent[key];
			return dropEmptyObjectPlaceholderNote(key, context.toolName);
		},
	},
	// One decoder for both containers; the row that fires says which kind it found.
	{
		id: RULE.parseJsonStringifiedArray,
		applies(site, context) {
			return Array.isArray(decodedContainer(site, context));
		},
		apply(site, context) {
			replaceAt(site, decodedContainer(site, context));
			return parseJsonStringifiedArrayNote(String(site.key), context.toolName);
		},
	},
	{
		id: RULE.parseJsonStringifiedObject,
		applies(site, context) {
			return isRecord(decodedContainer(site, context));
		},
		apply(site, context) {
			replaceAt(site, decodedContainer(site, context));
			return parseJsonStringifiedObjectNote(String(site.key), context.toolName);
		},
	},
	...SHAPE_RULES,
	{
		id: RULE.wrapBareStringAsArray,
		applies(site) {
			const value = valueAt(site);
			return site.expectedType === "array" && typeof value === "string" && !readsAsStructuredData(value);
		},
		apply(site, context) {
			replaceAt(site, [valueAt(site)]);
			return wrapBareStringAsArrayNote(String(site.key), context.toolName);
		},
	},
];
