/**
 * The repair step of one tool: its pipeline, run at `message_end` for each
 * model-issued call (malformed argument text included) and, with
 * `codemodeRepair`, for each nested call of a codemode script.
 *
 * Outcomes, as the caller acts on them:
 * - valid: the caller's own object goes back untouched; no note, no log, no
 *   telemetry (strict-sampling nulls are valid too);
 * - repaired: the repaired args run, the diagnostics line and a telemetry
 *   record are written (`report`) and the note is bound to the call's ID;
 * - unrepairable: the retry message (`retryText`), with the tool's expected
 *   shape once the same failure repeats; with PI_TOOL_REPAIR_PASSTHROUGH the
 *   call goes to pi unchanged.
 * Any other failure inside the extension is contained and reported (see
 * `contained.ts`): the call then goes on exactly as pi alone would run it.
 */
import { runRepairPipeline, validPathOf } from "../../core/pipeline.ts";
import type {
	Preprocessor,
	RepairFeedback,
	RepairObservation,
	RepairPipelineConfig,
	RepairPipelineResult,
	RepairPolicyOverrides,
	ToolRepairConfig,
	TSchema,
} from "../../core/types.ts";
import { type Contained, createContained } from "../host/contained.ts";
import { distinctInOrder, logOutcome } from "../host/diagnostics.ts";
import { passthroughEnabled } from "../host/env.ts";
import type { OwnerKind, RepairSettings, TelemetryRecorder, ToolOutcomeEvent } from "../host/types.ts";
import { escalateRetryMessage, type RepeatFailureTracker } from "./escalation.ts";
import type { RepairFeedbackHub } from "./feedback.ts";
import { publicIssues } from "./issue-privacy.ts";
import type { ModelTracker } from "./model-tracker.ts";

/** Everything the pipeline needs to know about one tool. */
export interface ToolRepairSpec {
	name: string;
	schema: TSchema;
	preprocessors: readonly Preprocessor[];
	/** The tool's own rule config (field aliases and the like), handed to the pipeline. */
	repairConfig: ToolRepairConfig;
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
	settings(): RepairSettings;
	model: ModelTracker;
	telemetry: TelemetryRecorder;
	feedback: RepairFeedbackHub;
	failures: RepeatFailureTracker;
	/** The extension's one error boundary; by default one that reports to `telemetry`. */
	contained?: Contained;
}

/** The session's boundary, or one that reports to the deps' telemetry when none was given (tests, benches). */
export function boundaryOf(deps: RepairDeps): Contained {
	return deps.contained ?? createContained(() => deps.telemetry);
}

/** Runs the pipeline for one tool with the session's current policy and model. */
export class ToolRepairer {
	readonly spec: ToolRepairSpec;
	private readonly deps: RepairDeps;
	private cachedConfig: RepairPipelineConfig | undefined;
	/** The valid-path test of {@link cachedConfig}, made on first use and dropped with it. */
	private validPath: ((input: unknown) => boolean) | undefined;
	private readonly onObservation: (observation: RepairObservation) => void;
	private readonly onContainedError: (label: string, error: unknown) => void;
	private readonly boundary: Contained;
	private readonly withShims = new WeakMap<(args: unknown) => unknown, ToolRepairer>();

	constructor(spec: ToolRepairSpec, deps: RepairDeps) {
		this.spec = spec;
		this.deps = deps;
		this.boundary = boundaryOf(deps);
		this.onObservation = (observation) => {
			this.deps.telemetry.toolObservation({
				tool: spec.name,
				model: this.deps.model.id,
				ruleId: observation.ruleId,
				profile: this.deps.settings().policyProfile,
			});
		};
		// The pipeline contains its own stages' failures and hands them here to be reported.
		this.onContainedError = (label, error) =>
			this.contained(label, () => {
				throw error;
			});
	}

	/** Runs `body` inside the extension's boundary, labelled with this tool's name. */
	private contained<T>(label: string, body: () => T): T | undefined {
		return this.boundary(`${label}:${this.spec.name}`, body);
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
			engineConfig: spec.repairConfig,
			strictSampling: spec.strictSampling,
			onObservation: this.onObservation,
			onContainedError: this.onContainedError,
		};
		if (modelId !== undefined) config.modelId = modelId;
		if (spec.ownerPrepare !== undefined) config.ownerPrepareArguments = spec.ownerPrepare;
		if (spec.ownerPrepareApplies !== undefined) config.ownerPrepareApplies = spec.ownerPrepareApplies;
		this.cachedConfig = config;
		this.validPath = undefined;
		return config;
	}

	/** The owner kind telemetry counts this tool's calls under; the layer's own overrides are built-ins. */
	get owner(): OwnerKind {
		return this.spec.owner ?? "builtin";
	}

	/** One call through the pipeline; `overrides` changes the policy for this call alone (the rescue's intent). */
	run(input: unknown, overrides?: RepairPolicyOverrides): RepairPipelineResult {
		const config = this.config();
		if (overrides === undefined) return runRepairPipeline({ input, config });
		return runRepairPipeline({
			input,
			config: { ...config, policyOverrides: { ...config.policyOverrides, ...overrides } },
		});
	}

	/** True when {@link run} would answer `valid` with `input` itself; judges nothing else. */
	passesAsSent(input: unknown): boolean {
		const config = this.config();
		// config() drops the test whenever it makes a new config, so a kept test always belongs to the current one.
		this.validPath ??= validPathOf(config);
		return this.validPath(input);
	}

	/** Diagnostics line and telemetry record of a repaired or unrepairable outcome; never throws. */
	report(result: RepairPipelineResult): void {
		const outcome = result.outcome;
		if (outcome === "valid") return;
		const repaired = outcome === "repaired";
		// Paths in the summary can run through keys the model wrote; only what the schema declares leaves.
		const event: ToolOutcomeEvent = {
			tool: this.spec.name,
			model: this.deps.model.id,
			outcome,
			rules: repaired ? distinctInOrder(result.changes, (c) => c.ruleId) : [],
			...publicIssues(this.spec.name, this.spec.schema, result),
			profile: result.policy,
			stages: repaired ? distinctInOrder(result.changes, (c) => c.stage) : [],
			owner: this.owner,
		};
		logOutcome(event);
		this.contained("telemetry", () => this.deps.telemetry.toolOutcome(event));
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
		const { fingerprint } = publicIssues(this.spec.name, this.spec.schema, result);
		if (fingerprint !== undefined) feedback.fingerprint = fingerprint;
		return feedback;
	}

	/**
	 * The retry message for an unrepairable outcome (with the tool's expected
	 * shape once the same failure repeats), or `undefined` when the call should
	 * go to pi as it is (passthrough, or no message).
	 */
	retryText(result: RepairPipelineResult): string | undefined {
		// Escalation is an extra: when it fails, the plain retry message stands.
		const failures = this.contained("escalation", () => this.deps.failures.record(this.spec.name, result.fingerprint));
		const message = result.retryMessage;
		if (passthroughEnabled() || !message) return undefined;
		return (
			this.contained("escalation", () =>
				escalateRetryMessage(message, this.spec.name, this.spec.schema, failures ?? 1),
			) ?? message
		);
	}

	/**
	 * This repairer with `shim` as its owner stage: another owner's tool whose
	 * own `prepareArguments` pi hands a running tool (`ctx.tools`), so a nested
	 * call is judged on what that shim makes of it, as pi runs it.
	 */
	withOwnerShim(shim: (args: unknown) => unknown): ToolRepairer {
		if (this.spec.ownerPrepare !== undefined) return this;
		let shimmed = this.withShims.get(shim);
		if (shimmed === undefined) {
			shimmed = new ToolRepairer({ ...this.spec, ownerPrepare: shim }, this.deps);
			this.withShims.set(shim, shimmed);
		}
		return shimmed;
	}
}
