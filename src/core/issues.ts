/**
 * Turning validator issues into the three diagnostics of a failed call: a
 * value-free issue summary, a value-free FNV-1a failure fingerprint, and the
 * model-readable retry message. Also `describeExpectedShape`, the compact
 * value-free description of a tool's argument shape used when the same
 * failure repeats.
 */
import type { TSchema } from "typebox";
import { numberFromDecimalText } from "./convert.ts";
import { pointerSegments, valueAtSegments } from "./json-pointer.ts";
import { isRecord, tryStringify } from "./json-value.ts";
import { propertiesOf, requiredOf, type SchemaNode, typeList, unionBranches } from "./schema-shape.ts";
import type { ValidationIssue } from "./types.ts";

/** Retry messages list at most this many issues. */
export const MAX_RETRY_LINES = 8;
/** `Received:` is cut to this many UTF-16 code units, then `…` is appended. */
export const MAX_RECEIVED_LENGTH = 300;

function issuePath(issue: ValidationIssue): string {
	return issue.instancePath === "" ? "(root)" : issue.instancePath;
}

function issueDetail(issue: ValidationIssue): string {
	const { type, requiredProperties } = issue.params;
	if (typeof type === "string") return type;
	if (Array.isArray(requiredProperties)) return requiredProperties.join(",");
	return "";
}

/** `${path}|${keyword}|${detail}`: the value-free identity of one issue. */
export function describeIssue(issue: ValidationIssue): string {
	return `${issuePath(issue)}|${issue.keyword}|${issueDetail(issue)}`;
}

/** The issue descriptions in validator order, joined by `"; "`. */
export function summarizeIssues(issues: readonly ValidationIssue[]): string {
	return issues.map(describeIssue).join("; ");
}

/** 32-bit FNV-1a over UTF-16 code units, as 8 lowercase hex digits. */
export function fnv1a(text: string): string {
	let hash = 0x811c9dc5;
	for (let index = 0; index < text.length; index++) {
		hash ^= text.charCodeAt(index);
		hash = Math.imul(hash, 0x01000193) >>> 0;
	}
	return hash.toString(16).padStart(8, "0");
}

/** Same tool and same failure shape give the same fingerprint, whatever the values were. */
export function failureFingerprint(toolName: string, issues: readonly ValidationIssue[]): string {
	const descriptions = issues.map(describeIssue).sort();
	return fnv1a(`${toolName}::${descriptions.join(";")}`);
}

function renderReceived(value: unknown): string {
	const text = boundedJson(value, MAX_RECEIVED_LENGTH + 1) ?? printable(value);
	return text.length > MAX_RECEIVED_LENGTH ? `${text.slice(0, MAX_RECEIVED_LENGTH)}…` : text;
}

/** `String(value)`, or a placeholder for a value whose own conversion throws (it is the model's data, not ours). */
function printable(value: unknown): string {
	try {
		return String(value);
	} catch {
		return "[unprintable value]";
	}
}

/**
 * `JSON.stringify(value)`, except that once `budget` characters exist the
 * rest is left out: the first `budget` characters are identical, but a 1 MB
 * value costs no more than a small one. Anything outside plain JSON (a
 * `toJSON` method, a BigInt) takes the full `JSON.stringify` path;
 * `undefined` when there is no JSON text at all (a cycle, a BigInt).
 */
export function boundedJson(value: unknown, budget: number): string | undefined {
	const parts: string[] = [];
	let length = 0;
	let plain = true;
	const emit = (text: string): boolean => {
		parts.push(text);
		length += text.length;
		return length < budget;
	};
	// `false` stops the walk: the budget is spent, or the value is not plain JSON (then `plain` says so).
	const notPlain = (): boolean => {
		plain = false;
		return false;
	};
	const write = (node: unknown, inArray: boolean): boolean => {
		if (node === null) return emit("null");
		switch (typeof node) {
			case "string":
				return emit(JSON.stringify(prefixOf(node, budget - length)));
			case "number":
				return emit(Number.isFinite(node) ? String(node) : "null");
			case "boolean":
				return emit(node ? "true" : "false");
			case "undefined":
			case "function":
			case "symbol":
				return inArray ? emit("null") : true;
			case "object":
				break;
			case "bigint":
				return notPlain();
		}
		if (typeof (node as { toJSON?: unknown }).toJSON === "function") return notPlain();
		if (Array.isArray(node)) {
			if (!emit("[")) return false;
			for (let index = 0; index < node.length; index++) {
				if (index > 0 && !emit(",")) return false;
				if (!write(node[index], true)) return false;
			}
			return emit("]");
		}
		if (!emit("{")) return false;
		let first = true;
		for (const key of Object.keys(node)) {
			const child = (node as Record<string, unknown>)[key];
			if (child === undefined || typeof child === "function" || typeof child === "symbol") continue;
			if (!first && !emit(",")) return false;
			first = false;
			if (!emit(`${JSON.stringify(key)}:`)) return false;
			if (!write(child, false)) return false;
		}
		return emit("}");
	};
	if (value === undefined || typeof value === "function" || typeof value === "symbol") return undefined;
	write(value, false);
	return plain ? parts.join("") : tryStringify(value);
}

/** The first `count` code units of `text` (at least one), never ending inside a surrogate pair. */
function prefixOf(text: string, count: number): string {
	const keep = Math.max(1, count);
	if (text.length <= keep) return text;
	const code = text.charCodeAt(keep - 1);
	return text.slice(0, code >= 0xd800 && code <= 0xdbff ? keep + 1 : keep);
}

/**
 * The message the model sees when its call cannot be repaired: a header
 * naming the tool, one bullet per issue (first {@link MAX_RETRY_LINES}), and
 * the value the validator saw.
 */
export function formatRetryMessage(
	toolName: string,
	issues: readonly ValidationIssue[],
	received: unknown,
	schema?: unknown,
): string {
	const lines = [
		`The arguments for the ${toolName} tool did not pass validation; fix the problems below and call it again:`,
	];
	for (const issue of issues.slice(0, MAX_RETRY_LINES)) {
		lines.push(`  • ${issuePath(issue)}: ${refusedConversion(issue, received) ?? issue.message ?? issue.keyword}`);
		// A misspelt key (`paht`) is usually why a required one is missing; name it right there.
		if (issue.keyword === "required" && issue.instancePath === "") {
			const unexpected = unexpectedKeys(schema, received);
			if (unexpected !== undefined) lines.push(`  • (root): unexpected ${unexpected}, not a parameter of this tool`);
		}
	}
	lines.push(`Received: ${renderReceived(received)}`);
	return lines.join("\n");
}

/** How the retry sentence names what a type asks for. */
const WANTED: Readonly<Record<string, { article: string; noun: string }>> = {
	string: { article: "a string", noun: "text" },
	number: { article: "a number", noun: "number" },
	integer: { article: "an integer", noun: "number" },
	boolean: { article: "true or false", noun: "value" },
	array: { article: "an array", noun: "list" },
	object: { article: "an object", noun: "object" },
};

/** How much of a refused number text the sentence quotes. */
const MAX_QUOTED_TEXT = 40;

/**
 * For a type issue whose value a looser layer would have converted (a
 * boolean into text, non-decimal text into a number, a null into anything),
 * the sentence that says this layer refused that conversion and what to send
 * instead; `undefined` for every other issue, which keeps the validator's words.
 */
function refusedConversion(issue: ValidationIssue, received: unknown): string | undefined {
	const type = issue.params.type;
	if (issue.keyword !== "type" || typeof type !== "string" || !Object.hasOwn(WANTED, type)) return undefined;
	const segments = pointerSegments(issue.instancePath);
	const name = segments.at(-1);
	if (name === undefined) return undefined;
	const value = valueAtSegments(received, segments);
	const { article, noun } = WANTED[type] as { article: string; noun: string };
	const field = `\`${prefixOf(name, 64)}\``;
	if (value === null) {
		return `${field} must be ${article}, not null; the layer does not guess what a null stands for — send the ${noun} you meant`;
	}
	if (typeof value === "boolean" && type === "string") {
		return `${field} must be a string; the layer does not turn the boolean ${value} into text — send the text you meant`;
	}
	if (typeof value === "string" && (type === "number" || type === "integer")) {
		const quoted = JSON.stringify(prefixOf(value, MAX_QUOTED_TEXT));
		const decimal = numberFromDecimalText(value);
		if (decimal !== undefined) {
			// Text the layer converts was not what sank the call: the validator's words stand.
			if (type === "number" || Number.isInteger(decimal)) return undefined;
			return `${field} must be an integer; the layer does not round ${quoted} — send the whole number you meant`;
		}
		return `${field} must be ${article}; the layer reads only plain decimal text such as "16" as a number, not ${quoted} — send the number you meant`;
	}
	return undefined;
}

/** Keys named in the unexpected-keys line; longer lists end with a count. */
const MAX_UNEXPECTED_KEYS = 8;

/** The received object's top-level keys the schema does not declare, quoted, or `undefined` when none. */
function unexpectedKeys(schema: unknown, received: unknown): string | undefined {
	const declared = propertiesOf(schema);
	if (declared === undefined || !isRecord(received)) return undefined;
	const extra = Object.keys(received).filter((key) => !Object.hasOwn(declared, key));
	if (extra.length === 0) return undefined;
	const named = extra.slice(0, MAX_UNEXPECTED_KEYS).map((key) => JSON.stringify(prefixOf(key, 64)));
	const more = extra.length > MAX_UNEXPECTED_KEYS ? ` and ${extra.length - MAX_UNEXPECTED_KEYS} more` : "";
	return `${extra.length === 1 ? "key" : "keys"} ${named.join(", ")}${more}`;
}

// How deep the shape description follows nested objects before eliding them.
const MAX_SHAPE_DEPTH = 4;

/**
 * A value-free description of the tool's arguments, one field per line:
 * `- name: type (required|optional)`. Nested objects render inline as
 * `{key: type, key?: type}`, arrays as `array of …`, unions with `|`.
 */
export function describeExpectedShape(schema: TSchema): string {
	const node = schema as unknown;
	const properties = propertiesOf(node);
	if (properties === undefined) return `- (arguments): ${describeType(node, 0)}`;
	const required = requiredOf(node as SchemaNode);
	const lines: string[] = [];
	for (const [name, child] of Object.entries(properties)) {
		lines.push(`- ${name}: ${describeType(child, 1)} (${required.has(name) ? "required" : "optional"})`);
	}
	return lines.length === 0 ? "- (arguments): object with no declared fields" : lines.join("\n");
}

function describeType(node: unknown, depth: number): string {
	if (!isRecord(node)) return "any";
	if (Object.hasOwn(node, "const")) return describeLiteral(node.const);
	if (Array.isArray(node.enum)) return node.enum.map(describeLiteral).join(" | ");
	const union = unionBranches(node);
	if (union !== undefined) return union.map((branch) => describeType(branch, depth)).join(" | ");
	if (Array.isArray(node.allOf)) return node.allOf.map((part) => describeType(part, depth)).join(" & ");
	const type = node.type;
	if (Array.isArray(type))
		return typeList(type)
			.map((t) => describeType({ ...node, type: t }, depth))
			.join(" | ");
	if (type === "array" || (type === undefined && node.items !== undefined)) {
		return isRecord(node.items) ? `array of ${describeType(node.items, depth + 1)}` : "array";
	}
	const properties = propertiesOf(node);
	if (type === "object" || (type === undefined && properties !== undefined)) {
		if (properties === undefined) return "object";
		if (depth >= MAX_SHAPE_DEPTH) return "{…}";
		const required = requiredOf(node);
		const fields = Object.entries(properties).map(
			([name, child]) => `${name}${required.has(name) ? "" : "?"}: ${describeType(child, depth + 1)}`,
		);
		return `{${fields.join(", ")}}`;
	}
	if (typeof type === "string") return type;
	return "any";
}

function describeLiteral(value: unknown): string {
	// Enum members are part of the schema, not of the model's input, so showing them leaks no argument value.
	return typeof value === "string" ? JSON.stringify(value) : String(value);
}
