/**
 * `runRepairPipeline`: one tool call's arguments through every stage, in
 * order:
 *
 *   envelope → truncation candidates (each through the full downstream run)
 *   → owner shim → preprocessing → strict validation → schema repair
 *   → safe conversion → final validation and shaping.
 *
 * The valid path runs a plan compiled once per (config, model id): the
 * policy and the model gates resolved, each preprocessing row's "may change"
 * predicate, the owner shim's applicability predicate, and the compiled
 * check. A plain-object call that no stage would touch and that passes the
 * check is answered there, with no clone, comparison or serialization.
 * Anything else takes the full run, which gives the same verdict for such a
 * call (a property test pins that). Errors are contained here, at the public
 * entry point, and reported through `onContainedError`; callbacks observe the
 * verdict and can never change it.
 */

import { argumentKeyTests, undeclaredKeysChange, unwrapArgumentWrapper } from "./argument-keys.ts";
import { condenseChanges } from "./change-log.ts";
import { cloneJson } from "./clone.ts";
import { convertToSchema } from "./convert.ts";
import { engineConfigRows } from "./engine-config.ts";
import { recoverEnvelope, truncatedEnvelopeChange } from "./envelope.ts";
import { failureFingerprint, formatRetryMessage, summarizeIssues } from "./issues.ts";
import { isPlainObject, isRecord } from "./json-value.ts";
import { resolveLimits } from "./limits.ts";
import { applyOwnerShim } from "./owner-shim.ts";
import { DEFAULT_POLICY_PROFILE, resolveRepairPolicy } from "./policy.ts";
import { anyOf, compilePreprocessPlan, type PreprocessPlan, planMayChange, runPreprocessPlan } from "./preprocess.ts";
import { RULE } from "./rule-ids.ts";
import { type EngineResult, runSchemaRepair } from "./schema-repair/engine.ts";
import { convertScalarToSchemaTypeNote } from "./schema-repair/notes.ts";
import { type InputSnapshot, isPlainInput, snapshotInput } from "./snapshot.ts";
import { mayHoldOmittedNull, withoutOmittedNulls } from "./strict-sampling.ts";
import type {
	ContainedErrorLabel,
	EnvelopeLimits,
	RepairChange,
	RepairObservation,
	RepairPipelineConfig,
	RepairPipelineResult,
	RepairPolicy,
	RepairPolicyProfile,
	ToolRepairConfig,
	ValidationIssue,
} from "./types.ts";
import { check, checkerFor, issues } from "./validator.ts";

/** What one downstream run (stages 3–7) concluded. */
type DownstreamResult = Omit<RepairPipelineResult, "policy">;

// The profiles without overrides are resolved once.
const PLAIN_POLICIES: Readonly<Record<RepairPolicyProfile, RepairPolicy>> = {
	conservative: resolveRepairPolicy("conservative"),
	adaptive: resolveRepairPolicy("adaptive"),
	recover: resolveRepairPolicy("recover"),
};

function policyFor(config: RepairPipelineConfig): RepairPolicy {
	const profile = config.policy ?? DEFAULT_POLICY_PROFILE;
	if (config.policyOverrides === undefined && Object.hasOwn(PLAIN_POLICIES, profile)) return PLAIN_POLICIES[profile];
	return resolveRepairPolicy(profile, config.policyOverrides ?? {});
}

/** What a config resolves to once: its policy, its preprocessing plan, and the valid-path test. */
export interface Plan {
	/** What the engine keeps of the config once its aliases and path fields are rows. */
	readonly engine: ToolRepairConfig;
	readonly rootAliases: readonly string[];
	/** The config fields the plan was built from: a caller may reuse one config object and change it. */
	readonly basis: readonly unknown[];
	readonly policy: RepairPolicy;
	readonly preprocess: PreprocessPlan;
	readonly limits: EnvelopeLimits;
	/** True only when `input` would come out `valid` and untouched from the full run. */
	readonly validAsSent: (input: Record<string, unknown>) => boolean;
}

// A valid call's result shares these: nothing to report, and nothing to allocate on the hot path.
const NO_CHANGES: readonly RepairChange[] = Object.freeze([]);
const NO_OBSERVATIONS: readonly RepairObservation[] = Object.freeze([]);

const compiledPlans = new WeakMap<RepairPipelineConfig, Plan>();

function basisOf(config: RepairPipelineConfig): unknown[] {
	return [
		config.schema,
		config.policy,
		config.policyOverrides,
		config.preprocessors,
		config.engineConfig,
		config.legacyConfig,
		config.modelId,
		config.ownerPrepareArguments,
		config.ownerPrepareApplies,
		config.strictSampling,
		config.limits,
	];
}

function sameBasis(plan: Plan, config: RepairPipelineConfig): boolean {
	const basis = plan.basis;
	return (
		basis[0] === config.schema &&
		basis[1] === config.policy &&
		basis[2] === config.policyOverrides &&
		basis[3] === config.preprocessors &&
		basis[4] === config.engineConfig &&
		basis[5] === config.legacyConfig &&
		basis[6] === config.modelId &&
		basis[7] === config.ownerPrepareArguments &&
		basis[8] === config.ownerPrepareApplies &&
		basis[9] === config.strictSampling &&
		basis[10] === config.limits
	);
}

/** The plan of `config`, compiled on first use and again only when one of its fields changed. */
export function planFor(config: RepairPipelineConfig): Plan {
	const cached = compiledPlans.get(config);
	if (cached !== undefined && sameBasis(cached, config)) return cached;
	const plan = compilePlan(config);
	compiledPlans.set(config, plan);
	return plan;
}

function compilePlan(config: RepairPipelineConfig): Plan {
	const explicit = config.preprocessors ?? [];
	// The original's name for the engine config is read where the new one is absent.
	const translated = engineConfigRows(config.engineConfig ?? config.legacyConfig ?? {}, config.schema, explicit);
	const rows = translated.preprocessors.length === 0 ? explicit : [...explicit, ...translated.preprocessors];
	const preprocess = compilePreprocessPlan(rows, config.modelId);
	return {
		engine: translated.engine,
		rootAliases: translated.rootAliases,
		basis: basisOf(config),
		policy: policyFor(config),
		preprocess,
		limits: resolveLimits(config.limits ?? {}),
		validAsSent: validPathTest(config, preprocess),
	};
}

function validPathTest(
	config: RepairPipelineConfig,
	preprocess: PreprocessPlan,
): (input: Record<string, unknown>) => boolean {
	const ownerApplies = config.ownerPrepareApplies;
	// A shim that does not say when it applies must run on every call to be known a no-op.
	if (config.ownerPrepareArguments !== undefined && ownerApplies === undefined) return () => false;
	// Only the stages this config has: each answers "may change" cheaply, and any `true` sends the call the full way.
	const mayChange: ((input: Record<string, unknown>) => boolean)[] = [];
	if (config.ownerPrepareArguments !== undefined && ownerApplies !== undefined) mayChange.push(ownerApplies);
	// Every configured repair is a row, so the rows' own tests are the whole skip.
	for (const test of preprocess.tests) mayChange.push(test);
	if (config.strictSampling === true) mayChange.push(mayHoldOmittedNull);
	for (const test of argumentKeyTests(config.schema)) mayChange.push(test);
	const anyMayChange = anyOf(mayChange);
	const passes = checkerFor(config.schema);
	return (input) => !anyMayChange(input) && passes(input);
}

/**
 * True when {@link runRepairPipeline} would answer `valid` with `input`
 * itself: plain data proved without running a getter or copying, within the
 * limits, and passing the valid path. Repairs, reports and notifies nothing, so a caller
 * can ask it of a whole message before deciding to judge any call.
 */
export function passesAsSent(input: unknown, config: RepairPipelineConfig): boolean {
	return validPathOf(config)(input);
}

/**
 * {@link passesAsSent} for one config as a function, for a caller that keeps
 * it while the config stands: the plan is looked up once, not at every call,
 * so a message of valid calls runs only the checks themselves.
 */
export function validPathOf(config: RepairPipelineConfig): (input: unknown) => boolean {
	let plan: Plan;
	try {
		plan = planFor(config);
	} catch {
		// A broken schema is not "valid as sent"; the pipeline meets and reports the same error when it judges the call.
		return () => false;
	}
	const { maxNodes, maxNestingDepth } = plan.limits;
	const validAsSent = plan.validAsSent;
	return (input) => {
		try {
			return isRecord(input) && isPlainInput(input, maxNodes, maxNestingDepth) && validAsSent(input);
		} catch {
			// An unreadable input or a throwing test is not "valid as sent" either; the pipeline reports it when it judges the call.
			return false;
		}
	};
}

export function runRepairPipeline(options: { input: unknown; config: RepairPipelineConfig }): RepairPipelineResult {
	const { input, config } = options;
	let policy: RepairPolicy = PLAIN_POLICIES[DEFAULT_POLICY_PROFILE];
	let plan: Plan | undefined;
	let planError: unknown;
	let entry: InputSnapshot | undefined;
	let entryError: unknown;
	try {
		plan = planFor(config);
		policy = plan.policy;
	} catch (error) {
		// Only a broken schema can make the plan throw.
		planError = error;
	}
	try {
		// The one read of the input: everything after judges this value (see snapshot.ts).
		const limits = plan?.limits ?? resolveLimits(config.limits ?? {});
		entry = snapshotInput(input, limits.maxNodes, limits.maxNestingDepth);
	} catch (error) {
		// Only an input that cannot be read (a proxy trap that throws) gets here.
		entryError = error;
	}
	try {
		// The entry hands on plain data only, so a record here has a plain prototype: asking again would read a proxy again.
		if (plan !== undefined && entry?.within === true && isRecord(entry.value) && plan.validAsSent(entry.value)) {
			const valid: RepairPipelineResult = {
				outcome: "valid",
				args: entry.value,
				policy: policy.profile,
				changes: NO_CHANGES,
				observations: NO_OBSERVATIONS,
			};
			notify(config, config.onOutcome, valid);
			return valid;
		}
	} catch (error) {
		plan = undefined;
		planError = error;
	}
	const contained: ContainedErrorLabel[] = [];
	const run = recordingContainment(config, contained);
	let result: DownstreamResult;
	if (entry === undefined) {
		contain(run, "pipeline", entryError);
		result = refusedAtEntry(config, input, UNREADABLE_ISSUE, UNREADABLE_RECEIVED);
	} else if (!entry.within) {
		result = refusedAtEntry(config, input, tooComplexIssue(config, entry.bound), input);
	} else {
		try {
			if (plan === undefined) throw planError;
			result = decide(entry.value, run, plan);
		} catch (error) {
			// Only input outside the JSON domain (functions, a proxy trap) or a broken schema can make a stage throw: fail closed.
			contain(run, "pipeline", error);
			result = failedAtBoundary(run, entry.value);
		}
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
	if (contained.length > 0) shaped.containedErrors = [...contained];
	notify(run, run.onOutcome, shaped);
	return shaped;
}

/** `config` for one run: every contained error is still reported to its owner, and its label listed for the result. */
function recordingContainment(config: RepairPipelineConfig, labels: ContainedErrorLabel[]): RepairPipelineConfig {
	return {
		...config,
		onContainedError: (label, error) => {
			labels.push(label);
			config.onContainedError?.(label, error);
		},
	};
}

function decide(input: unknown, config: RepairPipelineConfig, plan: Plan): DownstreamResult {
	const { policy } = plan;
	// A plain object has nothing to decode or unwrap: skipping the envelope's
	// O(size) pre-checks gives the same outcome at no cost. Its values and depth
	// were bounded at the entry; the bytes of its strings are never a bound.
	if (isPlainObject(input)) return shapePrimary(input, downstream(input, [], config, plan));

	const envelope = recoverEnvelope(input, config.limits ?? {}, config.toolName);
	if (policy.allowTruncatedEnvelopeCompletion) {
		for (const candidate of envelope.candidates) {
			const run = downstream(candidate, [truncatedEnvelopeChange()], config, plan);
			if (run.outcome !== "unrepairable") return run;
		}
	}
	return shapePrimary(input, downstream(envelope.value, envelope.changes, config, plan));
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
	plan: Plan,
): DownstreamResult {
	const { toolName } = config;
	const changes: RepairChange[] = [...incoming];

	const owner = config.ownerPrepareArguments;
	const shim =
		owner === undefined || config.ownerPrepareApplies?.(value) === false
			? { value }
			: applyOwnerShim(value, owner, toolName, (error) => contain(config, "owner-shim", error));
	if (shim.change !== undefined) changes.push(shim.change);

	const unwrapped = unwrapArgumentWrapper(shim.value, config.schema, toolName);
	if (unwrapped !== undefined) changes.push(unwrapped.change);

	const observations: RepairObservation[] = [];
	const preprocessed = preprocess(unwrapped?.value ?? shim.value, config, plan, changes, observations);
	const run = finish(withoutSampledNulls(preprocessed, config), changes, observations, config, plan);
	for (const observation of observations) notify(config, config.onObservation, observation);
	return run;
}

/**
 * Stage 4, skipped outright when the plan's location tests prove it a no-op;
 * appends its changes and observations. When a row whose writes can reveal
 * keys wrote (token cleanup), the rest of the list runs once more on the
 * cleaned value, so `{"<arg_key>file_path</arg_key>": …}` ends where
 * `{file_path: …}` would and a second call finds nothing left to do. That row
 * itself runs once: a second pass would strip a token-like text the model
 * really sent, not one that leaked.
 */
function preprocess(
	value: unknown,
	config: RepairPipelineConfig,
	plan: Plan,
	changes: RepairChange[],
	observations: RepairObservation[],
): unknown {
	let steps = plan.preprocess;
	let current = value;
	for (let round = 0; round < 2; round++) {
		if (!planMayChange(steps, current)) return current;
		const result = runPreprocessPlan(steps, current, config.toolName, plan.policy.allowValidValueTransforms);
		// One push per change: a spread of 100,000 arguments overflows the stack.
		for (const change of result.changes) changes.push(change);
		for (const ruleId of result.observations) observe(observations, config, "valid-value", ruleId);
		if (result.unknownKinds.length > 0) observe(observations, config, "preprocess", RULE.unknownPreprocessorKind);
		current = result.value;
		if (!result.keysUncovered) return current;
		steps = steps.withoutKeyUncovering();
	}
	return current;
}

/** Records a value-free observation once per run. */
function observe(
	observations: RepairObservation[],
	config: RepairPipelineConfig,
	stage: RepairObservation["stage"],
	ruleId: string,
): void {
	if (observations.some((observation) => observation.ruleId === ruleId)) return;
	observations.push({ channel: "tool", stage, ruleId, toolName: config.toolName, outcome: "detected" });
}

/** Under strict sampling, a null at an optional property is the wire form of "omitted", and judged so. */
function withoutSampledNulls(value: unknown, config: RepairPipelineConfig): unknown {
	return config.strictSampling === true ? withoutOmittedNulls(config.schema, value) : value;
}

function runEngine(value: unknown, config: RepairPipelineConfig, plan: Plan): EngineResult {
	return runSchemaRepair({
		value,
		schema: config.schema,
		toolName: config.toolName,
		config: plan.engine,
		rootAliases: plan.rootAliases,
		onStructuralThrow: (error) => contain(config, "structural-repair", error),
		maxChanges: plan.limits.maxChanges,
	});
}

/**
 * Stages 5–7: engine, then our conversion and the final check. What the
 * engine built or uncovered (an object from a bare string, the records of a
 * decoded `edits` string) is preprocessed once more and judged again, so the
 * result is what a direct call with it would give: repairing it again finds
 * nothing left to do.
 */
function finish(
	value: unknown,
	changes: RepairChange[],
	observations: RepairObservation[],
	config: RepairPipelineConfig,
	plan: Plan,
): DownstreamResult {
	const engine = runEngine(value, config, plan);
	let args = engine.args;
	if (engine.outcome !== "valid") {
		const attempt = engine.outcome === "repaired" && isRecord(engine.args) ? engine : engine.attempt;
		const revisited = attempt === undefined ? undefined : revisit(attempt.args, config, plan, observations);
		if (attempt === undefined || revisited === undefined) {
			if (engine.outcome === "unrepairable") return failed(config, value, observations, engine);
			appendEngineChanges(changes, engine);
		} else {
			const second = runEngine(revisited.value, config, plan);
			if (second.outcome === "unrepairable") return failed(config, value, observations, engine);
			appendEngineChanges(changes, attempt);
			for (const change of revisited.changes) changes.push(change);
			appendEngineChanges(changes, second);
			args = second.args;
		}
	}
	// Keys the tool ignores are named to the model, also on a call that needed nothing else.
	const ignored = undeclaredKeysChange(config.schema, args, config.toolName);
	if (ignored !== undefined) changes.push(ignored);
	if (changes.length === 0) return { outcome: "valid", args: value, changes, observations };

	const converted = convertToSchema(config.schema, args);
	if (!check(config.schema, converted)) return failed(config, value, observations, engine);
	if (converted !== args) changes.push(conversionChange(config.toolName));
	// The repaired value must share nothing with the caller's input.
	const final = cloneJson(converted);
	const result: DownstreamResult = { outcome: "repaired", args: final, changes, observations };
	if (engine.issueSummary !== undefined) result.issueSummary = engine.issueSummary;
	if (engine.fingerprint !== undefined) result.fingerprint = engine.fingerprint;
	return result;
}

/** Preprocessing again on what the engine produced; `undefined` when it changes nothing there. */
function revisit(
	args: unknown,
	config: RepairPipelineConfig,
	plan: Plan,
	observations: RepairObservation[],
): { value: unknown; changes: RepairChange[] } | undefined {
	const changes: RepairChange[] = [];
	const value = withoutSampledNulls(preprocess(args, config, plan, changes, observations), config);
	return value === args ? undefined : { value, changes };
}

/** Every conversion the layer makes is on the record (only the lossless ones exist). */
function conversionChange(toolName: string): RepairChange {
	return {
		ruleId: RULE.convertScalarToSchemaType,
		stage: "schema-repair",
		note: convertScalarToSchemaTypeNote(toolName),
	};
}

function appendEngineChanges(changes: RepairChange[], engine: Pick<EngineResult, "changes">): void {
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
	let found = issuesOrNone(config, seen);
	if (found.length === 0) found = [FINAL_CHECK_ISSUE];
	result.issueSummary = summarizeIssues(found);
	result.fingerprint = failureFingerprint(config.toolName, found);
	result.retryMessage = formatRetryMessage(config.toolName, found, seen, config.schema);
	return result;
}

/** {@link failed}, for a value that already made a stage throw: if describing it throws too, it is unreadable. */
function failedAtBoundary(config: RepairPipelineConfig, seen: unknown): DownstreamResult {
	try {
		return failed(config, seen, []);
	} catch (error) {
		contain(config, "pipeline", error);
		return refusedAtEntry(config, seen, UNREADABLE_ISSUE, UNREADABLE_RECEIVED);
	}
}

/** A call refused before any stage ran: it could not be read, or it holds more work than the bounds allow. */
function refusedAtEntry(
	config: RepairPipelineConfig,
	input: unknown,
	issue: ValidationIssue,
	received: unknown,
): DownstreamResult {
	return {
		outcome: "unrepairable",
		args: input,
		changes: [],
		observations: [],
		issueSummary: summarizeIssues([issue]),
		fingerprint: failureFingerprint(config.toolName, [issue]),
		retryMessage: formatRetryMessage(config.toolName, [issue], received),
	};
}

// The bound names what makes a call costly to judge: its number of values or its depth, never its bytes.
function tooComplexIssue(config: RepairPipelineConfig, bound: "nodes" | "depth"): ValidationIssue {
	const limits = resolveLimits(config.limits ?? {});
	const over =
		bound === "nodes" ? `more than ${limits.maxNodes} values` : `nested deeper than ${limits.maxNestingDepth} levels`;
	return {
		keyword: "too-complex",
		instancePath: "",
		params: {},
		message: `too complex to repair (${over}); send the arguments as a flat object of the tool's parameters`,
	};
}

const UNREADABLE_ISSUE: ValidationIssue = {
	keyword: "unreadable",
	instancePath: "",
	params: {},
	message: "the arguments could not be read as JSON data",
};
const UNREADABLE_RECEIVED = "(arguments that could not be read)";

// Stands in when the value passes the strict check yet the final check of the repaired value failed.
const FINAL_CHECK_ISSUE: ValidationIssue = {
	keyword: "final-validation",
	instancePath: "",
	params: {},
	message: "the repaired arguments did not pass the final check",
};

/** The validator's issues; a value it cannot walk (a cycle) gets none, and the failure is reported. */
function issuesOrNone(config: RepairPipelineConfig, seen: unknown): ValidationIssue[] {
	try {
		return issues(config.schema, seen);
	} catch (error) {
		contain(config, "pipeline", error);
		return [];
	}
}

function notify<T>(config: RepairPipelineConfig, callback: ((value: T) => void) | undefined, value: T): void {
	if (callback === undefined) return;
	try {
		callback(value);
	} catch (error) {
		// A failing observer must never change the verdict.
		contain(config, "observer", error);
	}
}

/** Reports an internal error contained at a boundary; a failing reporter is the end of the line. */
function contain(config: RepairPipelineConfig, label: ContainedErrorLabel, error: unknown): void {
	try {
		config.onContainedError?.(label, error);
	} catch {
		// Nothing is left to report it to.
	}
}
