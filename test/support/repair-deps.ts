/**
 * The dependencies the extension hands each tool's repairer, as the tests and benches build them: the
 * default settings (one object, so a test may change a setting through `deps.settings()`), a fresh model
 * tracker, note store and failure counts, and a telemetry recorder that drops every record but those a
 * caller's hooks take.
 */
import { defaultRepairSettings } from "../../src/extension/files/settings.ts";
import type { TelemetryRecorder } from "../../src/extension/host/types.ts";
import { RepeatFailureTracker } from "../../src/extension/repair/escalation.ts";
import { RepairFeedbackHub } from "../../src/extension/repair/feedback.ts";
import { ModelTracker } from "../../src/extension/repair/model-tracker.ts";
import type { RepairDeps } from "../../src/extension/repair/prepare.ts";

/** A recorder that drops every record, except those the given hooks take. */
export function silentTelemetry(hooks: Partial<TelemetryRecorder> = {}): TelemetryRecorder {
	return {
		toolOutcome() {},
		toolObservation() {},
		grammarRecovered() {},
		grammarStripped() {},
		grammarObserved() {},
		...hooks,
	};
}

export interface RepairDepsOptions extends Partial<RepairDeps> {
	/** The session's current model id; unknown (every model gate closed) when absent. */
	modelId?: string;
}

/** Repair dependencies with the defaults above; any given dependency replaces its default. */
export function repairDeps({ modelId, ...given }: RepairDepsOptions = {}): RepairDeps {
	const settings = defaultRepairSettings();
	const model = new ModelTracker();
	model.id = modelId;
	return {
		settings: () => settings,
		model,
		telemetry: silentTelemetry(),
		feedback: new RepairFeedbackHub(),
		failures: new RepeatFailureTracker(),
		...given,
	};
}
