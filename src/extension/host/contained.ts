/**
 * The extension's one error boundary. Every pi event handler body, the
 * commands' registration and the pipeline's own boundaries report through
 * here: a contained error leaves pi to carry on as it would alone, and is
 * never silent. It writes a `PI_TOOL_REPAIR_LOG` diagnostics line and one
 * value-free telemetry record (the boundary's label and the error's class
 * name, never its message, which may quote argument values).
 */
import { logContainedError } from "./diagnostics.ts";
import type { TelemetryRecorder } from "./types.ts";

/** A system error code (`EACCES`, `ENOSPC`): names the failure without any path or value. */
const SYSTEM_ERROR_CODE = /^E[A-Z0-9]{1,15}$/;

/** The error's system code or class name when it is a plain identifier, else a generic kind: never its message. */
export function errorKind(error: unknown): string {
	const code = (error as { code?: unknown } | null)?.code;
	if (typeof code === "string" && SYSTEM_ERROR_CODE.test(code)) return code;
	if (error instanceof Error) return /^[A-Za-z][A-Za-z0-9]{0,39}$/.test(error.name) ? error.name : "Error";
	return error === null ? "null" : typeof error;
}

/** Reports one contained error; reporting itself never throws. */
export function reportContainedError(label: string, error: unknown, telemetry: TelemetryRecorder | undefined): void {
	const kind = errorKind(error);
	logContainedError(label, kind);
	try {
		telemetry?.containedError?.({ label, error: kind });
	} catch {
		// The diagnostics line above already carries it; nothing is left to report to.
	}
}

export type Contained = <T>(label: string, body: () => T) => T | undefined;

/** The boundary: runs `body`, and on a throw reports it and answers `undefined`. */
export function createContained(telemetry: () => TelemetryRecorder | undefined): Contained {
	return <T>(label: string, body: () => T): T | undefined => {
		try {
			return body();
		} catch (error) {
			reportContainedError(label, error, telemetry());
			return undefined;
		}
	};
}
