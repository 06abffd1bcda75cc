/**
 * A cheap, conservative "would preprocessing change anything?" probe for the
 * pipeline's valid path.
 *
 * Running every preprocessor means resolving selectors into location lists
 * and copy-on-write bookkeeping, which costs far more than the compiled check
 * a valid call otherwise needs. This probe walks the same selectors (parsed
 * once per preprocessor list) and answers `true` ("certainly a no-op") only
 * when no preprocessor can possibly write, record or observe anything; any
 * doubt answers `false`, and the real `preprocessInput` runs. It never
 * decides an outcome itself, so it can only make the pipeline faster, never
 * different (a property test pins that).
 */
import { isRecord } from "./clone.ts";
import { canFoldFlatEditFields, foldFlatEditFieldsPreprocessor } from "./edit-fold.ts";
import { parseSelector, type SelectorSegment } from "./selectors.ts";
import type { Preprocessor } from "./types.ts";

/** One preprocessor, pre-digested for probing. */
type Step =
	| {
			kind: "alias";
			parent: readonly SelectorSegment[];
			canonical: string;
			aliases: readonly string[];
			emptyIsMissing: boolean;
	  }
	| {
			kind: "field";
			field: string;
			segments: readonly SelectorSegment[];
			scalarType?: string;
			families?: readonly RegExp[];
	  }
	| { kind: "fold"; segments: readonly SelectorSegment[] }
	| { kind: "noop" }
	| { kind: "opaque" };

const plans = new WeakMap<readonly Preprocessor[], readonly Step[]>();

function planFor(preprocessors: readonly Preprocessor[]): readonly Step[] {
	let plan = plans.get(preprocessors);
	if (plan === undefined) {
		plan = preprocessors.map(stepFor);
		plans.set(preprocessors, plan);
	}
	return plan;
}

function stepFor(preprocessor: Preprocessor): Step {
	const segments = parseSelector(preprocessor.selector);
	if (preprocessor.kind === "alias") {
		const last = segments.at(-1);
		if (last === undefined || last.kind !== "key") return { kind: "noop" };
		return {
			kind: "alias",
			parent: segments.slice(0, -1),
			canonical: last.key,
			aliases: preprocessor.aliases,
			emptyIsMissing: preprocessor.emptyEquivalentToMissing === true,
		};
	}
	if (preprocessor.kind === "structural") {
		// Only our own edit fold is understood well enough to predict; any other reshaping must run.
		return preprocessor.apply === foldFlatEditFieldsPreprocessor ? { kind: "fold", segments } : { kind: "opaque" };
	}
	// Field kinds, and kinds this version does not know (the field probe treats those as no-ops, as preprocessing does).
	const step: Step = { kind: "field", field: preprocessor.kind, segments };
	if (preprocessor.scalarType !== undefined) step.scalarType = preprocessor.scalarType;
	if (preprocessor.modelFamilies !== undefined) step.families = preprocessor.modelFamilies;
	return step;
}

/** Every value the first `to` segments address under `root`, in document order. */
function locations(root: unknown, segments: readonly SelectorSegment[], to = segments.length): unknown[] {
	const out: unknown[] = [];
	collectInto(out, root, segments, 0, to);
	return out;
}

function collectInto(
	out: unknown[],
	value: unknown,
	segments: readonly SelectorSegment[],
	from: number,
	to: number,
): void {
	if (from === to) {
		out.push(value);
		return;
	}
	const segment = segments[from] as SelectorSegment;
	if (segment.kind === "each") {
		if (Array.isArray(value)) for (const item of value) collectInto(out, item, segments, from + 1, to);
	} else if (isRecord(value)) {
		collectInto(out, value[segment.key], segments, from + 1, to);
	}
}

function modelMatches(modelId: string | undefined, families: readonly RegExp[] | undefined): boolean {
	if (modelId === undefined || modelId === "" || families === undefined) return false;
	for (const family of families) {
		// A global or sticky regex carries state between tests: assume it matches rather than touch it.
		if (family.global || family.sticky || family.test(modelId)) return true;
	}
	return false;
}

// Only a `](http` can start a degenerate auto-link `[TEXT](http…)`.
function mayHoldAutoLink(value: unknown): boolean {
	return typeof value === "string" && value.includes("](http");
}

function aliasIsNoop(step: Extract<Step, { kind: "alias" }>, root: unknown): boolean {
	for (const parent of locations(root, step.parent)) {
		if (!isRecord(parent)) continue;
		const current = parent[step.canonical];
		if (current !== undefined && current !== null && !(step.emptyIsMissing && current === "")) continue;
		for (const alias of step.aliases) if (alias in parent) return false;
	}
	return true;
}

function fieldIsNoop(step: Extract<Step, { kind: "field" }>, root: unknown, modelId: string | undefined): boolean {
	switch (step.field) {
		case "filesystem-path":
			for (const value of locations(root, step.segments)) if (mayHoldAutoLink(value)) return false;
			return true;
		case "filesystem-path-array":
			for (const value of locations(root, step.segments))
				if (Array.isArray(value) && value.some(mayHoldAutoLink)) return false;
			return true;
		case "string-or-array":
			for (const value of locations(root, step.segments)) if (typeof value === "string") return false;
			return true;
		case "scalar":
			if (step.scalarType === undefined) return true;
			for (const value of locations(root, step.segments)) if (value !== undefined) return false;
			return true;
		case "anchor-bleed":
			if (!modelMatches(modelId, step.families)) return true;
			for (const value of locations(root, step.segments)) {
				if (typeof value === "string" && (value.startsWith("^") || value.endsWith("$"))) return false;
			}
			return true;
		case "grammar-tokens":
			return !modelMatches(modelId, step.families);
		default:
			// `glob` and kinds this version does not know never change anything.
			return true;
	}
}

/** True only when running `preprocessors` on `root` certainly changes, records and observes nothing. */
export function preprocessingIsNoop(
	preprocessors: readonly Preprocessor[],
	root: unknown,
	modelId: string | undefined,
): boolean {
	for (const step of planFor(preprocessors)) {
		switch (step.kind) {
			case "alias":
				if (!aliasIsNoop(step, root)) return false;
				break;
			case "field":
				if (!fieldIsNoop(step, root, modelId)) return false;
				break;
			case "fold":
				for (const value of locations(root, step.segments)) if (canFoldFlatEditFields(value)) return false;
				break;
			case "opaque":
				return false;
			case "noop":
				break;
		}
	}
	return true;
}
