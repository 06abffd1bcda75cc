/**
 * A telemetry recorder that keeps only contained-error events, and the
 * extension's boundary built on it: what the tests of a boundary read back.
 */
import { type Contained, createContained } from "../../src/extension/host/contained.ts";
import type { ContainedErrorEvent, TelemetryRecorder } from "../../src/extension/host/types.ts";
import { silentTelemetry } from "./repair-deps.ts";

export function containedErrorRecorder(events: ContainedErrorEvent[]): TelemetryRecorder {
	return silentTelemetry({ containedError: (event) => void events.push(event) });
}

/** The one boundary, reporting into `events`. */
export function recordingContained(events: ContainedErrorEvent[]): Contained {
	return createContained(() => containedErrorRecorder(events));
}
