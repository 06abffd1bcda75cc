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
