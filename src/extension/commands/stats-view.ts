/**
 * The `/repair-stats` view in pi's TUI: the bar charts and the text report in
 * a scrolling window the height of the terminal.
 */
import type { KeybindingsManager, Theme } from "@earendil-works/pi-coding-agent";
import { type Component, matchesKey, type TUI, truncateToWidth, wrapTextWithAnsi } from "@earendil-works/pi-tui";

export interface StatsViewContent {
	report: string;
	charts: (width: number, paint: (segment: number, text: string) => string) => string[];
}

const OUTCOME_COLOURS = ["success", "accent", "error"] as const;

/** The report covers the whole terminal, so nothing of the transcript shows through between its lines. */
export const STATS_OVERLAY = { width: "100%", maxHeight: "100%", anchor: "top-left" } as const;

/**
 * The TUI report: charts first, then the text report, in a window the
 * height of the terminal, shown as a full-width overlay. Arrows, PgUp/PgDn
 * and Home/End scroll (the view takes those keys from pi's fullscreen
 * transcript while it is open: through `capturesViewportInput` where pi has
 * it, and as a focused overlay on pi 1.3, which has not); Enter, Escape or
 * `q` close it.
 */
export function createStatsView(
	content: StatsViewContent,
	tui: Pick<TUI, "requestRender"> & { terminal?: { rows: number } },
	theme: Pick<Theme, "fg" | "bold">,
	keybindings: Pick<KeybindingsManager, "matches">,
	done: () => void,
): Component & { capturesViewportInput: boolean } {
	let offset = 0;
	let cache: { width: number; lines: string[] } | undefined;
	const body = (width: number): string[] => {
		if (cache?.width === width) return cache.lines;
		const paint = (segment: number, text: string) => theme.fg(OUTCOME_COLOURS[segment] ?? "accent", text);
		const reportLines = content.report.split("\n");
		const [title = "", ...rest] = reportLines;
		// Text wraps (a long model name or filter stays readable); chart lines already fit.
		const wrap = (line: string) => (line === "" ? [""] : wrapTextWithAnsi(line, width));
		const lines = [
			...wrap(title).map((line) => theme.bold(line)),
			"",
			...content.charts(width, paint).map((line) => truncateToWidth(line, width)),
			"",
			...rest.filter((_, i) => i > 0 || rest[0] !== "").flatMap(wrap),
		];
		cache = { width, lines };
		return lines;
	};
	const windowHeight = () => Math.max(6, (tui.terminal?.rows ?? 24) - 6);
	const lastOffset = () => Math.max(0, (cache?.lines.length ?? 0) - windowHeight());
	return {
		capturesViewportInput: true,
		render(width: number): string[] {
			const lines = body(width);
			const height = windowHeight();
			offset = Math.min(offset, lastOffset());
			const shown = lines.slice(offset, offset + height);
			const position =
				lines.length > height
					? `lines ${offset + 1}–${offset + shown.length} of ${lines.length} · ↑↓ PgUp PgDn Home End scroll · `
					: "";
			return [...shown, "", truncateToWidth(theme.fg("dim", `${position}Enter or Esc closes`), width)];
		},
		handleInput(data: string): void {
			const page = windowHeight();
			if (
				keybindings.matches(data, "tui.select.confirm") ||
				keybindings.matches(data, "tui.select.cancel") ||
				data === "q"
			) {
				done();
				return;
			}
			if (keybindings.matches(data, "tui.select.up")) offset = Math.max(0, offset - 1);
			else if (keybindings.matches(data, "tui.select.down")) offset = Math.min(lastOffset(), offset + 1);
			else if (keybindings.matches(data, "tui.select.pageUp")) offset = Math.max(0, offset - page);
			else if (keybindings.matches(data, "tui.select.pageDown")) offset = Math.min(lastOffset(), offset + page);
			else if (matchesKey(data, "home")) offset = 0;
			else if (matchesKey(data, "end")) offset = lastOffset();
			else return;
			tui.requestRender();
		},
		invalidate(): void {
			cache = undefined;
		},
	};
}
