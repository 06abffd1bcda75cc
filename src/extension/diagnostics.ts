/**
 * The `PI_TOOL_REPAIR_LOG` diagnostics line: one stderr line per repaired or
 * unrepairable call, carrying rule IDs and the issue summary (paths, keywords
 * and types only), never an argument value.
 *
 *   [pi-repair] tool=<tool> outcome=<repaired|unrepairable> rules=<ids or none>[ issues=<summary>]
 */
import type { RepairPipelineResult } from "../core/types.ts";
import { repairLogEnabled } from "./env.ts";

/** Distinct values of `pick` over `items`, in first-seen order. */
export function distinctInOrder<T>(items: readonly T[], pick: (item: T) => string): string[] {
	const seen = new Set<string>();
	for (const item of items) seen.add(pick(item));
	return [...seen];
}

export function formatDiagnosticLine(toolName: string, result: RepairPipelineResult): string {
	const rules = result.outcome === "repaired" ? distinctInOrder(result.changes, (change) => change.ruleId) : [];
	const issues = result.issueSummary ? ` issues=${result.issueSummary}` : "";
	return `[pi-repair] tool=${toolName} outcome=${result.outcome} rules=${rules.length > 0 ? rules.join(",") : "none"}${issues}`;
}

/** Writes the line when the switch is on; a broken stderr never reaches the caller. */
export function logOutcome(toolName: string, result: RepairPipelineResult): void {
	if (result.outcome === "valid" || !repairLogEnabled()) return;
	try {
		process.stderr.write(`${formatDiagnosticLine(toolName, result)}\n`);
	} catch {
		// Diagnostics are best effort.
	}
}
