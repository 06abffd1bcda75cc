/**
 * Turns aggregated telemetry into what `/repair-stats` shows: the plain-text
 * report (a title, then each of `STATS_REPORT_SECTIONS` that has something to
 * say) and the same tallies as bar charts for the TUI. Pure formatting: no I/O.
 */

import type { OutcomeCounts, TelemetryStats } from "../files/stats.ts";
import { type ChartOptions, renderBarChart, renderStackedBarChart } from "./bar-chart.ts";

/** Shown when telemetry is off, the file is absent, or it holds no record. */
export const EMPTY_STATS_NOTICE = "Tool-repair telemetry: nothing has been recorded in the telemetry file yet.";

export function noMatchNotice(filterDescription: readonly string[]): string {
	return `Tool-repair telemetry: no record matches ${filterDescription.join(" and ")}.`;
}

const GRAMMAR_HEADING = "Grammar text on the message channel (stripped or observed, not promoted):";
const CONTINUATIONS_HEADING = "Silent stops continued (asked once to go on):";

/** Rows ranked by repaired + recovered, largest first; ties keep first-seen order. */
export function rankOutcomeRows(rows: ReadonlyMap<string, OutcomeCounts>): [string, OutcomeCounts][] {
	return [...rows].sort((a, b) => b[1].repaired + b[1].recovered - (a[1].repaired + a[1].recovered));
}

/** Counts ranked largest first; ties keep first-seen order. */
export function rankCounts(counts: ReadonlyMap<string, number>): [string, number][] {
	return [...counts].sort((a, b) => b[1] - a[1]);
}

export function statsTitle(stats: TelemetryStats, filterDescription: readonly string[] = []): string {
	const filtered = filterDescription.length > 0 ? `, ${filterDescription.join(", ")}` : "";
	return (
		`Tool-repair telemetry: ${counted(stats.total, "record")} ` +
		`(${counted(stats.toolEvents, "tool event")}, ${counted(stats.messageEvents, "grammar strip-only event")})${filtered}`
	);
}

function counted(n: number, noun: string): string {
	return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** One part of the report: its lines, heading first, or `undefined` to leave it out. */
export type StatsReportSection = (stats: TelemetryStats) => string[] | undefined;

/** The report's sections in order; a new kind of tally is one more entry here. */
export const STATS_REPORT_SECTIONS: readonly StatsReportSection[] = [
	(stats) => ["By tool:", ...rankOutcomeRows(stats.byTool).map(([name, c]) => outcomeLine(name, c))],
	(stats) => ["By model:", ...rankOutcomeRows(stats.byModel).map(([name, c]) => outcomeLine(name, c))],
	(stats) =>
		stats.grammars.size > 0
			? [GRAMMAR_HEADING, ...rankCounts(stats.grammars).map(([name, n]) => `  ${name}: ${n}`)]
			: undefined,
	(stats) =>
		stats.continuations.size > 0
			? [CONTINUATIONS_HEADING, ...rankCounts(stats.continuations).map(([name, n]) => `  ${name}: ${n}`)]
			: undefined,
	(stats) => ["Rules fired:", ...rankCounts(stats.rules).map(([name, n]) => `  ${name}: ${n}`)],
];

/** The text report: the title, then every section with something to say, a blank line between them. */
export function formatStatsReport(stats: TelemetryStats, filterDescription: readonly string[] = []): string {
	const sections: string[][] = [[statsTitle(stats, filterDescription)]];
	for (const section of STATS_REPORT_SECTIONS) {
		const lines = section(stats);
		if (lines !== undefined) sections.push(lines);
	}
	return sections.map((lines) => lines.join("\n")).join("\n\n");
}

export function outcomeLine(name: string, c: OutcomeCounts): string {
	return `  ${name}: ${c.repaired} repaired, ${c.recovered} recovered, ${c.unrepairable} unrepairable`;
}

/** The `/repair-stats` section of tool events by owner kind; empty when there are none. */
export function ownerKindSection(byOwner: ReadonlyMap<string, OutcomeCounts>): string {
	if (byOwner.size === 0) return "";
	return ["By owner kind:", ...rankOutcomeRows(byOwner).map(([kind, counts]) => outcomeLine(kind, counts))].join("\n");
}

export const OUTCOME_SEGMENTS = [
	{ name: "repaired", glyph: "█" },
	{ name: "recovered", glyph: "▓" },
	{ name: "unrepairable", glyph: "░" },
] as const;

/** Rows per chart; the text report always lists every row. */
const CHART_ROWS = 12;

/** The same tallies as bar charts, one blank line between charts. */
export function formatStatsCharts(stats: TelemetryStats, options: ChartOptions): string[] {
	const chartOptions = { maxRows: CHART_ROWS, ...options };
	const charts: string[][] = [];
	const outcomeChart = (title: string, rows: ReadonlyMap<string, OutcomeCounts>) =>
		renderStackedBarChart(
			title,
			OUTCOME_SEGMENTS,
			rankOutcomeRows(rows).map(([label, c]) => ({ label, values: [c.repaired, c.recovered, c.unrepairable] })),
			chartOptions,
		);
	if (stats.byTool.size > 0) charts.push(outcomeChart("Outcomes by tool", stats.byTool));
	if (stats.byModel.size > 0) charts.push(outcomeChart("Outcomes by model", stats.byModel));
	if (stats.grammars.size > 0) {
		charts.push(renderBarChart("Grammar families", toBarRows(stats.grammars), chartOptions));
	}
	if (stats.continuations.size > 0) {
		charts.push(renderBarChart("Silent stops continued", toBarRows(stats.continuations), chartOptions));
	}
	if (stats.rules.size > 0) charts.push(renderBarChart("Rules fired", toBarRows(stats.rules), chartOptions));
	return charts.flatMap((chart, i) => (i === 0 ? chart : ["", ...chart]));
}

/** What print mode writes: the report, then the charts, as plain text. */
export function formatStatsPlain(
	stats: TelemetryStats,
	width: number,
	filterDescription: readonly string[] = [],
): string {
	const charts = formatStatsCharts(stats, { width });
	const report = formatStatsReport(stats, filterDescription);
	return charts.length > 0 ? `${report}\n\n${charts.join("\n")}\n` : `${report}\n`;
}

function toBarRows(counts: ReadonlyMap<string, number>): { label: string; value: number }[] {
	return [...counts].map(([label, value]) => ({ label, value }));
}
