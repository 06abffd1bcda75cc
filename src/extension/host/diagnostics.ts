/**
 * The `PI_TOOL_REPAIR_LOG` diagnostics lines on stderr, never carrying an
 * argument value: one per repaired or unrepairable call (rule IDs and the
 * public issue summary: declared paths, keywords and types only, from the
 * same event as the telemetry record), one per message whose
 * leaked tool-call text was stripped or observed instead of promoted (the
 * grammar families, the `grammarRecovery` setting and how many leaked calls,
 * never the text), and one per internal error contained at a boundary (the
 * boundary's label and the error's class name).
 *
 *   [pi-repair] tool=<tool> outcome=<repaired|unrepairable> rules=<ids or none>[ issues=<summary>]
 *   [pi-repair] leak=<stripped|observed> grammars=<families> mode=<grammarRecovery> count=<n>
 *   [pi-repair] contained=<label> error=<class name>
 *
 * Whatever a field holds, a line never carries a control character or an
 * escape sequence: the whole line passes through `printable`.
 */
import { repairLogEnabled } from "./env.ts";
import { printable } from "./printable.ts";
import type { LeakTextEvent, ToolOutcomeEvent } from "./types.ts";

/** Distinct values of `pick` over `items`, in first-seen order. */
export function distinctInOrder<T>(items: readonly T[], pick: (item: T) => string): string[] {
	const seen = new Set<string>();
	for (const item of items) seen.add(pick(item));
	return [...seen];
}

export function formatDiagnosticLine(event: ToolOutcomeEvent): string {
	const issues = event.issues ? ` issues=${event.issues}` : "";
	const rules = event.rules.length > 0 ? event.rules.join(",") : "none";
	return `[pi-repair] tool=${event.tool} outcome=${event.outcome} rules=${rules}${issues}`;
}

/** Writes the line of a repaired or unrepairable call when the switch is on. */
export function logOutcome(event: ToolOutcomeEvent): void {
	writeLine(formatDiagnosticLine(event));
}

export function formatLeakTextLine(leak: LeakTextEvent): string {
	return `[pi-repair] leak=${leak.outcome} grammars=${leak.grammars.join(",")} mode=${leak.mode} count=${leak.count}`;
}

/** Writes the line of leaked text that was stripped or observed when the switch is on. */
export function logLeakText(leak: LeakTextEvent): void {
	writeLine(formatLeakTextLine(leak));
}

export function formatContainedLine(label: string, errorKind: string): string {
	return `[pi-repair] contained=${label} error=${errorKind}`;
}

/** Writes the line of a contained error when the switch is on. */
export function logContainedError(label: string, errorKind: string): void {
	writeLine(formatContainedLine(label, errorKind));
}

function writeLine(line: string): void {
	if (!repairLogEnabled()) return;
	try {
		process.stderr.write(`${printable(line)}\n`);
	} catch {
		// A broken stderr is where diagnostics would go: there is nowhere left to report it.
	}
}
