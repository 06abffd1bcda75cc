import { errorKind } from "../host/contained.ts";
import { logContainedError } from "../host/diagnostics.ts";

/**
 * How the settings, telemetry and stats code names a failed file operation:
 * the error's code (`ENOENT`, `EACCES`, …) when it has one, else its message.
 */
export function errorCode(error: unknown): string {
	if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") {
		return error.code;
	}
	return error instanceof Error ? error.message : String(error);
}

/**
 * Reports an I/O error a file-system boundary (settings, telemetry, stats)
 * contained: one `PI_TOOL_REPAIR_LOG` line with the boundary and the error's
 * code, never its message (which names the path). The user hears of it
 * separately, through the warning the boundary returns.
 */
export function reportIoError(label: string, error: unknown): void {
	logContainedError(label, errorKind(error));
}

/** Reports `error` unless it is the one code the boundary expects as a normal case (a missing file). */
export function reportIoErrorUnless(expected: string, label: string, error: unknown): void {
	if (errorCode(error) !== expected) reportIoError(label, error);
}
