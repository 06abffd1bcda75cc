/**
 * The extension's environment switches. Each is read when it matters (on every
 * call), so a test or a user can flip it without restarting pi.
 *
 * A switch is on when the variable is set to anything but "", "0" or "false"
 * (exact, case-sensitive).
 */

export const ENV_LOG = "PI_TOOL_REPAIR_LOG";
export const ENV_PASSTHROUGH = "PI_TOOL_REPAIR_PASSTHROUGH";

export function isSwitchOn(value: string | undefined): boolean {
	return value !== undefined && value !== "" && value !== "0" && value !== "false";
}

/** Diagnostics lines on stderr (docs/operations.md, "Logs"). */
export function repairLogEnabled(): boolean {
	return isSwitchOn(process.env[ENV_LOG]);
}

/** Unrepairable input goes to pi's own validation unchanged instead of failing closed. */
export function passthroughEnabled(): boolean {
	return isSwitchOn(process.env[ENV_PASSTHROUGH]);
}
