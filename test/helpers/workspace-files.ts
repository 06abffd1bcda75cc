/**
 * Reading what a test run left behind, shared by the CLI and in-process
 * harnesses: a workspace file (or `undefined` when it was never written) and
 * the telemetry file's records.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export function readWorkspaceFile(workspace: string, relativePath: string): string | undefined {
	const target = join(workspace, relativePath);
	return existsSync(target) ? readFileSync(target, "utf8") : undefined;
}

export function readTelemetryRecords(telemetryPath: string): Record<string, unknown>[] {
	if (!existsSync(telemetryPath)) return [];
	return readFileSync(telemetryPath, "utf8")
		.split("\n")
		.filter((line) => line.trim() !== "")
		.map((line) => JSON.parse(line) as Record<string, unknown>);
}
