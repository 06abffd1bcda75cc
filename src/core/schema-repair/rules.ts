/**
 * The six issue-site rules of the schema-repair engine, as a table tried in
 * order for every site (the first rule that applies fires, then the engine
 * moves to the next site). Each rule is a row `{ id, applies, apply }`;
 * `apply` mutates the engine's private working copy and returns the note.
 *
 * What the rules refuse matters as much as what they do: nothing is renamed
 * without a configured alias, `null` array elements are never dropped, a
 * string that reads as a list literal is never wrapped (a list is not one item), and
 * JSON text is parsed only where the schema asked for an array or an object.
 */
import { defineOwn, isRecord } from "../clone.ts";
import { tryParse } from "../json-text.ts";
import { readsAsListLiteral } from "../list-literal.ts";
import type { IssueSite } from "./issue-sites.ts";
import {
	dropEmptyObjectPlaceholderNote,
	dropNullOrUndefinedFieldNote,
	parseJsonStringifiedArrayNote,
	parseJsonStringifiedObjectNote,
	renameAliasedFieldNote,
	wrapBareStringAsArrayNote,
} from "./notes.ts";

export interface RuleContext {
	toolName: string;
	fieldAliases: Readonly<Record<string, readonly string[]>>;
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

/** The first configured alias present on `parent` with a usable value, if any. */
function usableAlias(parent: Record<string, unknown>, key: string, context: RuleContext): string | undefined {
	if (!Object.hasOwn(context.fieldAliases, key)) return undefined;
	const aliases = context.fieldAliases[key] ?? [];
	for (const alias of aliases) {
		if (alias === key || !Object.hasOwn(parent, alias)) continue;
		const value = parent[alias];
		if (!isNullish(value) && value !== "") return alias;
	}
	return undefined;
}

/** Parses `text` when its trimmed form is delimited by `open`/`close`; `undefined` otherwise. */
function parseDelimited(text: string, open: string, close: string): unknown {
	const trimmed = text.trim();
	if (!trimmed.startsWith(open) || !trimmed.endsWith(close)) return undefined;
	return tryParse(trimmed);
}

function parsedArray(value: unknown): unknown[] | undefined {
	if (typeof value !== "string") return undefined;
	const parsed = parseDelimited(value, "[", "]");
	return Array.isArray(parsed) ? parsed : undefined;
}

function parsedRecord(value: unknown): Record<string, unknown> | undefined {
	if (typeof value !== "string") return undefined;
	const parsed = parseDelimited(value, "{", "}");
	return isRecord(parsed) ? parsed : undefined;
}

export const ISSUE_RULES: readonly IssueRule[] = [
	{
		id: "renameAliasedField",
		applies(site, context) {
			const at = recordSite(site);
			if (at === undefined) return false;
			if (Object.hasOwn(at.parent, at.key) && !isNullish(at.parent[at.key])) return false;
			return usableAlias(at.parent, at.key, context) !== undefined;
		},
		apply(site, context) {
			const { parent, key } = recordSite(site) as { parent: Record<string, unknown>; key: string };
			const alias = usableAlias(parent, key, context) as string;
			defineOwn(parent, key, parent[alias]);
			delete parent[alias];
			return renameAliasedFieldNote(alias, key, context.toolName);
		},
	},
	{
		id: "dropNullOrUndefinedField",
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
		id: "dropEmptyObjectPlaceholder",
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
	{
		id: "parseJsonStringifiedArray",
		applies(site) {
			return site.expectedType === "array" && parsedArray(valueAt(site)) !== undefined;
		},
		apply(site, context) {
			replaceAt(site, parsedArray(valueAt(site)));
			return parseJsonStringifiedArrayNote(String(site.key), context.toolName);
		},
	},
	{
		id: "parseJsonStringifiedObject",
		applies(site) {
			return site.expectedType === "object" && parsedRecord(valueAt(site)) !== undefined;
		},
		apply(site, context) {
			replaceAt(site, parsedRecord(valueAt(site)));
			return parseJsonStringifiedObjectNote(String(site.key), context.toolName);
		},
	},
	{
		id: "wrapBareStringAsArray",
		applies(site) {
			const value = valueAt(site);
			return site.expectedType === "array" && typeof value === "string" && !readsAsListLiteral(value);
		},
		apply(site, context) {
			replaceAt(site, [valueAt(site)]);
			return wrapBareStringAsArrayNote(String(site.key), context.toolName);
		},
	},
];
