/**
 * The schema engine's tool config (`ToolRepairConfig`, the original's shape)
 * translated into preprocessing rows, in this one place: its aliases become
 * alias rows at every location the schema declares the canonical key, its
 * path fields become path-cleanup rows. Each repair then has one
 * implementation and one rule ID, and the valid path's skip test is built
 * from the rows alone. A row the caller's own list already holds (same kind
 * and location, or a structural repair with the same rule ID) is left out,
 * so nothing runs twice and the explicit row decides.
 */
import { isRecord } from "./json-value.ts";
import { MAX_SCHEMA_DEPTH, propertiesOf, schemaTypes } from "./schema-shape.ts";
import type { AliasPreprocessor, ObjectLocationSelector, Preprocessor, ToolRepairConfig } from "./types.ts";

export interface TranslatedConfig {
	/** Rows to run after the caller's own. */
	preprocessors: Preprocessor[];
	/** What the engine keeps: the root-string wrap, and structural repairs no row carries. */
	engine: ToolRepairConfig;
	/** Names a `name: value` root line may use: each root-string field's aliases, for the engine's call-text check. */
	rootAliases: readonly string[];
}

/** `config` as rows; `explicit` is the caller's own list, whose rows win. */
export function engineConfigRows(
	config: ToolRepairConfig,
	schema: unknown,
	explicit: readonly Preprocessor[] = [],
): TranslatedConfig {
	const taken = new Set(explicit.map(rowKey));
	const rows: Preprocessor[] = [];
	const add = (row: Preprocessor) => {
		const key = rowKey(row);
		if (taken.has(key)) return;
		taken.add(key);
		rows.push(row);
	};
	const aliases = config.fieldAliases ?? {};
	for (const canonical of Object.keys(aliases)) {
		const names = aliases[canonical] ?? [];
		// A key no selector can address has no row.
		if (canonical.includes("/") || canonical === "*") continue;
		for (const location of declaredLocations(schema, canonical)) {
			add(aliasRow(location.selector, names, location.schema));
		}
	}
	for (const field of config.pathFields ?? []) add({ kind: "filesystem-path", selector: `/${field}` });
	const structural = (config.structural ?? []).filter((repair) => !taken.has(`structural ${repair.name}`));
	const engine: ToolRepairConfig = {};
	if (config.rootString !== undefined) engine.rootString = config.rootString;
	if (structural.length > 0) engine.structural = structural;
	const rootField = config.rootString?.field;
	const rootAliases =
		rootField !== undefined && Object.hasOwn(aliases, rootField) ? [...(aliases[rootField] ?? [])] : [];
	return { preprocessors: rows, engine, rootAliases };
}

/** Two rows that do the same work at the same place share a key. */
function rowKey(row: Preprocessor): string {
	return row.kind === "structural" ? `structural ${row.ruleId}` : `${row.kind} ${row.selector}`;
}

/** An alias row accepting what the schema declares there, when it declares exactly one kind of value. */
function aliasRow(selector: ObjectLocationSelector, aliases: readonly string[], node: unknown): AliasPreprocessor {
	const row: AliasPreprocessor = { kind: "alias", selector, aliases };
	const accepts = acceptedKind(node);
	if (accepts !== undefined) row.accepts = accepts;
	return row;
}

function acceptedKind(node: unknown): AliasPreprocessor["accepts"] {
	const kinds = new Set<string>();
	for (const type of schemaTypes(node)) {
		if (type === "null") continue;
		kinds.add(type === "integer" ? "number" : type);
	}
	if (kinds.size !== 1) return undefined;
	const [only] = kinds;
	return only === "string" || only === "number" || only === "boolean" || only === "array" || only === "object"
		? only
		: undefined;
}

/**
 * Every location where the schema declares a property named `key`, following
 * `properties` and a single `items` schema (a union has no one schema to
 * read); the root location when the schema declares it nowhere, as the
 * engine's alias did for a schema it could not read.
 */
function declaredLocations(schema: unknown, key: string): { selector: ObjectLocationSelector; schema: unknown }[] {
	const found: { selector: ObjectLocationSelector; schema: unknown }[] = [];
	const walk = (node: unknown, path: string, depth: number) => {
		if (!isRecord(node) || depth > MAX_SCHEMA_DEPTH) return;
		const properties = propertiesOf(node);
		if (properties !== undefined) {
			for (const name of Object.keys(properties)) {
				const child = properties[name];
				if (name === key) found.push({ selector: `${path}/${name}` as ObjectLocationSelector, schema: child });
				// A name holding a `/` cannot be addressed by a selector.
				if (!name.includes("/") && name !== "*") walk(child, `${path}/${name}`, depth + 1);
			}
		}
		if (isRecord(node.items)) walk(node.items, `${path}/*`, depth + 1);
	};
	walk(schema, "", 0);
	return found.length > 0 ? found : [{ selector: `/${key}`, schema: undefined }];
}
