/**
 * Stage 4: selector-guided preprocessing.
 *
 * Every preprocessor kind is one row of {@link ROWS}: its rule ID, whether it
 * is model-gated, a cheap "may this change the value here?" predicate, and
 * its rewrite (which writes the note). A list of preprocessors compiles once
 * per model id into a {@link PreprocessPlan}: the model gates are resolved
 * then, and both the run and the valid path's skip check are built from the
 * same rows, so the two can never disagree. Preprocessors run in list order,
 * each seeing the previous one's result; under a policy that forbids
 * valid-value transforms a gated row is observed instead of written.
 *
 * Copy-on-write: the input is never cloned wholesale and never mutated. A
 * write copies only the containers on the path from the root to the written
 * location; untouched siblings (a large `content` string, say) are reused by
 * reference, and when nothing changes the input itself comes back.
 */
import { cloneJson, jsonEqual } from "./clone.ts";
import { decimalText, numberFromDecimalText } from "./convert.ts";
import { defineOwn, isRecord, shallowCopyRecord } from "./json-value.ts";
import { readsAsListLiteral } from "./list-literal.ts";
import { mayHoldAutoLink, unwrapMarkdownAutoLinks } from "./markdown-links.ts";
import { RULE } from "./rule-ids.ts";
import { parseSelector, resolveSegments, type SelectorSegment } from "./selectors.ts";
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
	/** True when grammar-token cleanup rewrote something. */
	tokensRemoved: boolean;
	/** Kinds in the list that this version does not know: ignored, and reported here so they are never skipped silently. */
	unknownKinds: string[];
}

/** What a row's rewrite produced at one location. */
export interface Rewrite {
	value: unknown;
	note: string;
}

/** One preprocessor kind. */
interface Row<P extends Preprocessor> {
	/** The rule ID its changes carry. */
	ruleId(preprocessor: P): string;
	/** Runs only for a model its families match, and is observed, not written, when valid-value transforms are off. */
	gated: boolean;
	/** The locations it looks at: the selector's, or for an alias the records that hold the canonical key. */
	segments(preprocessor: P): readonly SelectorSegment[];
	/** Cheap and conservative: `false` only when the rewrite certainly leaves the value at this location as it is. */
	mayChange(preprocessor: P): (value: unknown) => boolean;
	/** The rewritten value and its note, or `undefined` when nothing changes; `undefined` as a whole when the row never writes. */
	rewrite(preprocessor: P): ((value: unknown, toolName: string) => Rewrite | undefined) | undefined;
}

type PreprocessorOf<K extends Preprocessor["kind"]> = K extends "alias"
	? AliasPreprocessor
	: K extends "structural"
		? StructuralPreprocessor
		: FieldPreprocessor;

/** One step of a compiled plan: a preprocessor with its row applied and its model gate already resolved. */
interface Step {
	kind: Preprocessor["kind"];
	ruleId: string;
	gated: boolean;
	segments: readonly SelectorSegment[];
	/** The row's predicate at one location of `segments`. */
	mayChange: (value: unknown) => boolean;
	rewrite: (value: unknown, toolName: string) => Rewrite | undefined;
}

/** A preprocessor list compiled for one model id. */
export interface PreprocessPlan {
	readonly steps: readonly Step[];
	readonly unknownKinds: readonly string[];
	/** `false` only when running the plan on `root` certainly changes, records and observes nothing. */
	readonly mayChange: (root: unknown) => boolean;
	/** The tests `mayChange` asks, one per location: a caller that has tests of its own can ask them all in one loop. */
	readonly tests: readonly ((root: unknown) => boolean)[];
	/** The same plan without grammar-token cleanup, for the one rerun after tokens were removed. */
	readonly withoutTokenCleanup: () => PreprocessPlan;
}

const plans = new WeakMap<readonly Preprocessor[], Map<string | undefined, PreprocessPlan>>();

/** The plan for `preprocessors` under `modelId`, compiled once per list and model. */
export function compilePreprocessPlan(
	preprocessors: readonly Preprocessor[],
	modelId: string | undefined,
): PreprocessPlan {
	let byModel = plans.get(preprocessors);
	if (byModel === undefined) {
		byModel = new Map();
		plans.set(preprocessors, byModel);
	}
	let plan = byModel.get(modelId);
	if (plan === undefined) {
		plan = buildPlan(preprocessors, modelId);
		byModel.set(modelId, plan);
	}
	return plan;
}

function buildPlan(preprocessors: readonly Preprocessor[], modelId: string | undefined): PreprocessPlan {
	const steps: Step[] = [];
	const unknownKinds: string[] = [];
	for (const preprocessor of preprocessors) {
		const row = rowFor(preprocessor.kind);
		if (row === undefined) {
			unknownKinds.push(String(preprocessor.kind));
			continue;
		}
		const step = compileStep(row, preprocessor, modelId);
		if (step !== undefined) steps.push(step);
	}
	return planOf(steps, unknownKinds);
}

function planOf(steps: readonly Step[], unknownKinds: readonly string[]): PreprocessPlan {
	let without: PreprocessPlan | undefined;
	// A kind this version does not know may change anything.
	const tests = unknownKinds.length > 0 ? [() => true] : testsByLocation(steps);
	const plan: PreprocessPlan = {
		steps,
		unknownKinds,
		tests,
		mayChange: anyOf(tests),
		withoutTokenCleanup: () => {
			without ??= steps.some((step) => step.kind === "grammar-tokens")
				? planOf(
						steps.filter((step) => step.kind !== "grammar-tokens"),
						unknownKinds,
					)
				: plan;
			return without;
		},
	};
	return plan;
}

/** A "may this change the value here?" test at the locations `segments` address. */
export interface LocationTest {
	readonly segments: readonly SelectorSegment[];
	readonly mayChange: (value: unknown) => boolean;
}

/**
 * One test per distinct location: tests that look at the same location share
 * one walk to it, and the same test function there runs once. Order does not
 * matter here: when no test passes, each stage sees the input itself, so
 * "some test passes" is the same question asked of every stage at once.
 */
export function testsByLocation(entries: readonly LocationTest[]): ((root: unknown) => boolean)[] {
	const groups = new Map<string, { segments: readonly SelectorSegment[]; tests: Set<(value: unknown) => boolean> }>();
	for (const entry of entries) {
		const key = JSON.stringify(entry.segments);
		let group = groups.get(key);
		if (group === undefined) {
			group = { segments: entry.segments, tests: new Set() };
			groups.set(key, group);
		}
		group.tests.add(entry.mayChange);
	}
	return [...groups.values()].map(({ segments, tests }) => atSomeLocation(segments, anyOf([...tests])));
}

/** One test that passes when one of `tests` does; two tests, the common case, call each other directly. */
export function anyOf<T>(tests: readonly ((value: T) => boolean)[]): (value: T) => boolean {
	const [first, second] = tests;
	if (first === undefined) return () => false;
	if (tests.length === 1) return first;
	if (tests.length === 2 && second !== undefined) return (value) => first(value) || second(value);
	return (value) => {
		for (let index = 0; index < tests.length; index++) {
			if ((tests[index] as (value: T) => boolean)(value)) return true;
		}
		return false;
	};
}

function rowFor(kind: unknown): Row<Preprocessor> | undefined {
	return typeof kind === "string" && Object.hasOwn(ROWS, kind) ? ROWS[kind as Preprocessor["kind"]] : undefined;
}

function compileStep(
	row: Row<Preprocessor>,
	preprocessor: Preprocessor,
	modelId: string | undefined,
): Step | undefined {
	const rewrite = row.rewrite(preprocessor);
	if (rewrite === undefined) return undefined;
	if (row.gated && !modelMatches(modelId, (preprocessor as FieldPreprocessor).modelFamilies)) return undefined;
	const segments = row.segments(preprocessor);
	return {
		kind: preprocessor.kind,
		ruleId: row.ruleId(preprocessor),
		gated: row.gated,
		segments,
		mayChange: row.mayChange(preprocessor),
		rewrite,
	};
}

/** True when some step of `plan` may change `root`: `false` means running the plan certainly changes, records and observes nothing. */
export function planMayChange(plan: PreprocessPlan, root: unknown): boolean {
	return plan.mayChange(root);
}

/**
 * `test` at every location `segments` address, compiled into one function
 * per segment (from the root): `true` as soon as one location passes, and no
 * location list is built.
 */
function atSomeLocation(
	segments: readonly SelectorSegment[],
	test: (value: unknown) => boolean,
): (root: unknown) => boolean {
	let atRest = test;
	for (let index = segments.length - 1; index >= 0; index--) {
		const segment = segments[index] as SelectorSegment;
		const inner = atRest;
		if (segment.kind === "each") {
			atRest = (value) => {
				if (!Array.isArray(value)) return false;
				for (const item of value) if (inner(item)) return true;
				return false;
			};
		} else {
			const { key } = segment;
			// An array yields no named key, as in `resolveSegments`.
			atRest = (value) =>
				typeof value === "object" &&
				value !== null &&
				!Array.isArray(value) &&
				inner((value as Record<string, unknown>)[key]);
		}
	}
	return atRest;
}

/** Runs every preprocessor in order over a copy-on-write view of `input`. */
export function preprocessInput(options: PreprocessOptions): PreprocessResult {
	return runPreprocessPlan(
		compilePreprocessPlan(options.preprocessors, options.modelId),
		options.input,
		options.toolName,
		options.allowValidValueTransforms,
	);
}

/** Runs a compiled plan over a copy-on-write view of `input`. */
export function runPreprocessPlan(
	plan: PreprocessPlan,
	input: unknown,
	toolName: string,
	allowValidValueTransforms: boolean,
): PreprocessResult {
	const tree = new CopyOnWriteTree(input);
	const changes: RepairChange[] = [];
	const observations: string[] = [];
	let tokensRemoved = false;
	for (const step of plan.steps) {
		for (const location of resolveSegments(tree.root, step.segments)) {
			const rewritten = step.rewrite(location.value, toolName);
			if (rewritten === undefined) continue;
			if (step.gated && !allowValidValueTransforms) {
				if (!observations.includes(step.ruleId)) observations.push(step.ruleId);
				continue;
			}
			tree.write(location.path, rewritten.value);
			changes.push({ ruleId: step.ruleId, stage: "preprocess", note: rewritten.note });
			if (step.kind === "grammar-tokens") tokensRemoved = true;
		}
	}
	return { value: tree.root, changes, observations, tokensRemoved, unknownKinds: [...plan.unknownKinds] };
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
	private writableAt(path: Path): Container {
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

/** A one-level copy of an array or a record. */
function shallowCopy(container: Container): Container {
	return Array.isArray(container) ? container.slice() : shallowCopyRecord(container);
}

// ---------------------------------------------------------------------------
// the rows

/** A field row: the transform maps one value; a result equal to the input is no change. */
function fieldRow(
	transform: (preprocessor: FieldPreprocessor) => Transform | undefined,
	mayChange: (preprocessor: FieldPreprocessor, transform: Transform) => (value: unknown) => boolean,
	extra: { gated: boolean; ruleId?: string },
): Row<FieldPreprocessor> {
	return {
		ruleId: (preprocessor) => extra.ruleId ?? `preprocess.${preprocessor.kind}`,
		gated: extra.gated,
		segments: (preprocessor) => parseSelector(preprocessor.selector),
		mayChange: (preprocessor) => {
			const apply = transform(preprocessor);
			return apply === undefined ? () => false : mayChange(preprocessor, apply);
		},
		rewrite: (preprocessor) => {
			const apply = transform(preprocessor);
			if (apply === undefined) return undefined;
			return (value, toolName) => {
				const next = apply(value);
				if (Object.is(next, value) || jsonEqual(next, value)) return undefined;
				return { value: next, note: fieldNote(preprocessor, toolName) };
			};
		},
	};
}

/** The transform's own answer: it returns its input itself when it changes nothing, so this cannot drift from it. */
const changedBy = (_preprocessor: FieldPreprocessor, transform: Transform) => (value: unknown) =>
	transform(value) !== value;

/** Every preprocessor kind, one row each; a kind without a row does not compile. */
const ROWS: { readonly [K in Preprocessor["kind"]]: Row<PreprocessorOf<K>> } = {
	alias: {
		ruleId: () => RULE.exactAlias,
		gated: false,
		segments: (preprocessor) => aliasTarget(preprocessor)?.parent ?? [],
		mayChange: (preprocessor) => {
			const target = aliasTarget(preprocessor);
			if (target === undefined) return () => false;
			const { canonical } = target;
			const emptyIsMissing = preprocessor.emptyEquivalentToMissing === true;
			return (record) => {
				if (typeof record !== "object" || record === null) return false;
				// A present canonical value settles it with one read, the common case of a valid call.
				const current = (record as Record<string, unknown>)[canonical];
				if (current !== undefined && current !== null && !(emptyIsMissing && current === "")) return false;
				return chosenAlias(record, canonical, preprocessor) !== undefined;
			};
		},
		rewrite: (preprocessor) => {
			const target = aliasTarget(preprocessor);
			return target === undefined
				? undefined
				: (record, toolName) => moveAlias(record, target.canonical, preprocessor, toolName);
		},
	},
	structural: {
		ruleId: (preprocessor) => preprocessor.ruleId,
		gated: false,
		segments: (preprocessor) => parseSelector(preprocessor.selector),
		mayChange: (preprocessor) => preprocessor.applies ?? (() => true),
		// The owner's function may mutate what it is given; it gets a copy, never caller data.
		rewrite: (preprocessor) => (value) => preprocessor.apply(cloneJson(value)),
	},
	"filesystem-path": fieldRow(
		() => (value) => (typeof value === "string" ? unwrapMarkdownAutoLinks(value) : value),
		() => mayHoldAutoLink,
		{ gated: false },
	),
	"filesystem-path-array": fieldRow(
		() => unwrapPathArray,
		() => (value) => Array.isArray(value) && value.some(mayHoldAutoLink),
		{ gated: false },
	),
	"string-or-array": fieldRow(
		// A list literal, broken or Python-style, is never a lone item.
		() => (value) => (typeof value === "string" && !readsAsListLiteral(value) ? [value] : value),
		() => (value) => typeof value === "string" && !readsAsListLiteral(value),
		{ gated: false },
	),
	scalar: fieldRow((preprocessor) => scalarTransform(preprocessor.scalarType), changedBy, { gated: false }),
	// Recognised, and deliberately a no-op: no transform, so it compiles to no step.
	glob: fieldRow(() => undefined, changedBy, { gated: false }),
	"anchor-bleed": fieldRow(
		() => (value) => (typeof value === "string" ? stripAnchors(value) : value),
		() => mayHoldAnchors,
		{
			gated: true,
			ruleId: RULE.stripAnchorBleed,
		},
	),
	"grammar-tokens": fieldRow(
		(preprocessor) => (value) => stripGrammarTokens(value, preprocessor.contentKeys ?? []),
		(_preprocessor, transform) => (value) => mayHoldTokenLeak(value) && transform(value) !== value,
		{ gated: true, ruleId: RULE.stripGrammarTokenLeak },
	),
};

// ---------------------------------------------------------------------------
// alias

interface AliasTarget {
	parent: readonly SelectorSegment[];
	canonical: string;
}

/** The records that hold the canonical key, and its name; `undefined` for the root or a wildcard, which name no key. */
function aliasTarget(preprocessor: AliasPreprocessor): AliasTarget | undefined {
	const segments = parseSelector(preprocessor.selector);
	const last = segments.at(-1);
	if (last === undefined || last.kind !== "key") return undefined;
	return { parent: segments.slice(0, -1), canonical: last.key };
}

/** The alias whose value moves onto the missing canonical key of `record`, if any. */
function chosenAlias(record: unknown, canonical: string, preprocessor: AliasPreprocessor): string | undefined {
	if (!isRecord(record) || !canonicalIsMissing(record[canonical], preprocessor)) return undefined;
	return preprocessor.aliases.find((name) => name in record && aliasValueUsable(record[name], preprocessor));
}

function moveAlias(
	record: unknown,
	canonical: string,
	preprocessor: AliasPreprocessor,
	toolName: string,
): Rewrite | undefined {
	const alias = chosenAlias(record, canonical, preprocessor);
	if (alias === undefined) return undefined;
	const source = record as Record<string, unknown>;
	const moved = shallowCopy(source) as Record<string, unknown>;
	delete moved[alias];
	defineOwn(moved, canonical, source[alias]);
	return { value: moved, note: aliasNote(alias, canonical, toolName) };
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
// field kinds

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

const CARET = 0x5e;
const DOLLAR = 0x24;

/** Cheap and conservative: {@link stripAnchors} changes only a string that starts with `^` or ends with `$`. */
function mayHoldAnchors(value: unknown): boolean {
	return typeof value === "string" && (value.charCodeAt(0) === CARET || value.charCodeAt(value.length - 1) === DOLLAR);
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
 * Cheap and conservative: whether a string, or a record's keys and string
 * values, may hold a leaked token for {@link stripTokenLeak} to remove. Every
 * token it removes starts with `<` or ends with `>`, so a value with neither
 * at its ends is left as it is (a property test pins this).
 */
export function mayHoldTokenLeak(value: unknown): boolean {
	if (typeof value === "string") return mayEndInToken(value);
	if (!isRecord(value)) return false;
	// `for…in` also visits inherited enumerable keys: more than the cleanup looks at, never less.
	for (const key in value) {
		const item = value[key];
		if (mayEndInToken(key) || (typeof item === "string" && mayEndInToken(item))) return true;
	}
	return false;
}

const LESS_THAN = 0x3c;
const GREATER_THAN = 0x3e;

function mayEndInToken(text: string): boolean {
	return text.charCodeAt(0) === LESS_THAN || text.charCodeAt(text.length - 1) === GREATER_THAN;
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
