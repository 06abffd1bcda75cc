/**
 * The issue summary and failure fingerprint as they may leave the process
 * (telemetry records, session entries, diagnostics lines). The core's summary
 * (`<path>|<keyword>|<detail>; …`) names each issue's instance path, and a path
 * runs through the keys the model wrote: the key of a record-typed argument
 * (`env: { "API_KEY=…": … }`, a path as a key) or a key the tool does not
 * declare. Here every path segment is checked against the tool's schema:
 * declared property names and array indexes stay, and the first segment the
 * schema does not name ends the path as `*`. Keywords and details pass only
 * when they are validator keywords, JSON type names or names the schema
 * declares, so a key that itself holds `|` or `; ` cannot smuggle text into
 * another position. The fingerprint is taken again over the public summary,
 * so it neither depends on nor confirms a guess of those keys; for a call
 * without such keys it equals the core's.
 */
import { fnv1a } from "../../core/issues.ts";
import { isRecord } from "../../core/json-value.ts";
import { MAX_SCHEMA_DEPTH, propertiesOf, type SchemaNode, unionBranches } from "../../core/schema-shape.ts";

/** What replaces a segment, keyword or detail that may be the model's text. */
export const REDACTED = "*";

/** The keywords the validator and the pipeline report; any other text in keyword position is not theirs. */
const KEYWORDS: ReadonlySet<string> = new Set([
	"additionalItems",
	"additionalProperties",
	"allOf",
	"anyOf",
	"boolean",
	"const",
	"contains",
	"dependencies",
	"dependentRequired",
	"dependentSchemas",
	"else",
	"enum",
	"exclusiveMaximum",
	"exclusiveMinimum",
	"final-validation",
	"format",
	"if",
	"items",
	"maxContains",
	"maxItems",
	"maxLength",
	"maxProperties",
	"maximum",
	"minContains",
	"minItems",
	"minLength",
	"minProperties",
	"minimum",
	"multipleOf",
	"not",
	"oneOf",
	"pattern",
	"patternProperties",
	"prefixItems",
	"propertyNames",
	"required",
	"then",
	"too-large",
	"type",
	"unevaluatedItems",
	"unevaluatedProperties",
	"uniqueItems",
	"~guard",
	"~refine",
]);

const JSON_TYPE_NAMES: ReadonlySet<string> = new Set([
	"string",
	"number",
	"integer",
	"boolean",
	"array",
	"object",
	"null",
]);

const ALL_DIGITS = /^\d+$/;
/** A schema names at most this many properties for the detail check; a larger one is not walked further. */
const MAX_DECLARED_NAMES = 10_000;

export interface PublicIssues {
	issues?: string;
	fingerprint?: string;
}

/** The summary and fingerprint of `result` fit to leave the process; absent where the core had none. */
export function publicIssues(
	toolName: string,
	schema: unknown,
	result: { issueSummary?: string | undefined; fingerprint?: string | undefined },
): PublicIssues {
	const out: PublicIssues = {};
	if (result.issueSummary) {
		out.issues = publicIssueSummary(result.issueSummary, schema);
		if (result.fingerprint !== undefined) out.fingerprint = publicFingerprint(toolName, out.issues);
	} else if (result.fingerprint !== undefined) {
		out.fingerprint = result.fingerprint;
	}
	return out;
}

/** The summary with every segment, keyword and detail the schema or validator did not supply replaced by `*`. */
export function publicIssueSummary(summary: string, schema: unknown): string {
	let declared: ReadonlySet<string> | undefined;
	const names = () => {
		declared ??= declaredNames(schema);
		return declared;
	};
	const issues: string[] = [];
	for (const piece of summary.split("; ")) {
		const parts = piece.split("|");
		// Fewer than three parts: the piece is the front of a key that held "; ", not an issue.
		if (parts.length < 3) continue;
		const detail = parts.pop() ?? "";
		const keyword = parts.pop() ?? "";
		const path = parts.join("|");
		issues.push(
			`${publicPath(path, schema)}|${KEYWORDS.has(keyword) ? keyword : REDACTED}|${publicDetail(detail, names)}`,
		);
	}
	return issues.join("; ");
}

/** Same formula as the core's fingerprint, over the public descriptions. */
export function publicFingerprint(toolName: string, publicSummary: string): string {
	return fnv1a(`${toolName}::${publicSummary.split("; ").sort().join(";")}`);
}

function publicPath(path: string, schema: unknown): string {
	if (path === "(root)") return path;
	if (!path.startsWith("/")) return REDACTED;
	let nodes = expand([schema]);
	const kept: string[] = [];
	for (const segment of path.slice(1).split("/")) {
		const next = childNodes(nodes, segment);
		if (next === undefined) {
			kept.push(REDACTED);
			break;
		}
		kept.push(segment);
		nodes = next;
	}
	return `/${kept.join("/")}`;
}

function publicDetail(detail: string, names: () => ReadonlySet<string>): string {
	if (detail === "") return detail;
	return detail
		.split(",")
		.map((item) => (JSON_TYPE_NAMES.has(item) || names().has(item) ? item : REDACTED))
		.join(",");
}

/** The schema nodes under `segment`: a declared property, or an array element; `undefined` when none declares it. */
function childNodes(nodes: readonly SchemaNode[], segment: string): SchemaNode[] | undefined {
	const found: unknown[] = [];
	for (const node of nodes) {
		const properties = propertiesOf(node);
		if (properties !== undefined && Object.hasOwn(properties, segment)) found.push(properties[segment]);
		if (!ALL_DIGITS.test(segment)) continue;
		if (Array.isArray(node.prefixItems)) {
			const item: unknown = node.prefixItems[Number(segment)];
			if (item !== undefined) found.push(item);
		}
		if (isRecord(node.items)) found.push(node.items);
	}
	return found.length > 0 ? expand(found) : undefined;
}

/** The nodes with their union and intersection branches spread out, to a bounded depth. */
function expand(nodes: readonly unknown[]): SchemaNode[] {
	const out: SchemaNode[] = [];
	const visit = (node: unknown, depth: number) => {
		if (!isRecord(node) || depth > MAX_SCHEMA_DEPTH) return;
		out.push(node);
		for (const branch of unionBranches(node) ?? []) visit(branch, depth + 1);
		if (Array.isArray(node.allOf)) for (const branch of node.allOf) visit(branch, depth + 1);
	};
	for (const node of nodes) visit(node, 0);
	return out;
}

/** Every property name the schema declares, at any depth (bounded), for the `required` detail. */
function declaredNames(schema: unknown): Set<string> {
	const names = new Set<string>();
	const seen = new Set<object>();
	const visit = (node: unknown, depth: number) => {
		if (!isRecord(node) || depth > MAX_SCHEMA_DEPTH || seen.has(node) || names.size >= MAX_DECLARED_NAMES) return;
		seen.add(node);
		const properties = propertiesOf(node);
		if (properties !== undefined) {
			for (const [name, child] of Object.entries(properties)) {
				names.add(name);
				visit(child, depth + 1);
			}
		}
		for (const key of ["anyOf", "oneOf", "allOf", "prefixItems"] as const) {
			const list = node[key];
			if (Array.isArray(list)) for (const branch of list) visit(branch, depth + 1);
		}
		visit(node.items, depth + 1);
		visit(node.additionalProperties, depth + 1);
		if (isRecord(node.patternProperties))
			for (const child of Object.values(node.patternProperties)) visit(child, depth + 1);
	};
	visit(schema, 0);
	return names;
}
