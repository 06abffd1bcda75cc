/**
 * The argument object's keys against the names its tool declares.
 *
 * pi's schemas accept keys they do not declare and the tool then ignores
 * them, so `read {path, start, max}` reads the whole file and
 * `bash {command, timeoutMs}` runs with the default timeout, and nobody is
 * told. Two rules act on such keys, and only on them:
 *
 * - a wrapper around the real arguments (`{"name": "read", "arguments": {…}}`,
 *   `{"parameters": {…}}`, `{"input": {…}}`) is unwrapped, one level, when the
 *   name (if present) is the tool's own, no key of the wrapper is one the tool
 *   declares, and the inner object passes the schema as it stands;
 * - any key still undeclared after every repair is named in a note, so the
 *   model learns; the call runs as it would have. Mapping such a key onto a
 *   field is left to the configured aliases (`file_path` for `path`), which run
 *   before: a guessed mapping (`timeoutMs` onto a timeout in seconds) would
 *   change what the call does.
 *
 * Both act only on a key the schema does not declare, so the valid path asks
 * that one cheap question of a call (see {@link ARGUMENT_KEY_ROWS}). The note
 * is for the model only: rule IDs are all that telemetry and logs get.
 */
import { declaredPropertiesAt } from "./flattened-keys.ts";
import { isPlainObject, isRecord } from "./json-value.ts";
import { RULE } from "./rule-ids.ts";
import type { RepairChange, TSchema } from "./types.ts";
import { check } from "./validator.ts";

/** Keys that wrap the real arguments in the call formats models imitate. */
export const WRAPPER_KEYS: readonly string[] = ["arguments", "parameters", "input"];

// The note names at most this many keys, each cut to this many characters: the keys are model-written text.
const MAX_NAMED_KEYS = 8;
const MAX_KEY_LENGTH = 64;

/** A test that is `true` for a call holding a key `schema` does not declare. */
type KeyTest = (input: Record<string, unknown>) => boolean;

/** One rule that acts on the argument object's keys: for a schema, the inputs it may act on, or `undefined` for none. */
export interface ArgumentKeyRow {
	readonly ruleId: string;
	readonly mayApply: (schema: TSchema) => KeyTest | undefined;
}

const declaredCache = new WeakMap<object, { declared: ReadonlySet<string> | undefined; test: KeyTest | undefined }>();

/**
 * The names the root of `schema` declares, when a key outside them is
 * ignored: `undefined` where the schema takes any key (`additionalProperties`
 * true or a schema, pattern properties) or its root is not a plain object
 * schema, since there no key is undeclared for sure.
 */
function declaredAtRoot(schema: TSchema): { declared: ReadonlySet<string> | undefined; test: KeyTest | undefined } {
	let entry = declaredCache.get(schema);
	if (entry === undefined) {
		const declared =
			isRecord(schema) && schema.additionalProperties === true ? undefined : declaredPropertiesAt(schema, []);
		const test: KeyTest | undefined =
			declared === undefined
				? undefined
				: (input) => {
						// `for…in` allocates no key list; an inherited key (a polluted prototype) only costs the full run.
						for (const key in input) if (!declared.has(key)) return true;
						return false;
					};
		entry = { declared, test };
		declaredCache.set(schema, entry);
	}
	return entry;
}

const hasUndeclaredKey = (schema: TSchema): KeyTest | undefined => declaredAtRoot(schema).test;

/** Every rule that acts on undeclared keys; the valid path skips a call for which none may apply. */
export const ARGUMENT_KEY_ROWS: readonly ArgumentKeyRow[] = [
	{ ruleId: RULE.unwrapArgumentWrapper, mayApply: hasUndeclaredKey },
	{ ruleId: RULE.reportUndeclaredKeys, mayApply: hasUndeclaredKey },
];

/** The distinct tests the rows ask for `schema`: a call none of them passes needs neither rule. */
export function argumentKeyTests(schema: TSchema): KeyTest[] {
	const tests = new Set<KeyTest>();
	for (const row of ARGUMENT_KEY_ROWS) {
		const test = row.mayApply(schema);
		if (test !== undefined) tests.add(test);
	}
	return [...tests];
}

/**
 * The real arguments inside a wrapper, with the change that records it, or
 * `undefined` when `value` is not exactly one wrapper of the tool's own call
 * around arguments that pass the schema.
 */
export function unwrapArgumentWrapper(
	value: unknown,
	schema: TSchema,
	toolName: string,
): { value: Record<string, unknown>; change: RepairChange } | undefined {
	if (!isPlainObject(value)) return undefined;
	const { declared } = declaredAtRoot(schema);
	if (declared === undefined) return undefined;
	const keys = Object.keys(value);
	const wrapperKey = keys.find((key) => WRAPPER_KEYS.includes(key));
	if (wrapperKey === undefined) return undefined;
	const siblings = keys.filter((key) => key !== wrapperKey);
	// Only the tool's own name may stand beside the wrapper; any other key is data the unwrap would lose.
	if (siblings.length > 1 || (siblings.length === 1 && (siblings[0] !== "name" || value.name !== toolName))) {
		return undefined;
	}
	// A tool that declares `input` (or `name`, …) itself means that key as sent.
	if (keys.some((key) => declared.has(key))) return undefined;
	const inner = value[wrapperKey];
	if (!isPlainObject(inner) || !check(schema, inner)) return undefined;
	return {
		value: inner,
		change: {
			ruleId: RULE.unwrapArgumentWrapper,
			stage: "schema-repair",
			note: unwrapArgumentWrapperNote(toolName, wrapperKey, siblings.length === 1),
		},
	};
}

/** The change that names the keys of `args` the tool does not declare, or `undefined` when there are none. */
export function undeclaredKeysChange(schema: TSchema, args: unknown, toolName: string): RepairChange | undefined {
	if (!isRecord(args)) return undefined;
	const { declared, test } = declaredAtRoot(schema);
	if (declared === undefined || test === undefined || !test(args)) return undefined;
	const ignored = Object.keys(args).filter((key) => !declared.has(key));
	return {
		ruleId: RULE.reportUndeclaredKeys,
		stage: "schema-repair",
		note: undeclaredKeysNote(toolName, ignored, [...declared]),
	};
}

function unwrapArgumentWrapperNote(tool: string, wrapperKey: string, named: boolean): string {
	const shape = named ? `{"name": "${tool}", "${wrapperKey}": {…}}` : `{"${wrapperKey}": {…}}`;
	return `The ${tool} arguments arrived wrapped as ${shape}; the inner object was used. Send the tool's fields directly, without the wrapper.`;
}

/** A key as the note quotes it: JSON-escaped (no raw control characters) and cut short. */
function quotedKey(key: string): string {
	return JSON.stringify(key.length > MAX_KEY_LENGTH ? `${key.slice(0, MAX_KEY_LENGTH)}…` : key);
}

function undeclaredKeysNote(tool: string, ignored: readonly string[], declared: readonly string[]): string {
	const named = ignored.slice(0, MAX_NAMED_KEYS).map(quotedKey);
	const more = ignored.length > MAX_NAMED_KEYS ? ` and ${ignored.length - MAX_NAMED_KEYS} more` : "";
	const one = ignored.length === 1;
	const fields = declared.length === 0 ? "none" : declared.map((key) => `"${key}"`).join(", ");
	return `The ${tool} tool has no ${one ? "field" : "fields"} ${named.join(", ")}${more}; ${one ? "it was" : "they were"} ignored and the call ran without ${one ? "it" : "them"}. Its fields are: ${fields}. Use only these fields.`;
}
