/**
 * The files of a test run, shared by the CLI and in-process harnesses: the
 * run's folders seeded before it starts, and what it left behind (a workspace
 * file, or `undefined` when it was never written, and the telemetry records).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Creates `root/workspace` (seeded with `files`, relative path -> content) and `root/agent`. */
export function seedRunFolders(
	root: string,
	files: Record<string, string> = {},
): { workspace: string; agentDir: string } {
	const workspace = join(root, "workspace");
	const agentDir = join(root, "agent");
	mkdirSync(workspace, { recursive: true });
	mkdirSync(agentDir, { recursive: true });
	for (const [relative, content] of Object.entries(files)) {
		const target = join(workspace, relative);
		mkdirSync(dirname(target), { recursive: true });
		writeFileSync(target, content);
	}
	return { workspace, agentDir };
}

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
