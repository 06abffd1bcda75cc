/**
 * A cheap, conservative "would preprocessing change anything?" probe for the
 * pipeline's valid path.
 *
 * Running every preprocessor means resolving selectors into location lists
 * and copy-on-write bookkeeping, which costs far more than the compiled check
 * a valid call otherwise needs. This probe walks the same selectors without
 * allocating and answers `true` ("certainly a no-op") only when no
 * preprocessor can possibly write, record or observe anything; any doubt
 * answers `false`, and the real `preprocessInput` runs. It never decides an
 * outcome itself, so it can only make the pipeline faster, never different
 * (a property test pins that).
 */
import { isRecord } from "./clone.ts";
import { canFoldFlatEditFields, foldFlatEditFieldsPreprocessor } from "./edit-fold.ts";
import { parseSelector, type SelectorSegment } from "./selectors.ts";
import type { AliasPreprocessor, FieldPreprocessor, Preprocessor } from "./types.ts";

const segmentCache = new WeakMap<object, readonly SelectorSegment[]>();

function segmentsOf(preprocessor: Preprocessor): readonly SelectorSegment[] {
	let segments = segmentCache.get(preprocessor);
	if (segments === undefined) {
		segments = parseSelector(preprocessor.selector);
		segmentCache.set(preprocessor, segments);
	}
	return segments;
}

/** Calls `visit` for every value the segments address; stops (returning false) as soon as `visit` does. */
function everyLocation(
	value: unknown,
	segments: readonly SelectorSegment[],
	from: number,
	to: number,
	visit: (value: unknown) => boolean,
): boolean {
	if (from === to) return visit(value);
	const segment = segments[from] as SelectorSegment;
	if (segment.kind === "each") {
		if (!Array.isArray(value)) return true;
		for (const item of value) {
			if (!everyLocation(item, segments, from + 1, to, visit)) return false;
		}
		return true;
	}
	if (!isRecord(value)) return true;
	return everyLocation(value[segment.key], segments, from + 1, to, visit);
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
const mayHoldAutoLink = (value: unknown): boolean => typeof value === "string" && value.includes("](http");

function aliasIsNoop(preprocessor: AliasPreprocessor, root: unknown): boolean {
	const segments = segmentsOf(preprocessor);
	const last = segments.at(-1);
	if (last === undefined || last.kind !== "key") return true;
	const canonical = last.key;
	return everyLocation(root, segments, 0, segments.length - 1, (parent) => {
		if (!isRecord(parent)) return true;
		const current = parent[canonical];
		const missing =
			current === undefined || current === null || (preprocessor.emptyEquivalentToMissing === true && current === "");
		if (!missing) return true;
		for (const alias of preprocessor.aliases) {
			if (alias in parent) return false;
		}
		return true;
	});
}

function fieldIsNoop(preprocessor: FieldPreprocessor, root: unknown, modelId: string | undefined): boolean {
	const segments = segmentsOf(preprocessor);
	const all = (visit: (value: unknown) => boolean) => everyLocation(root, segments, 0, segments.length, visit);
	switch (preprocessor.kind) {
		case "filesystem-path":
			return all((value) => !mayHoldAutoLink(value));
		case "filesystem-path-array":
			return all((value) => !Array.isArray(value) || !value.some(mayHoldAutoLink));
		case "string-or-array":
			return all((value) => typeof value !== "string");
		case "scalar":
			return preprocessor.scalarType === undefined || all((value) => value === undefined);
		case "anchor-bleed":
			if (!modelMatches(modelId, preprocessor.modelFamilies)) return true;
			return all((value) => typeof value !== "string" || (!value.startsWith("^") && !value.endsWith("$")));
		case "grammar-tokens":
			return !modelMatches(modelId, preprocessor.modelFamilies);
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
	for (const preprocessor of preprocessors) {
		switch (preprocessor.kind) {
			case "alias":
				if (!aliasIsNoop(preprocessor, root)) return false;
				break;
			case "structural": {
				// Only our own edit fold is understood well enough to predict; any other reshaping must run.
				if (preprocessor.apply !== foldFlatEditFieldsPreprocessor) return false;
				const segments = segmentsOf(preprocessor);
				if (!everyLocation(root, segments, 0, segments.length, (value) => !canFoldFlatEditFields(value))) return false;
				break;
			}
			default:
				if (!fieldIsNoop(preprocessor as FieldPreprocessor, root, modelId)) return false;
		}
	}
	return true;
}
