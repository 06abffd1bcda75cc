/**
 * The `/repair-stats` report: its layout (sections, row formats, order,
 * grammar section only when a family was counted), the ranking rules, and
 * the plain-text print form with its charts.
 */
import { describe, expect, it } from "vitest";
import {
	EMPTY_STATS_NOTICE,
	formatStatsCharts,
	formatStatsPlain,
	formatStatsReport,
	ownerKindSection,
	statsTitle,
} from "../../src/extension/commands/stats-report.ts";
import { StatsAccumulator } from "../../src/extension/files/stats.ts";
import { forgedLines, TAMPERED_RECORDS, TAMPERED_TOOL_SHOWN, UNPRINTABLE } from "../support/tampered-telemetry.ts";

function statsOf(records: Record<string, unknown>[]) {
	const acc = new StatsAccumulator();
	for (const record of records) acc.addLine(JSON.stringify(record));
	return acc.stats;
}

const oneOfEachKind = [
	{ tool: "read", model: "glm-4.6", outcome: "repaired", rules: ["preprocess.exact-alias"] },
	{ tool: "write", model: "glm-4.6", outcome: "unrepairable", rules: [] },
	{ tool: "read", model: "glm-4.6", outcome: "recovered", rules: ["grammarRecovery:glm"], grammar: "glm" },
	{ model: "glm-4.6", outcome: "stripped", rules: ["grammarStrip"], channel: "message", grammar: "dsml" },
	{ model: "glm-4.6", outcome: "observed", rules: ["grammarObserve"], channel: "message", grammar: "qwen" },
];

describe("continued silent stops, by what the reply did", () => {
	const continued = (fields: Record<string, unknown>) => ({
		kind: "continuation",
		model: "glm-4.6",
		outcome: "continued",
		rules: ["continueSilentStop"],
		channel: "message",
		...fields,
	});

	it("counts a phantom tool use, a reply of reasoning alone and one that ended with a leaked call apart", () => {
		const stats = statsOf([
			continued({ phantom: true, reasoningOnly: false }),
			continued({ phantom: false, reasoningOnly: true }),
			continued({ phantom: false, reasoningOnly: true }),
			continued({ phantom: false, reasoningOnly: false }),
			// Written before reasoningOnly existed: a reply that was not a phantom tool use is counted with the leaks.
			continued({ phantom: false }),
		]);
		const section = formatStatsReport(stats)
			.split("\n\n")
			.find((part) => part.startsWith("Silent stops continued"));
		expect(section).toBe(
			"Silent stops continued (asked once to go on):\n  reasoning only: 2\n  after a leaked call: 2\n  phantom tool use: 1",
		);
		expect(formatStatsCharts(stats, { width: 60 })).toContain("Silent stops continued");
	});

	it("leaves the section out when nothing was continued", () => {
		expect(formatStatsReport(statsOf(oneOfEachKind))).not.toContain("Silent stops continued");
	});
});

describe("report layout: title, then each section with something to say", () => {
	it("renders one record of each kind section by section", () => {
		const report = formatStatsReport(statsOf(oneOfEachKind));
		const [title, ...rest] = report.split("\n\n");
		expect(title).toMatch(/5 records/);
		expect(title).toMatch(/3 tool events/);
		expect(title).toMatch(/2 grammar strip-only events/);
		expect(rest[0]).toBe(
			"By tool:\n  read: 1 repaired, 1 recovered, 0 unrepairable\n  write: 0 repaired, 0 recovered, 1 unrepairable",
		);
		expect(rest[1]).toBe("By model:\n  glm-4.6: 1 repaired, 1 recovered, 1 unrepairable");
		expect(rest[2]).toMatch(/^[^\n]+:\n {2}dsml: 1\n {2}qwen: 1$/);
		expect(rest[3]).toBe(
			"Rules fired:\n  preprocess.exact-alias: 1\n  grammarRecovery:glm: 1\n  grammarStrip: 1\n  grammarObserve: 1",
		);
		expect(rest).toHaveLength(4);
	});

	it("leaves out the grammar section when no family was counted", () => {
		const report = formatStatsReport(statsOf(oneOfEachKind.slice(0, 3)));
		expect(report.split("\n\n").map((section) => section.split("\n")[0])).toEqual([
			statsTitle(statsOf(oneOfEachKind.slice(0, 3))),
			"By tool:",
			"By model:",
			"Rules fired:",
		]);
	});

	it("ranks tool and model rows by repaired + recovered, ties in first-seen order", () => {
		const report = formatStatsReport(
			statsOf([
				{ tool: "ls", model: "a", outcome: "unrepairable", rules: [] },
				{ tool: "ls", model: "a", outcome: "unrepairable", rules: [] },
				{ tool: "bash", model: "b", outcome: "repaired", rules: [] },
				{ tool: "edit", model: "c", outcome: "recovered", rules: [] },
				{ tool: "edit", model: "c", outcome: "repaired", rules: [] },
				{ tool: "grep", model: "d", outcome: "repaired", rules: [] },
			]),
		);
		const byTool = report.split("\n\n")[1]?.split("\n").slice(1);
		expect(byTool?.map((line) => line.trim().split(":")[0])).toEqual(["edit", "bash", "grep", "ls"]);
	});

	it("ranks rules by count, ties in first-seen order", () => {
		const report = formatStatsReport(
			statsOf([
				{ tool: "t", outcome: "repaired", rules: ["one", "two"] },
				{ tool: "t", outcome: "repaired", rules: ["three", "two"] },
			]),
		);
		expect(report.split("\n\n").at(-1)).toBe("Rules fired:\n  two: 2\n  one: 1\n  three: 1");
	});

	it("names the active filters in the title", () => {
		expect(statsTitle(statsOf(oneOfEachKind), ['model contains "glm"'])).toContain('model contains "glm"');
	});

	it("has a fixed one-line empty notice", () => {
		expect(EMPTY_STATS_NOTICE.split("\n")).toHaveLength(1);
		expect(EMPTY_STATS_NOTICE).toMatch(/telemetry/i);
	});
});

describe("charts and plain print form", () => {
	it("draws outcome, grammar and rule charts, each titled", () => {
		const lines = formatStatsCharts(statsOf(oneOfEachKind), { width: 70 });
		expect(lines).toContain("Outcomes by tool");
		expect(lines).toContain("Outcomes by model");
		expect(lines).toContain("Grammar families");
		expect(lines).toContain("Rules fired");
		for (const line of lines) expect(line.length).toBeLessThanOrEqual(70);
	});

	it("prints the report followed by the charts as plain text, ending with a newline", () => {
		const stats = statsOf(oneOfEachKind);
		const text = formatStatsPlain(stats, 72);
		expect(text.startsWith(formatStatsReport(stats))).toBe(true);
		expect(text).toContain("Outcomes by tool");
		expect(text.endsWith("\n")).toBe(true);
		expect(text).not.toMatch(/\u001b/);
	});
});

describe("a tampered telemetry file", () => {
	it("renders every name with its control characters, escape sequences and separators made visible as ?", () => {
		const stats = statsOf([...TAMPERED_RECORDS]);
		const text = [
			formatStatsReport(stats),
			formatStatsPlain(stats, 100),
			...formatStatsCharts(stats, { width: 100 }),
			ownerKindSection(stats.byOwner),
		].join("\n");
		expect(text).not.toMatch(UNPRINTABLE);
		expect(text).toContain(TAMPERED_TOOL_SHOWN);
		expect(forgedLines(text)).toEqual([]);
	});

	it("cuts a name longer than any tool or model name to a bounded length", () => {
		const stats = statsOf([
			{ tool: "t".repeat(100_000), model: "m", outcome: "repaired", rules: ["r".repeat(50_000)] },
		]);
		for (const name of [...stats.byTool.keys(), ...stats.rules.keys()]) expect(name.length).toBeLessThanOrEqual(128);
	});
});
