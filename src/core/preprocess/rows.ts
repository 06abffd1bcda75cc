/**
 * Every preprocessor kind, one row each: its rule ID, whether it is
 * model-gated, a cheap "may this change the value here?" predicate, and its
 * rewrite (which writes the note). The table is typed by kind, so a kind
 * without a row does not compile, and the plan builds both its run and its
 * skip test from these same rows.
 */
import { cloneJson, jsonEqual } from "../clone.ts";
import { readsAsStructuredData } from "../list-literal.ts";
import { mayHoldAutoLink, unwrapMarkdownAutoLinks } from "../markdown-links.ts";
import { RULE, type RuleId } from "../rule-ids.ts";
import { parseSelector, type SelectorSegment } from "../selectors.ts";
import type { AliasPreprocessor, FieldPreprocessor, Preprocessor, StructuralPreprocessor } from "../types.ts";
import { aliasTarget, chosenAlias, moveAlias } from "./alias-move.ts";
import type { Rewrite } from "./copy-on-write.ts";
import { mayHoldAnchors, scalarTransform, stripAnchors, type Transform, unwrapPathArray } from "./field-transforms.ts";
import { mayHoldTokenLeak, stripGrammarTokens } from "./token-cleanup.ts";

/** One preprocessor kind. */
export interface Row<P extends Preprocessor> {
	/** The rule ID its changes carry. */
	ruleId(preprocessor: P): string;
	/** Runs only for a model its families match, and is observed, not written, when valid-value transforms are off. */
	gated: boolean;
	/**
	 * Its writes can reveal keys the other rows look for (token cleanup turns
	 * `<arg_key>file_path</arg_key>` into `file_path`): after it wrote, the rest
	 * of the list runs once more, without it.
	 */
	uncoversKeys: boolean;
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

export function rowFor(kind: unknown): Row<Preprocessor> | undefined {
	return typeof kind === "string" && Object.hasOwn(ROWS, kind) ? ROWS[kind as Preprocessor["kind"]] : undefined;
}

/** A field row: the transform maps one value; a result equal to the input is no change. */
function fieldRow(
	transform: (preprocessor: FieldPreprocessor) => Transform | undefined,
	mayChange: (preprocessor: FieldPreprocessor, transform: Transform) => (value: unknown) => boolean,
	extra: { gated: boolean; ruleId: RuleId; uncoversKeys?: boolean },
): Row<FieldPreprocessor> {
	return {
		ruleId: () => extra.ruleId,
		gated: extra.gated,
		uncoversKeys: extra.uncoversKeys === true,
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
		uncoversKeys: false,
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
		uncoversKeys: false,
		segments: (preprocessor) => parseSelector(preprocessor.selector),
		mayChange: (preprocessor) => preprocessor.applies ?? (() => true),
		// The owner's function may mutate what it is given; it gets a copy, never caller data.
		rewrite: (preprocessor) => (value) => preprocessor.apply(cloneJson(value)),
	},
	"filesystem-path": fieldRow(
		() => (value) => (typeof value === "string" ? unwrapMarkdownAutoLinks(value) : value),
		() => mayHoldAutoLink,
		{ gated: false, ruleId: RULE.filesystemPath },
	),
	"filesystem-path-array": fieldRow(
		() => unwrapPathArray,
		() => (value) => Array.isArray(value) && value.some(mayHoldAutoLink),
		{ gated: false, ruleId: RULE.filesystemPathArray },
	),
	"string-or-array": fieldRow(
		// A list literal, broken or Python-style, is never a lone item.
		() => (value) => (typeof value === "string" && !readsAsStructuredData(value) ? [value] : value),
		() => (value) => typeof value === "string" && !readsAsStructuredData(value),
		{ gated: false, ruleId: RULE.stringOrArray },
	),
	scalar: fieldRow((preprocessor) => scalarTransform(preprocessor.scalarType), changedBy, {
		gated: false,
		ruleId: RULE.scalar,
	}),
	// Recognised, and deliberately a no-op: it never writes, so it compiles to no step and carries no rule ID.
	glob: {
		ruleId: () => "",
		gated: false,
		uncoversKeys: false,
		segments: () => [],
		mayChange: () => () => false,
		rewrite: () => undefined,
	},
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
		{ gated: true, ruleId: RULE.stripGrammarTokenLeak, uncoversKeys: true },
	),
};

function renderSelector(selector: string): string {
	return selector === "" ? "/" : selector;
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
