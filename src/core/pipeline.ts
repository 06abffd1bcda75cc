/**
 * `runRepairPipeline`: one tool call's arguments through every stage, in
 * order (core-contract §3.1–§3.8, decisions §3–§4):
 *
 *   envelope → truncation candidates (each through the full downstream run)
 *   → owner shim → preprocessing → strict validation → schema repair
 *   → safe conversion → final validation and shaping.
 *
 * The valid path is kept to identity checks and compiled validation: a
 * plain-object input has no envelope to decode, so that stage is skipped; the
 * preprocessors return the same reference when they change nothing; no clone,
 * serialization or size measurement happens until something needs repair.
 * Callbacks are guarded: they observe the verdict and can never change it.
 */

import { condenseChanges } from "./change-log.ts";
import { cloneJson, isRecord } from "./clone.ts";
import { convertToSchema } from "./convert.ts";
import {
	decodeJsonNoteFor,
	isPlainObject,
	recoverEnvelope,
	truncatedEnvelopeChange,
	withinEnvelopeLimits,
} from "./envelope.ts";
import { failureFingerprint, formatRetryMessage, summarizeIssues } from "./issues.ts";
import { resolveLimits } from "./limits.ts";
import { applyOwnerShim } from "./owner-shim.ts";
import { resolveRepairPolicy } from "./policy.ts";
import { preprocessInput } from "./preprocess.ts";
import { preprocessingIsNoop } from "./preprocess-probe.ts";
import { CONVERSION_RULE_ID, type EngineResult, runSchemaRepair } from "./schema-repair/engine.ts";
import { convertScalarToSchemaTypeNote } from "./schema-repair/notes.ts";
import { withoutOmittedNulls } from "./strict-sampling.ts";
import type {
	RepairChange,
	RepairObservation,
	RepairPipelineConfig,
	RepairPipelineResult,
	RepairPolicy,
	RepairPolicyProfile,
	ValidationIssue,
} from "./types.ts";
import { check, issues } from "./validator.ts";

const DECODE_RULE_ID = "envelope.decode-json";

/** What one downstream run (stages 3–7) concluded. */
type DownstreamResult = Omit<RepairPipelineResult, "policy">;

// The profiles without overrides are resolved once; overrides only touch grammar fields.
const PLAIN_POLICIES: Readonly<Record<RepairPolicyProfile, RepairPolicy>> = {
	conservative: resolveRepairPolicy("conservative"),
	adaptive: resolveRepairPolicy("adaptive"),
	recover: resolveRepairPolicy("recover"),
};

function policyFor(config: RepairPipelineConfig): RepairPolicy {
	const profile = config.policy ?? "adaptive";
	if (config.policyOverrides === undefined && Object.hasOwn(PLAIN_POLICIES, profile)) return PLAIN_POLICIES[profile];
	return resolveRepairPolicy(profile, config.policyOverrides ?? {});
}

export function runRepairPipeline(options: { input: unknown; config: RepairPipelineConfig }): RepairPipelineResult {
	const { input, config } = options;
	const policy = policyFor(config);
	let result: DownstreamResult;
	try {
		result = decide(input, config, policy);
	} catch {
		// Only input outside the JSON domain (functions, cycles) can make a stage throw: fail closed.
		result = failed(config, input, []);
	}
	// Key order of the public result is fixed for readers of logs and snapshots.
	const shaped: RepairPipelineResult = {
		outcome: result.outcome,
		args: result.args,
		policy: policy.profile,
		changes: condenseChanges(result.changes),
		observations: result.observations,
	};
	if (result.issueSummary !== undefined) shaped.issueSummary = result.issueSummary;
	if (result.fingerprint !== undefined) shaped.fingerprint = result.fingerprint;
	if (result.retryMessage !== undefined) shaped.retryMessage = result.retryMessage;
	notify(config.onOutcome, shaped);
	return shaped;
}

function decide(input: unknown, config: RepairPipelineConfig, policy: RepairPolicy): DownstreamResult {
	// A plain object has nothing to decode or unwrap: skipping the envelope's
	// O(size) pre-checks gives the same outcome at no cost.
	if (isPlainObject(input)) {
		// Repair work on a plain object has the envelope's bounds; a call that is valid as sent has none.
		if (!check(config.schema, judge(input, config)) && !withinEnvelopeLimits(input, config.limits ?? {})) {
			return tooLargeToRepair(config, input);
		}
		return shapePrimary(input, downstream(input, [], config, policy));
	}

	const envelope = recoverEnvelope(input, config.limits ?? {});
	if (policy.allowTruncatedEnvelopeCompletion) {
		for (const candidate of envelope.candidates) {
			const run = downstream(candidate, [truncatedEnvelopeChange()], config, policy);
			if (run.outcome !== "unrepairable") return run;
		}
	}
	return shapePrimary(input, downstream(envelope.value, envelope.changes, config, policy));
}

/** Stage 8 for the primary path: a valid call keeps the caller's reference, a failed one claims nothing. */
function shapePrimary(input: unknown, run: DownstreamResult): DownstreamResult {
	if (run.outcome === "repaired" || (run.args === input && run.changes.length === 0)) return run;
	return { ...run, args: input, changes: [] };
}

function downstream(
	value: unknown,
	incoming: readonly RepairChange[],
	config: RepairPipelineConfig,
	policy: RepairPolicy,
): DownstreamResult {
	const { toolName } = config;
	const changes: RepairChange[] =
		incoming.length === 0
			? []
			: incoming.map((change) =>
					change.ruleId === DECODE_RULE_ID ? { ...change, note: decodeJsonNoteFor(toolName) } : change,
				);

	const shim =
		config.ownerPrepareArguments === undefined
			? { value }
			: applyOwnerShim(value, config.ownerPrepareArguments, toolName);
	if (shim.change !== undefined) changes.push(shim.change);

	const observations: RepairObservation[] = [];
	const preprocessed = preprocess(shim.value, config, policy, changes, observations);
	const run = finish(judge(preprocessed, config), changes, observations, config, policy);
	for (const observation of observations) notify(config.onObservation, observation);
	return run;
}

const TOKEN_RULE_ID = "stripGrammarTokenLeak";

/**
 * Stage 4, skipped outright when the probe proves it a no-op; appends its
 * changes and observations. When leaked grammar tokens were removed, the
 * rest of the list runs once more on the cleaned value, so
 * `{"<arg_key>file_path</arg_key>": …}` ends where `{file_path: …}` would and
 * a second call finds nothing left to do. Token cleanup itself runs once: it
 * removes one leading and one trailing token, never more (edge 47).
 */
function preprocess(
	value: unknown,
	config: RepairPipelineConfig,
	policy: RepairPolicy,
	changes: RepairChange[],
	observations: RepairObservation[],
): unknown {
	let preprocessors = config.preprocessors ?? [];
	let current = value;
	for (let round = 0; round < 2; round++) {
		if (preprocessors.length === 0 || preprocessingIsNoop(preprocessors, current, config.modelId)) return current;
		const result = preprocessInput({
			input: current,
			toolName: config.toolName,
			preprocessors,
			...(config.modelId === undefined ? {} : { modelId: config.modelId }),
			allowValidValueTransforms: policy.allowValidValueTransforms,
		});
		// One push per change: a spread of 100,000 arguments overflows the stack.
		for (const change of result.changes) changes.push(change);
		for (const ruleId of result.observations) {
			if (observations.some((observation) => observation.ruleId === ruleId)) continue;
			observations.push({
				channel: "tool",
				stage: "valid-value",
				ruleId,
				toolName: config.toolName,
				outcome: "detected",
			});
		}
		current = result.value;
		if (!result.changes.some((change) => change.ruleId === TOKEN_RULE_ID)) return current;
		preprocessors = preprocessors.filter((preprocessor) => preprocessor.kind !== "grammar-tokens");
	}
	return current;
}

/** Under strict sampling, nulls at optional properties are judged as omitted (decisions §3.3). */
function judge(value: unknown, config: RepairPipelineConfig): unknown {
	return config.strictSampling === true ? withoutOmittedNulls(config.schema, value) : value;
}

const ROOT_REPAIRS = new Set(["wrapRootStringAsObject", "parseJsonStringifiedRootObject"]);

function runEngine(value: unknown, config: RepairPipelineConfig): EngineResult | undefined {
	try {
		return runSchemaRepair({
			value,
			schema: config.schema,
			toolName: config.toolName,
			config: config.legacyConfig ?? {},
		});
	} catch {
		return undefined;
	}
}

/** Stages 5–7: engine, then our conversion and the final check. */
function finish(
	value: unknown,
	changes: RepairChange[],
	observations: RepairObservation[],
	config: RepairPipelineConfig,
	policy: RepairPolicy,
): DownstreamResult {
	const engine = runEngine(value, config);
	if (engine === undefined) return failed(config, value, observations);
	if (engine.outcome === "unrepairable") return failed(config, value, observations, engine);
	appendEngineChanges(changes, engine);

	let args = engine.args;
	// A root repair builds the argument object only now, after preprocessing ran on a bare string.
	// Preprocess that object too, so the result is what a direct call with it would give (idempotence).
	if (isRecord(args) && engine.changes.some((change) => ROOT_REPAIRS.has(change.ruleId))) {
		const reprocessed = judge(preprocess(args, config, policy, changes, observations), config);
		if (reprocessed !== args) {
			const second = runEngine(reprocessed, config);
			if (second === undefined || second.outcome === "unrepairable") return failed(config, value, observations);
			appendEngineChanges(changes, second);
			args = second.args;
		}
	}
	if (changes.length === 0) return { outcome: "valid", args: value, changes, observations };

	let final: unknown;
	try {
		final = convertToSchema(config.schema, args);
		if (!check(config.schema, final)) return failed(config, value, observations, engine);
		if (final !== args) changes.push(conversionChange(config.toolName));
		// The repaired value must share nothing with the caller's input.
		final = cloneJson(final);
	} catch {
		return failed(config, value, observations, engine);
	}
	const result: DownstreamResult = { outcome: "repaired", args: final, changes, observations };
	if (engine.issueSummary !== undefined) result.issueSummary = engine.issueSummary;
	if (engine.fingerprint !== undefined) result.fingerprint = engine.fingerprint;
	return result;
}

/** Every conversion the layer makes is on the record (only the lossless ones exist). */
function conversionChange(toolName: string): RepairChange {
	return { ruleId: CONVERSION_RULE_ID, stage: "schema-repair", note: convertScalarToSchemaTypeNote(toolName) };
}

function appendEngineChanges(changes: RepairChange[], engine: EngineResult): void {
	for (const change of engine.changes)
		changes.push({ ruleId: change.ruleId, stage: "schema-repair", note: change.note });
}

/**
 * An unrepairable run: no changes claimed, the engine's diagnostics. Where the
 * engine had none (it threw, or the final check refused its result) they are
 * computed here on the value the engine saw, so the model always gets a
 * retry message.
 */
function failed(
	config: RepairPipelineConfig,
	seen: unknown,
	observations: RepairObservation[],
	engine?: EngineResult,
): DownstreamResult {
	const result: DownstreamResult = { outcome: "unrepairable", args: seen, changes: [], observations };
	if (engine?.retryMessage !== undefined && engine.issueSummary !== undefined && engine.fingerprint !== undefined) {
		result.issueSummary = engine.issueSummary;
		result.fingerprint = engine.fingerprint;
		result.retryMessage = engine.retryMessage;
		return result;
	}
	let found: ValidationIssue[];
	try {
		found = issues(config.schema, seen);
	} catch {
		found = [];
	}
	if (found.length === 0) found = [FINAL_CHECK_ISSUE];
	result.issueSummary = summarizeIssues(found);
	result.fingerprint = failureFingerprint(config.toolName, found);
	result.retryMessage = formatRetryMessage(config.toolName, found, seen, config.schema);
	return result;
}

function tooLargeToRepair(config: RepairPipelineConfig, input: unknown): DownstreamResult {
	const limits = resolveLimits(config.limits ?? {});
	const issue: ValidationIssue = {
		keyword: "too-large",
		instancePath: "",
		params: {},
		message: `too large to repair (over ${limits.maxInputBytes} bytes or nested deeper than ${limits.maxNestingDepth} levels); send a smaller call, for example several smaller edits`,
	};
	return {
		outcome: "unrepairable",
		args: input,
		changes: [],
		observations: [],
		issueSummary: summarizeIssues([issue]),
		fingerprint: failureFingerprint(config.toolName, [issue]),
		retryMessage: formatRetryMessage(config.toolName, [issue], input),
	};
}

// Stands in when the value passes the strict check yet the final check of the repaired value failed.
const FINAL_CHECK_ISSUE: ValidationIssue = {
	keyword: "final-validation",
	instancePath: "",
	params: {},
	message: "the repaired arguments did not pass the final check",
};

function notify<T>(callback: ((value: T) => void) | undefined, value: T): void {
	if (callback === undefined) return;
	try {
		callback(value);
	} catch {
		// A failing observer must never change the verdict.
	}
}
