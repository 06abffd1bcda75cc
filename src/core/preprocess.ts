/**
 * Stage 4: selector-guided preprocessing.
 *
 * Applies a tool's preprocessors in list order, each seeing the previous
 * one's result: exact alias moves, owner structural reshapes, and per-field
 * value transforms. The model-gated "valid-value" kinds (`anchor-bleed`,
 * `grammar-tokens`) run only for a matching model, and under a policy that
 * forbids valid-value transforms they are observed instead of written.
 *
 * Copy-on-write: the input is never cloned wholesale and never mutated. A
 * write copies only the containers on the path from the root to the written
 * location; untouched siblings (a large `content` string, say) are reused by
 * reference, and when nothing changes the input itself comes back.
 */
import { cloneJson, defineOwn, isRecord, jsonEqual } from "./clone.ts";
import { decimalText, numberFromDecimalText } from "./convert.ts";
import { readsAsListLiteral } from "./list-literal.ts";
import { unwrapMarkdownAutoLinks } from "./markdown-links.ts";
import { parseSelector, resolveSegments } from "./selectors.ts";
import type {
	AliasPreprocessor,
	FieldPreprocessor,
	Preprocessor,
	RepairChange,
	StructuralPreprocessor,
} from "./types.ts";

export interface PreprocessOptions {
	input: unknown;
	toolName: string;
	preprocessors: readonly Preprocessor[];
	modelId?: string;
	allowValidValueTransforms: boolean;
}

export interface PreprocessResult {
	value: unknown;
	changes: RepairChange[];
	/** Rule IDs of gated transforms that were detected but, by policy, not applied (de-duplicated, in order). */
	observations: string[];
}

/** Runs every preprocessor in order over a copy-on-write view of `input`. */
export function preprocessInput(options: PreprocessOptions): PreprocessResult {
	const tree = new CopyOnWriteTree(options.input);
	const context: Context = {
		tree,
		toolName: options.toolName,
		modelId: options.modelId,
		allowValidValueTransforms: options.allowValidValueTransforms,
		changes: [],
		observations: [],
	};
	for (const preprocessor of options.preprocessors) {
		if (preprocessor.kind === "alias") {
			applyAlias(preprocessor, context);
		} else if (preprocessor.kind === "structural") {
			applyStructural(preprocessor, context);
		} else {
			applyField(preprocessor, context); // unknown kinds end up here and are ignored
		}
	}
	return { value: tree.root, changes: context.changes, observations: context.observations };
}

interface Context {
	tree: CopyOnWriteTree;
	toolName: string;
	modelId: string | undefined;
	allowValidValueTransforms: boolean;
	changes: RepairChange[];
	observations: string[];
}

type Path = readonly (string | number)[];
type Container = Record<string, unknown> | unknown[];

/**
 * The working value. Containers this tree copied are "owned" and may be
 * written in place; anything else still belongs to the caller and is copied
 * before the first write beneath it.
 */
class CopyOnWriteTree {
	root: unknown;
	private readonly owned = new Set<object>();

	constructor(root: unknown) {
		this.root = root;
	}

	/** Sets the value at `path`; the empty path replaces the root. */
	write(path: Path, value: unknown): void {
		if (path.length === 0) {
			this.root = value;
			return;
		}
		const parent = this.writableAt(path.slice(0, -1));
		const key = path[path.length - 1]!;
		if (Array.isArray(parent)) {
			parent[key as number] = value;
		} else {
			defineOwn(parent, String(key), value);
		}
	}

	/** The container at `path`, copied (with its ancestors) if the tree does not own it yet. */
	writableAt(path: Path): Container {
		if (!this.isOwned(this.root)) {
			this.root = this.adopt(this.root as Container);
		}
		let container = this.root as Container;
		for (const key of path) {
			const child = (container as Record<string | number, unknown>)[key] as Container;
			if (this.isOwned(child)) {
				container = child;
				continue;
			}
			const copy = this.adopt(child);
			if (Array.isArray(container)) {
				container[key as number] = copy;
			} else {
				defineOwn(container, String(key), copy);
			}
			container = copy;
		}
		return container;
	}

	private isOwned(value: unknown): boolean {
		return typeof value === "object" && value !== null && this.owned.has(value);
	}

	private adopt(container: Container): Container {
		const copy = shallowCopy(container);
		this.owned.add(copy);
		return copy;
	}
}

/** A one-level copy: arrays by `slice`, records keep a null prototype if they had one, else become plain. */
function shallowCopy(container: Container): Container {
	if (Array.isArray(container)) {
		return container.slice();
	}
	const copy: Record<string, unknown> = Object.getPrototypeOf(container) === null ? Object.create(null) : {};
	for (const key of Object.keys(container)) {
		defineOwn(copy, key, container[key]);
	}
	return copy;
}

// ---------------------------------------------------------------------------
// alias

function applyAlias(preprocessor: AliasPreprocessor, context: Context): void {
	const segments = parseSelector(preprocessor.selector);
	const last = segments.at(-1);
	if (last === undefined || last.kind !== "key") {
		return; // the root, or a wildcard, names no canonical key
	}
	const canonical = last.key;
	for (const parent of resolveSegments(context.tree.root, segments.slice(0, -1))) {
		const record = parent.value;
		if (!isRecord(record) || !canonicalIsMissing(record[canonical], preprocessor)) {
			continue;
		}
		const alias = preprocessor.aliases.find((name) => name in record && aliasValueUsable(record[name], preprocessor));
		if (alias === undefined) {
			continue;
		}
		const target = context.tree.writableAt(parent.path) as Record<string, unknown>;
		const moved = record[alias];
		delete target[alias];
		defineOwn(target, canonical, moved);
		context.changes.push({
			ruleId: "preprocess.exact-alias",
			stage: "preprocess",
			note: aliasNote(alias, canonical, context.toolName),
		});
	}
}

function canonicalIsMissing(value: unknown, preprocessor: AliasPreprocessor): boolean {
	if (value === undefined || value === null) {
		return true;
	}
	return preprocessor.emptyEquivalentToMissing === true && value === "";
}

function aliasValueUsable(value: unknown, preprocessor: AliasPreprocessor): boolean {
	if (value === "") {
		return false;
	}
	switch (preprocessor.accepts) {
		case undefined:
			return value !== undefined && value !== null;
		case "array":
			return Array.isArray(value);
		case "object":
			return isRecord(value);
		case "string":
		case "number":
		case "boolean":
			return typeof value === preprocessor.accepts;
	}
}

// ---------------------------------------------------------------------------
// structural

function applyStructural(preprocessor: StructuralPreprocessor, context: Context): void {
	for (const location of resolveSegments(context.tree.root, parseSelector(preprocessor.selector))) {
		// The owner's function may mutate what it is given; it gets a copy, never caller data.
		const result = preprocessor.apply(cloneJson(location.value));
		if (result === undefined) {
			continue;
		}
		context.tree.write(location.path, result.value);
		context.changes.push({ ruleId: preprocessor.ruleId, stage: "preprocess", note: result.note });
	}
}

// ---------------------------------------------------------------------------
// field kinds

const HEURISTIC_RULE_IDS: Readonly<Record<string, string>> = {
	"anchor-bleed": "stripAnchorBleed",
	"grammar-tokens": "stripGrammarTokenLeak",
};

function applyField(preprocessor: FieldPreprocessor, context: Context): void {
	const transform = fieldTransform(preprocessor);
	if (transform === undefined) {
		return; // `glob`, a `scalar` without a type, or a kind this version does not know
	}
	const heuristicRuleId = HEURISTIC_RULE_IDS[preprocessor.kind];
	if (heuristicRuleId !== undefined && !modelMatches(context.modelId, preprocessor.modelFamilies)) {
		return;
	}
	const ruleId = heuristicRuleId ?? `preprocess.${preprocessor.kind}`;
	for (const location of resolveSegments(context.tree.root, parseSelector(preprocessor.selector))) {
		const next = transform(location.value);
		if (Object.is(next, location.value) || jsonEqual(next, location.value)) {
			continue;
		}
		if (heuristicRuleId !== undefined && !context.allowValidValueTransforms) {
			if (!context.observations.includes(ruleId)) {
				context.observations.push(ruleId);
			}
			continue;
		}
		context.tree.write(location.path, next);
		context.changes.push({ ruleId, stage: "preprocess", note: fieldNote(preprocessor, context.toolName) });
	}
}

function modelMatches(modelId: string | undefined, families: readonly RegExp[] | undefined): boolean {
	if (typeof modelId !== "string" || modelId === "" || families === undefined) {
		return false;
	}
	return families.some((family) => {
		// A global or sticky regex keeps state between `test` calls; match from the start every time.
		const pattern =
			family.global || family.sticky ? new RegExp(family.source, family.flags.replace(/[gy]/g, "")) : family;
		return pattern.test(modelId);
	});
}

type Transform = (value: unknown) => unknown;

function fieldTransform(preprocessor: FieldPreprocessor): Transform | undefined {
	switch (preprocessor.kind) {
		case "filesystem-path":
			return (value) => (typeof value === "string" ? unwrapMarkdownAutoLinks(value) : value);
		case "filesystem-path-array":
			return unwrapPathArray;
		case "string-or-array":
			return (value) => (typeof value === "string" && !readsAsListLiteral(value) ? [value] : value);
		case "scalar":
			return scalarTransform(preprocessor.scalarType);
		case "anchor-bleed":
			return (value) => (typeof value === "string" ? stripAnchors(value) : value);
		case "grammar-tokens":
			return (value) => stripGrammarTokens(value, preprocessor.contentKeys ?? []);
		case "glob":
			return undefined; // recognised, and deliberately a no-op
		default:
			return undefined; // a kind this version does not know
	}
}

function unwrapPathArray(value: unknown): unknown {
	if (!Array.isArray(value)) {
		return value;
	}
	let changed = false;
	const next = value.map((item: unknown) => {
		if (typeof item !== "string") {
			return item;
		}
		const unwrapped = unwrapMarkdownAutoLinks(item);
		changed ||= unwrapped !== item;
		return unwrapped;
	});
	return changed ? next : value;
}

function scalarTransform(scalarType: FieldPreprocessor["scalarType"]): Transform | undefined {
	switch (scalarType) {
		case "string":
			// An owner asked for text here; a number still becomes only its exact decimal text.
			return (value) =>
				typeof value === "number" ? (decimalText(value) ?? value) : typeof value === "boolean" ? String(value) : value;
		case "number":
			// Only decimal number text is a number: `"0x10"`, `"1e3"` and `" 5 "` would be guesses.
			return (value) => (typeof value === "string" ? (numberFromDecimalText(value) ?? value) : value);
		case "boolean":
			return (value) => {
				if (typeof value !== "string" || value.length > 5) {
					return value;
				}
				const lower = value.toLowerCase();
				return lower === "true" ? true : lower === "false" ? false : value;
			};
		case undefined:
			return undefined;
	}
}

/**
 * Removes every leading `^`, and the trailing `$` run only when a leading `^`
 * was there to pair with it and the `$` does not end a Windows share name
 * (`C$`, `\\server\c$`); inner anchors stay.
 */
function stripAnchors(value: string): string {
	let start = 0;
	let end = value.length;
	while (start < end && value[start] === "^") {
		start++;
	}
	if (start > 0) {
		while (end > start && value[end - 1] === "$") {
			end--;
		}
		if (end < value.length && endsShareName(value.slice(start, end), value.length - end)) {
			end = value.length;
		}
	}
	return start === 0 && end === value.length ? value : value.slice(start, end);
}

// A lone drive letter and one `$` is a drive share (`C$`); in a UNC path a `$` ends a hidden share name.
function endsShareName(body: string, dollars: number): boolean {
	return (dollars === 1 && /^[A-Za-z]$/.test(body)) || body.startsWith("\\\\") || body.startsWith("//");
}

const OPENING_TOKENS = ["<arg_key>", "<arg_value>"] as const;
const CLOSING_TOKENS = ["</arg_key>", "</arg_value>"] as const;

/**
 * Removes one leaked opening token at the start and one closing token at the
 * end. A value keeps every other character; a key (an identifier) also loses
 * the whitespace that sat between a removed token and its text. A string
 * with no token is returned as is, untrimmed.
 */
export function stripTokenLeak(text: string, isKey: boolean): string {
	let start = 0;
	let end = text.length;
	const opening = OPENING_TOKENS.find((token) => text.startsWith(token));
	if (opening !== undefined) {
		start = opening.length;
	}
	const closing = CLOSING_TOKENS.find((token) => text.endsWith(token) && text.length - token.length >= start);
	if (closing !== undefined) {
		end = text.length - closing.length;
	}
	if (opening === undefined && closing === undefined) {
		return text;
	}
	let stripped = text.slice(start, end);
	if (isKey) {
		if (opening !== undefined) {
			stripped = stripped.trimStart();
		}
		if (closing !== undefined) {
			stripped = stripped.trimEnd();
		}
	}
	return stripped;
}

/**
 * Token cleanup for a string, or for a record's keys and string values. A
 * value under a content key (judged by its cleaned key) is content and keeps
 * every character. A record is rebuilt with a null prototype only when a key
 * changed (cleaned keys that collide keep the later value); value-only
 * changes copy it.
 */
function stripGrammarTokens(value: unknown, contentKeys: readonly string[]): unknown {
	if (typeof value === "string") {
		return stripTokenLeak(value, false);
	}
	if (!isRecord(value)) {
		return value;
	}
	const keys = Object.keys(value);
	const cleanedKeys = keys.map((key) => stripTokenLeak(key, true));
	const cleanedValues = keys.map((key, index) => {
		const item = value[key];
		return typeof item === "string" && !contentKeys.includes(cleanedKeys[index]!) ? stripTokenLeak(item, false) : item;
	});
	const keyChanged = cleanedKeys.some((key, index) => key !== keys[index]);
	const valueChanged = cleanedValues.some((item, index) => item !== value[keys[index]!]);
	if (!keyChanged && !valueChanged) {
		return value;
	}
	const rebuilt: Record<string, unknown> = keyChanged ? Object.create(null) : shallowCopy(value);
	for (let index = 0; index < keys.length; index++) {
		defineOwn(rebuilt, cleanedKeys[index]!, cleanedValues[index]);
	}
	return rebuilt;
}

// ---------------------------------------------------------------------------
// notes

function renderSelector(selector: string): string {
	return selector === "" ? "/" : selector;
}

function aliasNote(alias: string, canonical: string, toolName: string): string {
	return `The ${toolName} input used the key "${alias}" where the canonical key is "${canonical}"; the value was moved to "${canonical}". Use "${canonical}" in future calls.`;
}

function fieldNote(preprocessor: FieldPreprocessor, toolName: string): string {
	const selector = renderSelector(preprocessor.selector);
	switch (preprocessor.kind) {
		case "filesystem-path":
		case "filesystem-path-array":
			return `Markdown auto-link syntax at ${selector} in the ${toolName} input was reduced to the link text. Pass bare filesystem paths, without markdown link syntax.`;
		case "anchor-bleed":
			return `Regex anchor characters (^ or $) that had leaked into a configured value of the ${toolName} input were removed.`;
		case "grammar-tokens":
			return `Grammar marker tokens (<arg_key>/<arg_value>) that had leaked into keys or values at configured locations of the ${toolName} input were removed.`;
		case "glob":
		case "scalar":
		case "string-or-array":
			return `The configured ${preprocessor.kind} preprocessing took effect at ${selector} of the ${toolName} input.`;
	}
}
