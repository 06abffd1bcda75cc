/**
 * Fits the demo's output to the terminal: every line it prints, notes, pi's
 * errors and the `/repair-stats` charts included, stays within the width.
 * Widths are terminal columns (ANSI colour and wide characters measured by
 * pi-tui, as pi measures them).
 */
import { truncateToWidth, visibleWidth, wrapTextWithAnsi } from "@earendil-works/pi-tui";

/** Below this the labels and bars no longer fit beside any text. */
export const MIN_WIDTH = 40;
/** What a pipe, a file or a terminal that reports nothing gets. */
export const DEFAULT_WIDTH = 80;

/** `COLUMNS` when it is a usable number, else the terminal's own width, else 80. */
export function terminalWidth(columnsVariable: string | undefined, ttyColumns: number | undefined): number {
	const fromEnv = /^\d+$/.test(columnsVariable?.trim() ?? "") ? Number(columnsVariable) : undefined;
	const width = fromEnv !== undefined && fromEnv > 0 ? fromEnv : (ttyColumns ?? DEFAULT_WIDTH);
	return Math.max(MIN_WIDTH, width);
}

/** Word-wraps `text` (newlines kept) into `width`; continuation lines start with `indent`. */
export function wrapHanging(text: string, width: number, firstPrefix: string, indent: string): string[] {
	const lines: string[] = [];
	const bodyWidth = Math.max(1, width - Math.max(visibleWidth(firstPrefix), visibleWidth(indent)));
	for (const [index, piece] of wrapTextWithAnsi(text, bodyWidth).entries()) {
		lines.push(`${index === 0 ? firstPrefix : indent}${piece}`.trimEnd());
	}
	return lines.length > 0 ? lines : [firstPrefix.trimEnd()];
}

/** A line as wide as it is when it fits, else wrapped under its own leading spaces. */
export function fitLine(text: string, width: number): string[] {
	if (visibleWidth(text) <= width) return [text];
	const indent = /^ */.exec(text)?.[0] ?? "";
	return wrapHanging(text.slice(indent.length), width, indent, `${indent}  `);
}

const BAR_CHARACTERS = "█▉▊▋▌▍▎▏▓▒░";
const CHART_ROW = new RegExp(`^(.*? )([${BAR_CHARACTERS}][${BAR_CHARACTERS} ]*?)( +\\S+)$`);

/**
 * A bar-chart row (label, bar, value) made narrower by resampling its bar, so
 * every bar keeps its share of the row and the value stays readable. Other
 * lines, and rows too narrow to squeeze, are cut at the width instead.
 */
export function fitChartRow(text: string, width: number): string {
	const excess = visibleWidth(text) - width;
	if (excess <= 0) return text;
	const match = CHART_ROW.exec(text);
	const [label, bar, value] = [match?.[1] ?? "", [...(match?.[2] ?? "")], match?.[3] ?? ""];
	if (match === null || bar.length - excess < 1) return truncateToWidth(text, width, "");
	const target = bar.length - excess;
	const squeezed = Array.from({ length: target }, (_, index) => bar[Math.floor((index * bar.length) / target)] ?? " ");
	return `${label}${squeezed.join("")}${value}`;
}

/** Is this line one row of a bar chart? */
export function isChartRow(text: string): boolean {
	return CHART_ROW.test(text);
}
