/**
 * Horizontal bar charts for the terminal, as plain lines that fit a given
 * width. Bars are scaled to the largest row, drawn with block characters (a
 * simple bar uses eighth blocks for the fraction; a stacked bar uses one
 * distinct glyph per segment, named in a legend), so they read the same with
 * or without colour. An optional `paint` hook colours a segment after the
 * layout is fixed, so colour never changes the width.
 */
import { truncateToWidth, visibleWidth } from "@earendil-works/pi-tui";

export interface BarRow {
	label: string;
	value: number;
}

export interface StackedBarRow {
	label: string;
	/** One value per segment, in the order of the chart's segments. */
	values: readonly number[];
}

export interface BarSegment {
	name: string;
	/** One terminal cell wide, distinct from the other segments' glyphs. */
	glyph: string;
}

export interface ChartOptions {
	/** Total width of every line, in terminal columns. */
	width: number;
	/** Rows beyond this are summed into a last "… N more" line. */
	maxRows?: number;
	/** Colours the text of one segment (index) after layout. */
	paint?: (segment: number, text: string) => string;
}

const EIGHTHS = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
const FULL = "█";
const INDENT = "  ";
/** Narrower than this, a chart would be unreadable; lines are then simply cut. */
const MIN_WIDTH = 24;

/** A simple chart, sorted by value (largest first, ties keep their order). */
export function renderBarChart(title: string, rows: readonly BarRow[], options: ChartOptions): string[] {
	const sorted = [...rows].sort((a, b) => b.value - a.value);
	const { shown, hidden } = limitRows(sorted, options.maxRows);
	const max = Math.max(0, ...shown.map((r) => r.value));
	const layout = columns(
		shown.map((r) => r.label),
		shown.map((r) => formatCount(r.value)),
		options.width,
	);
	const lines = [title];
	for (const r of shown) {
		const eighths = max > 0 ? Math.round((r.value / max) * layout.barWidth * 8) : 0;
		// A non-zero value always shows at least a sliver.
		const cells = r.value > 0 ? Math.max(1, eighths) : 0;
		const bar = FULL.repeat(Math.floor(cells / 8)) + (EIGHTHS[cells % 8] ?? "");
		lines.push(layout.line(r.label, paintWith(options, 0, bar), visibleWidth(bar), formatCount(r.value)));
	}
	if (hidden > 0) lines.push(`${INDENT}… ${hidden} more`);
	return lines.map((line) => clipToWidth(line, options));
}

/**
 * A stacked chart sorted by row total (largest first, ties keep the caller's
 * order), scaled by row totals, with a legend line under the title.
 */
export function renderStackedBarChart(
	title: string,
	segments: readonly BarSegment[],
	rows: readonly StackedBarRow[],
	options: ChartOptions,
): string[] {
	const sorted = [...rows].sort((a, b) => sum(b.values) - sum(a.values));
	const { shown, hidden } = limitRows(sorted, options.maxRows);
	const totals = shown.map((r) => sum(r.values));
	const max = Math.max(0, ...totals);
	const layout = columns(
		shown.map((r) => r.label),
		totals.map(formatCount),
		options.width,
	);
	const legend = segments.map((s, i) => `${paintWith(options, i, s.glyph)} ${s.name}`).join("   ");
	const lines = [title, `${INDENT}${legend}`];
	shown.forEach((r, index) => {
		const total = totals[index] ?? 0;
		const cells = max > 0 ? Math.round((total / max) * layout.barWidth) : 0;
		const split = splitCells(r.values, Math.max(cells, total > 0 ? 1 : 0));
		const bar = split
			.map((n, i) => (n > 0 ? paintWith(options, i, (segments[i]?.glyph ?? FULL).repeat(n)) : ""))
			.join("");
		lines.push(layout.line(r.label, bar, sum(split), formatCount(total)));
	});
	if (hidden > 0) lines.push(`${INDENT}… ${hidden} more`);
	return lines.map((line) => clipToWidth(line, options));
}

/**
 * Shares `cells` among the segments in proportion (largest remainder), and
 * gives every non-zero segment at least one cell when there is room, so a
 * rare outcome never disappears from its row.
 */
export function splitCells(values: readonly number[], cells: number): number[] {
	const total = sum(values);
	if (total <= 0 || cells <= 0) return values.map(() => 0);
	const exact = values.map((v) => (v / total) * cells);
	const result = exact.map(Math.floor);
	let left = cells - sum(result);
	const byRemainder = exact.map((x, i) => ({ i, r: x - Math.floor(x) })).sort((a, b) => b.r - a.r);
	for (const { i } of byRemainder) {
		if (left <= 0) break;
		result[i] = (result[i] ?? 0) + 1;
		left--;
	}
	for (let i = 0; i < values.length; i++) {
		if ((values[i] ?? 0) > 0 && result[i] === 0) {
			const donor = result.indexOf(Math.max(...result));
			if ((result[donor] ?? 0) > 1) {
				result[donor] = (result[donor] ?? 0) - 1;
				result[i] = 1;
			}
		}
	}
	return result;
}

interface Layout {
	barWidth: number;
	line(label: string, bar: string, barCells: number, value: string): string;
}

/** Label column (at most 40 % of the width), bar column, right-aligned value column. */
function columns(labels: readonly string[], values: readonly string[], width: number): Layout {
	const usable = Math.max(width, MIN_WIDTH);
	const valueWidth = Math.max(1, ...values.map((v) => v.length));
	const labelWidth = Math.max(1, Math.min(Math.floor(usable * 0.4), Math.max(1, ...labels.map(visibleWidth))));
	const barWidth = Math.max(1, usable - INDENT.length - labelWidth - 1 - 1 - valueWidth);
	return {
		barWidth,
		line(label, bar, barCells, value) {
			const shownLabel = truncatePlain(label, labelWidth);
			const labelPad = " ".repeat(Math.max(0, labelWidth - visibleWidth(shownLabel)));
			const barPad = " ".repeat(Math.max(0, barWidth - barCells));
			return `${INDENT}${shownLabel}${labelPad} ${bar}${barPad} ${value.padStart(valueWidth)}`;
		},
	};
}

function limitRows<T>(rows: readonly T[], maxRows: number | undefined): { shown: readonly T[]; hidden: number } {
	if (maxRows === undefined || rows.length <= maxRows) return { shown: rows, hidden: 0 };
	return { shown: rows.slice(0, maxRows), hidden: rows.length - maxRows };
}

function paintWith(options: ChartOptions, segment: number, text: string): string {
	return options.paint && text !== "" ? options.paint(segment, text) : text;
}

/** Only painted lines carry escape codes, so only they need pi-tui's ANSI-aware cut. */
function clipToWidth(line: string, options: ChartOptions): string {
	if (visibleWidth(line) <= options.width) return line;
	return options.paint ? truncateToWidth(line, options.width, "") : truncatePlain(line, options.width, "");
}

/** Cuts plain text to `width` columns, ending with `ellipsis` when something was cut. */
export function truncatePlain(text: string, width: number, ellipsis = "…"): string {
	if (visibleWidth(text) <= width) return text;
	const room = width - visibleWidth(ellipsis);
	let out = "";
	let used = 0;
	for (const char of text) {
		const w = visibleWidth(char);
		if (used + w > room) break;
		out += char;
		used += w;
	}
	return out + ellipsis;
}

function formatCount(value: number): string {
	return String(value);
}

function sum(values: readonly number[]): number {
	let total = 0;
	for (const v of values) total += v;
	return total;
}
