/**
 * Terminal bar charts: sorted, scaled to the width, every line within the
 * width, readable without colour (distinct glyphs, no escape codes unless a
 * painter is given).
 */
import { visibleWidth } from "@earendil-works/pi-tui";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	renderBarChart,
	renderStackedBarChart,
	splitCells,
	truncatePlain,
} from "../../src/extension/commands/bar-chart.ts";

const SEGMENTS = [
	{ name: "repaired", glyph: "█" },
	{ name: "recovered", glyph: "▓" },
	{ name: "unrepairable", glyph: "░" },
];

/** Cells a simple bar occupies, counting the eighth-block tail as a fraction. */
function barCells(line: string): number {
	const eighths = ["▏", "▎", "▍", "▌", "▋", "▊", "▉"];
	let cells = 0;
	for (const char of line) {
		if (char === "█") cells += 1;
		const partial = eighths.indexOf(char);
		if (partial >= 0) cells += (partial + 1) / 8;
	}
	return cells;
}

function count(line: string, glyph: string): number {
	return [...line].filter((char) => char === glyph).length;
}

describe("simple bar chart", () => {
	const rows = [
		{ label: "b", value: 5 },
		{ label: "a", value: 10 },
		{ label: "c", value: 5 },
		{ label: "zero", value: 0 },
	];

	it("puts the title first and sorts rows largest first, ties in their given order", () => {
		const lines = renderBarChart("Rules fired", rows, { width: 60 });
		expect(lines[0]).toBe("Rules fired");
		expect(lines.slice(1).map((line) => line.trim().split(" ")[0])).toEqual(["a", "b", "c", "zero"]);
	});

	it("scales the largest row to the full bar width and the others in proportion", () => {
		const lines = renderBarChart("t", rows, { width: 60 });
		const full = barCells(lines[1] ?? "");
		expect(full).toBeGreaterThan(40);
		expect(Math.abs(barCells(lines[2] ?? "") - full / 2)).toBeLessThanOrEqual(1 / 8);
	});

	it("shows a sliver for a tiny non-zero value and nothing for zero", () => {
		const lines = renderBarChart(
			"t",
			[
				{ label: "big", value: 100000 },
				{ label: "tiny", value: 1 },
				{ label: "none", value: 0 },
			],
			{ width: 60 },
		);
		expect(barCells(lines[2] ?? "")).toBeGreaterThan(0);
		expect(barCells(lines[3] ?? "")).toBe(0);
		expect(lines[3]?.trimEnd().endsWith(" 0")).toBe(true);
	});

	it("prints every value after its bar, right-aligned", () => {
		const lines = renderBarChart(
			"t",
			[
				{ label: "x", value: 1234 },
				{ label: "y", value: 7 },
			],
			{ width: 50 },
		);
		expect(lines[1]?.endsWith(" 1234")).toBe(true);
		expect(lines[2]?.endsWith("    7")).toBe(true);
		expect(visibleWidth(lines[1] ?? "")).toBe(visibleWidth(lines[2] ?? ""));
	});

	it("cuts long labels with an ellipsis, keeping the bars aligned", () => {
		const lines = renderBarChart(
			"t",
			[
				{ label: "a-very-long-model-name-that-goes-on-and-on", value: 3 },
				{ label: "short", value: 2 },
			],
			{ width: 40 },
		);
		expect(lines[1]).toContain("…");
		expect(visibleWidth(lines[1] ?? "")).toBe(40);
		expect(visibleWidth(lines[2] ?? "")).toBe(40);
	});

	it("summarises rows past maxRows in one line", () => {
		const many = Array.from({ length: 20 }, (_, i) => ({ label: `r${i}`, value: 20 - i }));
		const lines = renderBarChart("t", many, { width: 60, maxRows: 5 });
		expect(lines).toHaveLength(7);
		expect(lines[6]).toBe("  … 15 more");
	});

	it("contains no escape code without a painter", () => {
		expect(renderBarChart("t", rows, { width: 60 }).join("\n")).not.toMatch(/\u001b/);
	});

	it("paints bars without changing the visible width", () => {
		const plain = renderBarChart("t", rows, { width: 60 });
		const painted = renderBarChart("t", rows, { width: 60, paint: (_, text) => `\u001b[32m${text}\u001b[39m` });
		expect(painted.join("\n")).toMatch(/\u001b\[32m/);
		expect(painted.map(visibleWidth)).toEqual(plain.map(visibleWidth));
	});
});

describe("stacked bar chart", () => {
	const rows = [
		{ label: "read", values: [6, 2, 2] },
		{ label: "write", values: [0, 0, 20] },
		{ label: "ls", values: [1, 0, 0] },
	];

	it("shows a legend naming each glyph", () => {
		const lines = renderStackedBarChart("Outcomes by tool", SEGMENTS, rows, { width: 60 });
		expect(lines[0]).toBe("Outcomes by tool");
		expect(lines[1]).toBe("  █ repaired   ▓ recovered   ░ unrepairable");
	});

	it("sorts rows by total and scales by total", () => {
		const lines = renderStackedBarChart("t", SEGMENTS, rows, { width: 60 }).slice(2);
		expect(lines.map((line) => line.trim().split(" ")[0])).toEqual(["write", "read", "ls"]);
		const cells = lines.map((line) => count(line, "█") + count(line, "▓") + count(line, "░"));
		expect(Math.abs((cells[1] ?? 0) - (cells[0] ?? 0) / 2)).toBeLessThanOrEqual(1);
		expect(lines[0]?.endsWith(" 20")).toBe(true);
	});

	it("draws segments in order with distinct glyphs, each non-zero one visible", () => {
		const line = renderStackedBarChart("t", SEGMENTS, [{ label: "x", values: [100, 1, 1] }], { width: 60 })[2] ?? "";
		expect(line).toMatch(/█+▓+░+/);
		expect(count(line, "▓")).toBeGreaterThanOrEqual(1);
		expect(count(line, "░")).toBeGreaterThanOrEqual(1);
	});

	it("keeps an all-zero row as a label with an empty bar", () => {
		const lines = renderStackedBarChart("t", SEGMENTS, [...rows, { label: "observed", values: [0, 0, 0] }], {
			width: 60,
		});
		const last = lines.at(-1) ?? "";
		expect(last.trim().startsWith("observed")).toBe(true);
		expect(count(last, "█") + count(last, "▓") + count(last, "░")).toBe(0);
	});
});

describe("every line fits the width", () => {
	const label = fc.string({ unit: fc.constantFrom("a", "Z", "-", "模", "ü", "✓", "😀", " "), maxLength: 60 });

	it("for simple charts at any width", () => {
		fc.assert(
			fc.property(
				fc.array(fc.record({ label, value: fc.nat(1_000_000) }), { minLength: 1, maxLength: 20 }),
				fc.integer({ min: 24, max: 220 }),
				(rows, width) => {
					for (const line of renderBarChart("title", rows, { width })) {
						expect(visibleWidth(line)).toBeLessThanOrEqual(width);
					}
				},
			),
		);
	});

	it("for stacked charts at any width", () => {
		fc.assert(
			fc.property(
				fc.array(fc.record({ label, values: fc.tuple(fc.nat(5000), fc.nat(5000), fc.nat(5000)) }), {
					minLength: 1,
					maxLength: 20,
				}),
				fc.integer({ min: 24, max: 220 }),
				(rows, width) => {
					for (const line of renderStackedBarChart("title", SEGMENTS, rows, { width })) {
						expect(visibleWidth(line)).toBeLessThanOrEqual(width);
					}
				},
			),
		);
	});

	it("even below the minimum readable width", () => {
		for (const line of renderBarChart("a long chart title", [{ label: "label", value: 3 }], { width: 10 })) {
			expect(visibleWidth(line)).toBeLessThanOrEqual(10);
		}
	});
});

describe("splitCells", () => {
	it("shares the cells in proportion and always sums to the total", () => {
		fc.assert(
			fc.property(
				fc.array(fc.nat(1000), { minLength: 1, maxLength: 5 }),
				fc.integer({ min: 1, max: 200 }),
				(values, cells) => {
					const split = splitCells(values, cells);
					const total = values.reduce((a, b) => a + b, 0);
					expect(split.reduce((a, b) => a + b, 0)).toBe(total > 0 ? cells : 0);
					split.forEach((n, i) => {
						if ((values[i] ?? 0) === 0) expect(n).toBe(0);
					});
				},
			),
		);
	});

	it("gives a small non-zero segment one cell when there is room", () => {
		expect(splitCells([1000, 1], 10)).toEqual([9, 1]);
	});
});

describe("truncatePlain", () => {
	it("keeps text that fits and cuts wide characters by columns", () => {
		expect(truncatePlain("short", 10)).toBe("short");
		expect(truncatePlain("模型模型模型", 7)).toBe("模型模…");
	});
});
