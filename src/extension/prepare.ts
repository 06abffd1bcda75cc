/**
 * The repair step of one tool: the `prepareArguments` pi calls before
 * validating a call to a wrapped built-in, and the same pipeline run at
 * message_end for malformed argument text and for every other tool's calls.
 *
 * Outcomes:
 * - valid: the caller's own object goes back untouched; no note, no log, no
 *   telemetry (strict-sampling nulls are valid too);
 * - repaired: the repaired args go back, the diagnostics line and a telemetry
 *   record are written, and the feedback waits for `tool_call`;
 * - unrepairable: the retry message is thrown (the one intentional throw of
 *   the extension), with the tool's expected shape once the same failure
 *   repeats; with PI_TOOL_REPAIR_PASSTHROUGH the call goes to pi unchanged.
 * Any other failure inside the extension is contained and reported (see
 * `contained.ts`): the call then goes on exactly as pi alone would run it.
 */
import { runRepairPipeline } from "../core/pipeline.ts";
import type {
	Preprocessor,
	RepairFeedback,
	RepairObservation,
	RepairPipelineConfig,
	RepairPipelineResult,
	ToolRepairConfig,
	TSchema,
} from "../core/types.ts";
import { isArgumentsRefused } from "../pi/refused-arguments.ts";
import { distinctInOrder, logOutcome } from "./diagnostics.ts";
import { passthroughEnabled } from "./env.ts";
import { escalateRetryMessage, type RepeatFailureTracker } from "./escalation.ts";
import type { RepairFeedbackHub } from "./feedback.ts";
import type { ModelTracker } from "./model-tracker.ts";
import type { OwnerKind } from "./tool-owners.ts";
import type { RepairDisplaySettings, TelemetryRecorder } from "./types.ts";

/** Everything the pipeline needs to know about one tool. */
export interface ToolRepairSpec {
	name: string;
	schema: TSchema;
	preprocessors: readonly Preprocessor[];
	legacyConfig: ToolRepairConfig;
	/** The tool asks for strict constrained sampling, so optional nulls mean "omitted". */
	strictSampling: boolean;
	/** The tool's own argument shim (pi's edit has one), chained as the pipeline's owner stage. */
	ownerPrepare?: (args: unknown) => unknown;
	/** When the owner's shim can change a call; without it the shim runs on every call. */
	ownerPrepareApplies?: (args: unknown) => boolean;
	/** Who owns the tool, for telemetry; default `builtin`. */
	owner?: OwnerKind;
}

/** Shared, session-scoped collaborators of every wrapped tool. */
export interface RepairDeps {
	settings(): RepairDisplaySettings;
	model: ModelTracker;
	telemetry: TelemetryRecorder;
	feedback: RepairFeedbackHub;
	failures: RepeatFailureTracker;
	/** Reports an internal error contained at a boundary (diagnostics line and telemetry counter). */
	reportContained?: (label: string, error: unknown) => void;
}

/** Runs the pipeline for one tool with the session's current policy and model. */
export class ToolRepairer {
	readonly spec: ToolRepairSpec;
	private readonly deps: RepairDeps;
	private cachedConfig: RepairPipelineConfig | undefined;
	private readonly onObservation: (observation: RepairObservation) => void;
	private readonly onContainedError: (label: string, error: unknown) => void;

	constructor(spec: ToolRepairSpec, deps: RepairDeps) {
		this.spec = spec;
		this.deps = deps;
		this.onObservation = (observation) => {
			this.deps.telemetry.toolObservation({
				tool: spec.name,
				model: this.deps.model.id,
				ruleId: observation.ruleId,
				profile: this.deps.settings().policyProfile,
			});
		};
		this.onContainedError = (label, error) => this.contain(label, error);
	}

	/** Reports a contained error of this tool's repair step. */
	private contain(label: string, error: unknown): void {
		this.deps.reportContained?.(`${label}:${this.spec.name}`, error);
	}

	/** The pipeline config, rebuilt only when the profile or the model changed (the valid path allocates nothing). */
	config(): RepairPipelineConfig {
		const policy = this.deps.settings().policyProfile;
		const modelId = this.deps.model.id;
		const cached = this.cachedConfig;
		if (cached !== undefined && cached.policy === policy && cached.modelId === modelId) return cached;
		const { spec } = this;
		const config: RepairPipelineConfig = {
			toolName: spec.name,
			schema: spec.schema,
			policy,
			preprocessors: spec.preprocessors,
			legacyConfig: spec.legacyConfig,
			strictSampling: spec.strictSampling,
			onObservation: this.onObservation,
			onContainedError: this.onContainedError,
		};
		if (modelId !== undefined) config.modelId = modelId;
		if (spec.ownerPrepare !== undefined) config.ownerPrepareArguments = spec.ownerPrepare;
		if (spec.ownerPrepareApplies !== undefined) config.ownerPrepareApplies = spec.ownerPrepareApplies;
		this.cachedConfig = config;
		return config;
	}

	run(input: unknown): RepairPipelineResult {
		return runRepairPipeline({ input, config: this.config() });
	}

	/** Diagnostics line and telemetry record of a repaired or unrepairable outcome; never throws. */
	report(result: RepairPipelineResult): void {
		if (result.outcome === "valid") return;
		logOutcome(this.spec.name, result);
		try {
			const repaired = result.outcome === "repaired";
			this.deps.telemetry.toolOutcome({
				tool: this.spec.name,
				model: this.deps.model.id,
				outcome: result.outcome,
				rules: repaired ? distinctInOrder(result.changes, (c) => c.ruleId) : [],
				...(result.issueSummary ? { issues: result.issueSummary } : {}),
				...(result.fingerprint ? { fingerprint: result.fingerprint } : {}),
				profile: result.policy,
				stages: repaired ? distinctInOrder(result.changes, (c) => c.stage) : [],
				owner: this.spec.owner ?? "builtin",
			});
		} catch (error) {
			// Telemetry is best effort.
			this.contain("telemetry", error);
		}
	}

	/** What a repaired outcome tells the model and the indicator. */
	feedbackFor(result: RepairPipelineResult): RepairFeedback {
		const feedback: RepairFeedback = {
			rules: distinctInOrder(result.changes, (c) => c.ruleId),
			notes: result.changes.map((c) => c.note),
			stages: distinctInOrder(result.changes, (c) => c.stage),
			profile: this.deps.settings().policyProfile,
			outcome: "repaired",
		};
		if (this.deps.model.id !== undefined) feedback.model = this.deps.model.id;
		if (result.fingerprint !== undefined) feedback.fingerprint = result.fingerprint;
		return feedback;
	}

	/**
	 * The retry message for an unrepairable outcome (with the tool's expected
	 * shape once the same failure repeats), or `undefined` when the call should
	 * go to pi as it is (passthrough, or no message).
	 */
	retryText(result: RepairPipelineResult): string | undefined {
		let failures = 1;
		try {
			failures = this.deps.failures.record(this.spec.name, result.fingerprint);
		} catch (error) {
			// Escalation is an extra; the retry message stands without it.
			this.contain("escalation", error);
		}
		if (passthroughEnabled() || !result.retryMessage) return undefined;
		return escalateRetryMessage(result.retryMessage, this.spec.name, this.spec.schema, failures);
	}

	/** The wrapped `prepareArguments`. */
	prepare(raw: unknown): unknown {
		// Malformed text the rescue could not repair, or a call refused at message_end: pi's argumentsError says it better.
		if (isArgumentsRefused(raw)) return this.asPiAlone(raw);
		let result: RepairPipelineResult;
		try {
			result = this.run(raw);
		} catch (error) {
			this.contain("prepare", error);
			return this.asPiAlone(raw);
		}
		if (result.outcome === "valid") return result.args;
		this.report(result);
		if (result.outcome === "repaired") {
			try {
				this.deps.feedback.pending(this.spec.name, result.args, this.feedbackFor(result));
			} catch (error) {
				// The call still runs repaired; only its note is lost.
				this.contain("feedback", error);
			}
			return result.args;
		}
		const retry = this.retryText(result);
		if (retry === undefined) return this.asPiAlone(raw);
		throw new Error(retry);
	}

	/** The call as pi would prepare it without this extension. */
	private asPiAlone(raw: unknown): unknown {
		return this.spec.ownerPrepare === undefined ? raw : this.spec.ownerPrepare(raw);
	}
}
