import { visibleWidth } from "@earendil-works/pi-tui";
import { describe, expect, it } from "vitest";
import {
	DEFAULT_WIDTH,
	fitChartRow,
	fitLine,
	isChartRow,
	MIN_WIDTH,
	terminalWidth,
	wrapHanging,
} from "../../scripts/demo/layout.ts";

describe("terminalWidth", () => {
	it("takes COLUMNS first, then the terminal, else 80", () => {
		expect(terminalWidth("100", 120)).toBe(100);
		expect(terminalWidth(undefined, 120)).toBe(120);
		expect(terminalWidth(undefined, undefined)).toBe(DEFAULT_WIDTH);
		expect(terminalWidth("", undefined)).toBe(DEFAULT_WIDTH);
		expect(terminalWidth("wide", undefined)).toBe(DEFAULT_WIDTH);
		expect(terminalWidth("0", undefined)).toBe(DEFAULT_WIDTH);
	});

	it("never goes below the narrowest usable width", () => {
		expect(terminalWidth("10", undefined)).toBe(MIN_WIDTH);
	});
});

describe("wrapHanging and fitLine", () => {
	it("wraps beside a label and indents the continuation", () => {
		const lines = wrapHanging("one two three four five six seven", 20, "    note  ", "          ");
		expect(lines[0]?.startsWith("    note  one")).toBe(true);
		for (const line of lines.slice(1)) expect(line.startsWith("          ")).toBe(true);
		for (const line of lines) expect(visibleWidth(line)).toBeLessThanOrEqual(20);
	});

	it("keeps the text's own line breaks", () => {
		expect(wrapHanging("a\nb", 40, "> ", "  ")).toEqual(["> a", "  b"]);
	});

	it("leaves a line that fits alone and wraps one that does not under its own indent", () => {
		expect(fitLine("  short", 40)).toEqual(["  short"]);
		const lines = fitLine(`  ${"word ".repeat(20)}`, 40);
		expect(lines.length).toBeGreaterThan(1);
		for (const line of lines) {
			expect(line.startsWith("  ")).toBe(true);
			expect(visibleWidth(line)).toBeLessThanOrEqual(40);
		}
	});

	it("measures wide characters as the terminal does", () => {
		for (const line of fitLine('<｜DSML｜invoke name="write"> '.repeat(6), 40)) {
			expect(visibleWidth(line)).toBeLessThanOrEqual(40);
		}
	});
});

describe("fitChartRow", () => {
	const row = `    write ${"█".repeat(30)}${"▓".repeat(20)}${"░".repeat(20)}  3`;

	it("recognises chart rows", () => {
		expect(isChartRow(row)).toBe(true);
		expect(isChartRow("  By tool:")).toBe(false);
	});

	it("narrows the bar, keeping the label, the value and each segment's share", () => {
		const fitted = fitChartRow(row, 60);
		expect(visibleWidth(fitted)).toBe(60);
		expect(fitted.startsWith("    write █")).toBe(true);
		expect(fitted.endsWith("  3")).toBe(true);
		const count = (char: string) => [...fitted].filter((c) => c === char).length;
		expect(count("█")).toBeGreaterThan(count("▓"));
		expect(count("▓")).toBeGreaterThan(0);
		expect(count("░")).toBeGreaterThan(0);
	});

	it("leaves a row that fits as it is", () => {
		expect(fitChartRow(row, 200)).toBe(row);
	});
});
