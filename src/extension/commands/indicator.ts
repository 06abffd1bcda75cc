/**
 * What the user sees of a repair in the TUI (and in HTML exports):
 *
 * - under a repaired call's result, a muted line
 *   `🔨 ✓ input repaired (<rule ids>)`, plus one `   ↳ <note>` line per note
 *   when notes are switched on; clean calls render exactly as pi renders them;
 * - the model-facing `<repair_note>` lines at the head of a result are never
 *   drawn as text (collapsed, expanded or failed): the renderer gets the
 *   result without them, and they become the `↳` lines instead;
 * - in the footer, a compact tally of the calls repaired and recovered this
 *   session, and of the leaked calls whose text was stripped from a reply or
 *   left in it (observed) instead of being run, so a leak is never invisible.
 *
 * Notes can quote the model's text, so every drawn line passes through
 * `printable`. Both only read value-free feedback (rule IDs; notes only while the session
 * holds them) and the live settings object, so a settings change shows at the
 * next render. The indicator's own work runs inside the extension's one
 * `contained` boundary: a failure there (a theme that throws) shows the
 * result as pi renders it and is reported; pi's own renderer is never wrapped
 * in a catch, so its failures stay pi's. The footer is the caller's to contain.
 */
import type { ToolDefinition, ToolRendererResolver } from "@earendil-works/pi-coding-agent";
import { type Component, wrapTextWithAnsi } from "@earendil-works/pi-tui";
import type { RepairFeedback } from "../../core/types.ts";
import type { Contained } from "../host/contained.ts";
import { printable } from "../host/printable.ts";
import type { RepairSettings } from "../host/types.ts";
import type { SessionTally } from "../repair/feedback.ts";

export const INDICATOR_PREFIX = "🔨 ✓ input repaired";
/** A call promoted from leaked grammar text: "recovered", as telemetry and `/repair-stats` call it. */
export const RECOVERED_PREFIX = "🔨 ✓ call recovered";
export const NOTE_PREFIX = "   ↳ ";
/** `ctx.ui.setStatus` key of the footer tally. */
export const STATUS_KEY = "pi-repair";

interface ThemeLike {
	fg?: (color: string, text: string) => string;
}

function muted(theme: unknown, text: string): string {
	const fg = (theme as ThemeLike | undefined)?.fg;
	return typeof fg === "function" ? fg.call(theme, "muted", text) : text;
}

/** The indicator lines for one repaired call, each wrapped to `width`. */
export function indicatorLines(
	info: RepairFeedback,
	settings: RepairSettings,
	theme: unknown,
	width: number,
): string[] {
	if (!settings.showIndicator) return [];
	const safeWidth = Math.max(1, Math.floor(width));
	const prefix = info.outcome === "recovered" ? RECOVERED_PREFIX : INDICATOR_PREFIX;
	// Notes quote the model's own text (a tool name, a key): its control characters must not drive the terminal.
	const lines = wrapTextWithAnsi(muted(theme, printable(`${prefix} (${info.rules.join(", ")})`)), safeWidth);
	if (settings.showNotes) {
		for (const note of info.notes) {
			lines.push(...wrapTextWithAnsi(muted(theme, printable(`${NOTE_PREFIX}${note}`)), safeWidth));
		}
	}
	return lines;
}

/** Wraps the built-in result component and appends the indicator lines under it. */
export class RepairIndicatorComponent implements Component {
	inner: Component | undefined;
	info: RepairFeedback | undefined;
	theme: unknown;
	settings: RepairSettings;
	private readonly contained: Contained;

	constructor(settings: RepairSettings, contained: Contained) {
		this.settings = settings;
		this.contained = contained;
	}

	render(width: number): string[] {
		const lines = this.inner?.render(width) ?? [];
		const info = this.info;
		if (info === undefined) return [...lines];
		const extra = this.contained("indicator-render", () => indicatorLines(info, this.settings, this.theme, width));
		return [...lines, ...(extra ?? [])];
	}

	invalidate(): void {
		this.inner?.invalidate();
	}
}

type RenderResult = NonNullable<ToolDefinition["renderResult"]>;
type RenderedResult = Parameters<RenderResult>[0];

/** The `<repair_note>` lines `attachRepairNotes` puts at the head of the first text block. */
const LEADING_NOTES = /^(?:<repair_note>[^\n]*?<\/repair_note>(?:\n|$))+/;
const ONE_NOTE = /<repair_note>([^\n]*?)<\/repair_note>/g;

/**
 * The result as the screen should show it (the first text block without its
 * leading note lines) and the notes found there; the same object when there
 * are none.
 */
export function withoutRepairNotes(result: RenderedResult): { result: RenderedResult; notes: string[] } {
	const content = result.content;
	const index = content.findIndex((block) => block.type === "text");
	const first = content[index];
	if (first?.type !== "text") return { result, notes: [] };
	const head = LEADING_NOTES.exec(first.text)?.[0];
	if (head === undefined) return { result, notes: [] };
	const notes = [...head.matchAll(ONE_NOTE)].map((match) => match[1] ?? "");
	const copy = [...content];
	copy[index] = { ...first, text: first.text.slice(head.length) };
	return { result: { ...result, content: copy }, notes };
}

/**
 * A `renderResult` wrapping the tool's own: the original renderer, plus the
 * indicator for calls that were repaired (or restored from the session).
 */
export function wrapRenderResult(
	original: RenderResult,
	owner: unknown,
	lookup: (toolCallId: string) => RepairFeedback | undefined,
	settings: () => RepairSettings,
	contained: Contained,
): RenderResult {
	return (raw, options, theme, context) => {
		const info = contained("indicator-lookup", () => lookup(context.toolCallId));
		const { result, notes } = withoutRepairNotes(raw);
		const previous = context.lastComponent;
		const wrapper = previous instanceof RepairIndicatorComponent ? previous : undefined;
		if (wrapper === undefined && info === undefined) return original.call(owner, result, options, theme, context);
		const component = wrapper ?? new RepairIndicatorComponent(settings(), contained);
		// The built-in renderer may reuse its own previous component, so hand it back the inner one.
		component.inner = original.call(owner, result, options, theme, { ...context, lastComponent: component.inner });
		// After a resume the session holds no notes in memory; the result itself still carries them.
		component.info = info !== undefined && info.notes.length === 0 && notes.length > 0 ? { ...info, notes } : info;
		component.theme = theme;
		component.settings = settings();
		return component;
	};
}

type RenderCall = NonNullable<ToolDefinition["renderCall"]>;

/**
 * A `renderCall` that draws the call as the layer judged it. pi's TUI makes
 * a call's row while the call streams in and never hands it the message
 * `message_end` replaced, so a rescued call would keep the header of its
 * malformed text (`$ ...`); the judged arguments, looked up by call ID, give
 * it its real one (`$ ls -la`). A call the layer did not change is drawn
 * from pi's own arguments.
 */
function withJudgedArgs(
	original: RenderCall,
	owner: unknown,
	judged: (toolCallId: string) => unknown,
	contained: Contained,
): RenderCall {
	return (args, theme, context) => {
		const repaired = contained("indicator-args", () => judged(context.toolCallId));
		if (repaired === undefined) return original.call(owner, args, theme, context);
		return original.call(owner, repaired, theme, { ...context, args: repaired });
	};
}

/**
 * The layer's `pi.registerToolRenderer` resolver: every tool keeps the
 * renderers pi (or the resolvers after this one, or its owner) would use;
 * its call renderer draws the judged call and its result renderer adds the
 * indicator. No tool is registered for it, so no owner's tool is ever
 * replaced. A tool drawn without renderers of its own is left as pi draws it.
 */
export function indicatorRenderers(
	lookup: (toolCallId: string) => RepairFeedback | undefined,
	judged: (toolCallId: string) => unknown,
	settings: () => RepairSettings,
	contained: Contained,
): ToolRendererResolver {
	return (_toolName, next) => {
		const base = next();
		if (base === undefined || (base.renderResult === undefined && base.renderCall === undefined)) return base;
		const wrapped = { ...base };
		if (base.renderCall !== undefined) wrapped.renderCall = withJudgedArgs(base.renderCall, base, judged, contained);
		if (base.renderResult !== undefined) {
			wrapped.renderResult = wrapRenderResult(base.renderResult, base, lookup, settings, contained);
		}
		return wrapped;
	};
}

/** How each count of the tally reads in the footer: calls by their outcome, leaked text as "leak(s) …". */
const FOOTER_WORDS: Record<keyof SessionTally, (n: number) => string> = {
	repaired: (n) => `${n} repaired`,
	recovered: (n) => `${n} recovered`,
	stripped: (n) => `${n} ${n === 1 ? "leak" : "leaks"} stripped`,
	observed: (n) => `${n} ${n === 1 ? "leak" : "leaks"} observed`,
};

/** The footer text for the session's tally, or `undefined` to clear it. */
export function footerStatusText(tally: SessionTally, settings: RepairSettings, theme?: unknown): string | undefined {
	if (!settings.showIndicator) return undefined;
	const parts = (Object.keys(FOOTER_WORDS) as (keyof SessionTally)[])
		.filter((outcome) => tally[outcome] > 0)
		.map((outcome) => FOOTER_WORDS[outcome](tally[outcome]));
	return parts.length === 0 ? undefined : muted(theme, `🔨 ${parts.join(" · ")}`);
}

interface StatusContext {
	hasUI?: boolean;
	ui?: { setStatus?: (key: string, text: string | undefined) => void; theme?: unknown };
}

/** Shows (or clears) the footer tally where there is a UI; a no-op in print and JSON modes. */
export function updateFooterStatus(
	ctx: StatusContext | undefined,
	tally: SessionTally,
	settings: RepairSettings,
): void {
	if (!ctx?.hasUI || typeof ctx.ui?.setStatus !== "function") return;
	ctx.ui.setStatus(STATUS_KEY, footerStatusText(tally, settings, ctx.ui.theme));
}
