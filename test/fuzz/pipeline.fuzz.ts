/**
 * Seeded fuzz campaign for runRepairPipeline: the pipeline's invariants over generated calls.
 *
 * `npm run test:fuzz` runs PI_REPAIR_FUZZ_CASES cases (default 2000) from
 * PI_REPAIR_FUZZ_SEED (default 0x5eedc0de) against the eight built-in tables
 * and a bare `{path: string}` schema with tight envelope limits.
 * Inputs mix valid and malformed calls, hostile JSON (`__proto__`,
 * `constructor`, NUL), nested JSON text and truncated JSON, plus three kinds
 * that must never become a call: prefixed or framed JSON text (never wrapped
 * as the single string field; only one fence or quoting layer around a
 * complete object may be decoded), objects with a list cut after complete
 * items (never completed), and meaning-changing conversions (a boolean in a
 * string field, non-decimal number text, null; never converted). A violation
 * prints the seed, the case count, fast-check's replay path and a readable
 * dump of the shrunk input.
 */
import { inspect } from "node:util";
import fc from "fast-check";
import { Type } from "typebox";
import { Compile } from "typebox/compile";
import { describe, expect, it } from "vitest";
import {
	BUILTIN_TOOL_NAMES,
	type BuiltinToolName,
	PIPELINE_PREPROCESSORS,
	REPAIR_CONFIGS,
} from "../../src/core/builtin-tables.ts";
import { jsonEqual } from "../../src/core/clone.ts";
import { recoverEnvelope } from "../../src/core/envelope.ts";
import { runRepairPipeline } from "../../src/core/pipeline.ts";
import type { RepairPipelineConfig, RepairPipelineLimits, TSchema } from "../../src/core/types.ts";
import {
	anyInput,
	conversionBait,
	cutListText,
	framedJson,
	hostileJson,
	modelId,
	policyProfile,
	truncatedJsonText,
} from "../support/arbitraries.ts";
import { BUILTIN_SCHEMAS } from "../support/builtin-schemas.ts";
import { deepFreeze } from "../support/pipeline-helpers.ts";

const SEED = Number(process.env.PI_REPAIR_FUZZ_SEED ?? 0x5eedc0de);
const CASES = Number(process.env.PI_REPAIR_FUZZ_CASES ?? 2000);

const PATH_SCHEMA = Type.Object({ path: Type.String() });
// Tight campaign limits, except the work-time bound: on a loaded machine a 25 ms budget can
// run out mid-decode and make two identical runs differ, which is the bound working, not a violation.
const FUZZ_LIMITS: RepairPipelineLimits = {
	maxInputBytes: 32768,
	maxNestingDepth: 16,
	maxDecodeAttempts: 3,
	maxCandidates: 4,
	maxWorkMs: 1000,
};
const BUILTIN_LIMITS: RepairPipelineLimits = { maxWorkMs: 1000 };

type Target = BuiltinToolName | "path-tool";
const TARGETS: readonly Target[] = [...BUILTIN_TOOL_NAMES, "path-tool"];

function schemaOf(target: Target): TSchema {
	return target === "path-tool" ? PATH_SCHEMA : BUILTIN_SCHEMAS[target];
}

const checkers = new Map<Target, ReturnType<typeof Compile>>(TARGETS.map((t) => [t, Compile(schemaOf(t))]));

function configFor(
	target: Target,
	model: string | undefined,
	policy: RepairPipelineConfig["policy"],
): RepairPipelineConfig {
	if (target === "path-tool") {
		return { toolName: "path-tool", schema: PATH_SCHEMA, limits: FUZZ_LIMITS, policy, engineConfig: {} };
	}
	return {
		toolName: target,
		schema: BUILTIN_SCHEMAS[target],
		preprocessors: PIPELINE_PREPROCESSORS[target],
		engineConfig: REPAIR_CONFIGS[target],
		limits: BUILTIN_LIMITS,
		policy,
		...(model === undefined ? {} : { modelId: model }),
	};
}

type Kind = "general" | "framed" | "framed-once" | "cut-list" | "conversion";

function tagged(kind: Kind, inputs: fc.Arbitrary<unknown>): fc.Arbitrary<{ kind: Kind; input: unknown }> {
	return inputs.map((input) => ({ kind, input }));
}

const caseArbitrary = fc.constantFrom(...TARGETS).chain((target) => {
	const tool = target === "path-tool" ? "read" : target;
	const framed = framedJson(tool).map(({ text, onceFramedObject }): { kind: Kind; input: unknown } => ({
		kind: onceFramedObject ? "framed-once" : "framed",
		input: text,
	}));
	return fc
		.record({
			target: fc.constant(target),
			case: fc.oneof(
				{ weight: 4, arbitrary: tagged("general", anyInput(tool)) },
				{ weight: 1, arbitrary: tagged("general", hostileJson) },
				{ weight: 1, arbitrary: tagged("general", truncatedJsonText) },
				{ weight: 2, arbitrary: framed },
				{ weight: 1, arbitrary: tagged("cut-list", cutListText) },
				{ weight: 2, arbitrary: tagged("conversion", conversionBait(tool)) },
			),
			model: modelId,
			policy: policyProfile,
		})
		.map(({ case: picked, ...rest }) => ({ ...rest, ...picked }));
});

type FuzzCase = {
	target: Target;
	kind: Kind;
	input: unknown;
	model: string | undefined;
	policy: RepairPipelineConfig["policy"];
};

function run(fuzz: FuzzCase, extras: Partial<RepairPipelineConfig> = {}) {
	return runRepairPipeline({
		input: fuzz.input,
		config: { ...configFor(fuzz.target, fuzz.model, fuzz.policy), ...extras },
	});
}

function schemaProperties(target: Target): Set<string> {
	const properties = (schemaOf(target) as { properties?: Record<string, unknown> }).properties ?? {};
	return new Set(Object.keys(properties));
}

/** Every pipeline invariant for one case; throws on the first violation. */
function checkInvariants(fuzz: FuzzCase): void {
	const snapshot = structuredClone(fuzz.input);
	deepFreeze(fuzz.input);
	const checker = checkers.get(fuzz.target) as ReturnType<typeof Compile>;

	// 1. Never throws.
	const result = run(fuzz);

	// 2. Never mutates the input; the envelope is repeatable.
	expect(fuzz.input).toEqual(snapshot);
	const limits = fuzz.target === "path-tool" ? FUZZ_LIMITS : BUILTIN_LIMITS;
	expect(recoverEnvelope(fuzz.input, limits)).toEqual(recoverEnvelope(fuzz.input, limits));

	// 3. No prototype pollution.
	expect(Object.keys(Object.prototype)).toEqual([]);
	expect(({} as Record<string, unknown>).polluted).toBeUndefined();

	// 4. Strictly valid input is preserved unless a configured cleanup changed it: a preprocessor, or the
	// engine's path-field link cleanup. (What such a change leaves behind may need a repair of its own:
	// tokens stripped from `{"<arg_key>limit</arg_key>": null}` leave a null optional to drop.)
	// A note naming keys the tool does not declare changes nothing: the arguments come back equal.
	if (checker.Check(fuzz.input)) {
		if (result.outcome === "valid") expect(result.args).toBe(fuzz.input);
		else if (result.changes.every((change) => change.ruleId === "reportUndeclaredKeys")) {
			expect(result.args).toEqual(fuzz.input);
		} else {
			expect(result.outcome).toBe("repaired");
			const cleanup = result.changes.find((change) => change.stage !== "envelope");
			expect(
				cleanup?.stage === "preprocess" ||
					cleanup?.ruleId === "unwrapMarkdownAutoLink" ||
					cleanup?.ruleId === "unwrapArgumentWrapper",
			).toBe(true);
		}
	}

	// 5. Every change is reported with a rule ID and a note.
	for (const change of result.changes) {
		expect(change.ruleId).not.toBe("");
		expect(change.note).not.toBe("");
	}

	// 6. Repaired passes the schema; unrepairable claims nothing and keeps the input.
	if (result.outcome === "repaired") {
		expect(checker.Check(result.args)).toBe(true);
		expect(result.changes.length).toBeGreaterThan(0);
		expect(result.args).not.toBe(fuzz.input);
	} else {
		expect(result.changes).toEqual([]);
		if (result.outcome === "unrepairable") {
			expect(result.args).toBe(fuzz.input);
			expect(result.retryMessage).toBeDefined();
		} else expect(result.args).toBe(fuzz.input);
	}

	// 7. Deterministic and idempotent.
	expect(run(fuzz)).toEqual(result);
	if (result.outcome === "repaired") {
		const again = run({ ...fuzz, input: result.args });
		// Undeclared keys stay as sent, so the note naming them comes again, and nothing else does.
		if (result.changes.some((change) => change.ruleId === "reportUndeclaredKeys")) {
			expect(again.changes.map((change) => change.ruleId)).toEqual(["reportUndeclaredKeys"]);
			expect(again.args).toEqual(result.args);
		} else {
			expect(again.outcome).toBe("valid");
			expect(again.args).toBe(result.args);
		}
	}

	// 8. Failing callbacks and a failing owner shim never change the verdict; the result lists where they failed.
	const hostile = run(fuzz, {
		onObservation: () => {
			throw new Error("observer");
		},
		onOutcome: () => {
			throw new Error("outcome");
		},
		ownerPrepareArguments: () => {
			throw new Error("shim");
		},
	});
	const { containedErrors, ...verdict } = hostile;
	expect(verdict).toEqual(result);
	// What they threw is listed, by boundary only.
	for (const label of containedErrors ?? []) expect(["owner-shim", "observer"]).toContain(label);

	// 10. No guess becomes a call: framed JSON is never wrapped, a cut list never completed, no meaning-changing conversion.
	const rules = result.changes.map((change) => change.ruleId);
	if (fuzz.kind === "framed" || fuzz.kind === "framed-once") {
		expect(rules).not.toContain("wrapRootStringAsObject");
		if (fuzz.kind === "framed") expect(result.outcome).not.toBe("repaired");
	}
	if (fuzz.kind === "cut-list") expect(result.outcome).not.toBe("repaired");
	if (fuzz.kind === "conversion" && result.outcome === "repaired") expectNoMeaningChange(fuzz.input, result.args);

	// 9. Unconfigured top-level keys are never transformed (token cleanup on glm models rewrites keys by design).
	const gatedTokens = typeof fuzz.model === "string" && /glm/i.test(fuzz.model);
	if (result.outcome === "repaired" && !gatedTokens && isPlain(fuzz.input) && isPlain(result.args)) {
		const known = schemaProperties(fuzz.target);
		for (const key of Object.keys(fuzz.input)) {
			if (known.has(key) || !Object.hasOwn(result.args, key)) continue;
			expect(jsonEqual(result.args[key], fuzz.input[key])).toBe(true);
		}
	}
}

// Decimal JSON number text without an exponent: the only text that may become a number.
const DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

/** A boolean never became text, non-decimal text never a number, null never anything, at any shared location. */
function expectNoMeaningChange(before: unknown, after: unknown): void {
	if (before === null) {
		expect(after === null || after === undefined).toBe(true);
		return;
	}
	if (typeof before === "boolean") {
		expect(typeof after === "boolean" || after === undefined).toBe(true);
		return;
	}
	if (typeof before === "string" && typeof after === "number") {
		expect(DECIMAL.test(before)).toBe(true);
		return;
	}
	if (Array.isArray(before) && Array.isArray(after)) {
		for (let index = 0; index < before.length; index++) expectNoMeaningChange(before[index], after[index]);
		return;
	}
	if (isPlain(before) && isPlain(after)) {
		for (const key of Object.keys(before)) expectNoMeaningChange(before[key], after[key]);
	}
}

function describeError(error: unknown): string {
	if (!(error instanceof Error)) return String(error);
	const { actual, expected } = error as Error & { actual?: unknown; expected?: unknown };
	const detail =
		actual === undefined && expected === undefined
			? ""
			: `\n  actual:   ${inspect(actual, { depth: 8 })}\n  expected: ${inspect(expected, { depth: 8 })}`;
	return `${error.message}${detail}\n${error.stack?.split("\n").slice(1, 4).join("\n") ?? ""}`;
}

function isPlain(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

describe(`pipeline fuzz campaign (seed 0x${SEED.toString(16)}, ${CASES} cases)`, () => {
	it("holds every pipeline invariant (identity, purity, fail-closed, no guesses) on every case", () => {
		const started = Date.now();
		const outcome = fc.check(
			fc.property(caseArbitrary, (fuzz) => {
				checkInvariants(fuzz);
			}),
			{ seed: SEED, numRuns: CASES },
		);
		const seconds = ((Date.now() - started) / 1000).toFixed(1);
		if (outcome.failed) {
			const shrunk = outcome.counterexample?.[0];
			const report = [
				`pipeline fuzz violation after ${outcome.numRuns} of ${CASES} cases (seed ${SEED} = 0x${SEED.toString(16)}, ${seconds}s)`,
				`replay: PI_REPAIR_FUZZ_SEED=${SEED} PI_REPAIR_FUZZ_CASES=${CASES} npm run test:fuzz   (fast-check path ${outcome.counterexamplePath})`,
				`shrunk case: ${inspect(shrunk, { depth: 12, breakLength: 120 })}`,
				`as JSON: ${JSON.stringify(shrunk?.input) ?? String(shrunk?.input)}`,
				`error: ${describeError(outcome.errorInstance)}`,
			].join("\n");
			console.error(report);
			throw new Error(report);
		}
		console.log(`pipeline fuzz: ${outcome.numRuns} cases, seed ${SEED}, 0 violations, ${seconds}s`);
	});
});
