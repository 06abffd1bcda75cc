/**
 * Stage 4: selector-guided preprocessing: the plan and its run. The rows live
 * in `preprocess/rows.ts`, the work they do in the files beside it.
 *
 * Every preprocessor kind is one row of the rows table: its rule ID, whether it
 * is model-gated, a cheap "may this change the value here?" predicate, and
 * its rewrite (which writes the note). A list of preprocessors compiles once
 * per model id into a {@link PreprocessPlan}: the model gates are resolved
 * then, and both the run and the valid path's skip check are built from the
 * same rows, so the two can never disagree. Preprocessors run in list order,
 * each seeing the previous one's result; under a policy that forbids
 * valid-value transforms a gated row is observed instead of written.
 *
 * Copy-on-write: the input is never cloned wholesale and never mutated (see
 * `preprocess/copy-on-write.ts`).
 */

import type { Rewrite } from "./preprocess/copy-on-write.ts";
import { CopyOnWriteTree } from "./preprocess/copy-on-write.ts";
import { type Row, rowFor } from "./preprocess/rows.ts";
import { resolveSegments, type SelectorSegment } from "./selectors.ts";
import type { FieldPreprocessor, Preprocessor, RepairChange } from "./types.ts";

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
	/** True when a row whose writes can reveal keys (token cleanup) wrote something: the rest of the list should run once more. */
	keysUncovered: boolean;
	/** Kinds in the list that this version does not know: ignored, and reported here so they are never skipped silently. */
	unknownKinds: string[];
}

/** One step of a compiled plan: a preprocessor with its row applied and its model gate already resolved. */
interface Step {
	ruleId: string;
	gated: boolean;
	/** Its writes can reveal keys: after it wrote, the rest of the list runs once more without it. */
	uncoversKeys: boolean;
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
	/** The same plan without the rows whose writes can reveal keys, for the one rerun after they wrote. */
	readonly withoutKeyUncovering: () => PreprocessPlan;
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
		withoutKeyUncovering: () => {
			without ??= steps.some((step) => step.uncoversKeys)
				? planOf(
						steps.filter((step) => !step.uncoversKeys),
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
		ruleId: row.ruleId(preprocessor),
		gated: row.gated,
		uncoversKeys: row.uncoversKeys,
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
	let keysUncovered = false;
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
			if (step.uncoversKeys) keysUncovered = true;
		}
	}
	return { value: tree.root, changes, observations, keysUncovered, unknownKinds: [...plan.unknownKinds] };
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
