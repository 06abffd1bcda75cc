/**
 * The TUI indicator under a repaired result and the footer
 * tally. Rendering goes through pi's real built-in `read` renderer; the theme
 * is a plain stand-in (pi's Theme needs an initialised terminal), and the
 * footer is checked against a recording `ctx.ui` because print mode has no UI.
 */
import { createReadToolDefinition, type ToolDefinition } from "@earendil-works/pi-coding-agent";
import { visibleWidth } from "@earendil-works/pi-tui";
import { describe, expect, it } from "vitest";
import type { RepairFeedback } from "../../src/core/types.ts";
import {
	footerStatusText,
	indicatorLines,
	RepairIndicatorComponent,
	STATUS_KEY,
	updateFooterStatus,
	withoutRepairNotes,
	wrapRenderResult,
} from "../../src/extension/commands/indicator.ts";
import { defaultRepairSettings } from "../../src/extension/files/settings.ts";
import { createContained } from "../../src/extension/host/contained.ts";
import type { ContainedErrorEvent, RepairSettings } from "../../src/extension/host/types.ts";
import { recordingContained } from "../support/contained-recorder.ts";

const theme = { fg: (_color: string, text: string) => text, bold: (text: string) => text };
const info: RepairFeedback = {
	rules: ["preprocess.exact-alias", "dropNullOrUndefinedField"],
	notes: [
		"The read input used the key file_path where the canonical key is path; the value was moved to path, which is a rather long note that must wrap.",
	],
};

function renderer(settings: RepairSettings, known: Record<string, RepairFeedback> = { repaired: info }) {
	// Typed as any definition: the wrapper serves all eight, whatever their details type.
	const original = createReadToolDefinition("/tmp") as unknown as ToolDefinition;
	const render = original.renderResult;
	if (!render) throw new Error("pi's read has no renderResult");
	return wrapRenderResult(
		render,
		original,
		(id) => known[id],
		() => settings,
		createContained(() => undefined),
	);
}

function renderOnce(settings: RepairSettings, toolCallId: string, width = 80, lastComponent?: unknown) {
	const render = renderer(settings);
	const component = render(
		{ content: [{ type: "text", text: "line one\nline two" }], details: undefined },
		{ expanded: false, isPartial: false },
		theme as never,
		{ toolCallId, lastComponent, args: { path: "a" }, isError: false, expanded: false } as never,
	);
	return { component, lines: component.render(width) };
}

describe("the model-facing note never shows raw", () => {
	const noted = (text: string) => ({
		content: [{ type: "text" as const, text: `<repair_note>moved file_path to path</repair_note>\n${text}` }],
		details: undefined,
	});

	for (const [name, expanded, isError, toolCallId] of [
		["a collapsed result", false, false, "repaired"],
		["an expanded result (Ctrl+O)", true, false, "repaired"],
		["a failed result", false, true, "repaired"],
		["a result whose call the session no longer knows", true, false, "forgotten"],
	] as const) {
		it(`is removed from ${name}`, () => {
			const render = renderer(defaultRepairSettings());
			const component = render(
				noted("ENOENT: no such file"),
				{ expanded, isPartial: false },
				theme as never,
				{ toolCallId, args: { path: "a" }, isError, expanded } as never,
			);
			const screen = component.render(80).join("\n");
			expect(screen).not.toContain("<repair_note>");
			expect(screen).not.toContain("moved file_path");
		});
	}

	it("becomes the ↳ line when notes are on, also when only the result still holds it (a resumed session)", () => {
		const render = renderer({ ...defaultRepairSettings(), showNotes: true }, { resumed: { rules: ["r"], notes: [] } });
		const component = render(
			noted("line one"),
			{ expanded: true, isPartial: false },
			theme as never,
			{ toolCallId: "resumed", args: { path: "a" }, isError: false, expanded: true } as never,
		);
		const screen = component.render(80).join("\n");
		expect(screen).toContain("   ↳ moved file_path to path");
		expect(screen).not.toContain("<repair_note>");
	});

	it("leaves a result that merely mentions the tag in its body alone", () => {
		const body = {
			content: [{ type: "text" as const, text: "see <repair_note>x</repair_note> in docs" }],
			details: undefined,
		};
		expect(withoutRepairNotes(body).result).toBe(body);
	});
});

describe("the result indicator", () => {
	it("adds the muted indicator line with the rule IDs under a repaired call", () => {
		const { lines } = renderOnce(defaultRepairSettings(), "repaired");
		expect(lines.join("\n")).toContain("🔨 ✓ input repaired (preprocess.exact-alias, dropNullOrUndefinedField)");
	});

	it("hides notes by default and shows them, one ↳ line each, when showNotes is on", () => {
		const hidden = renderOnce(defaultRepairSettings(), "repaired").lines.join("\n");
		expect(hidden).not.toContain("↳");
		expect(hidden).not.toContain("<repair_note>");
		const shown = renderOnce({ ...defaultRepairSettings(), showNotes: true }, "repaired", 200).lines.join("\n");
		expect(shown).toContain(`   ↳ ${info.notes[0]}`);
	});

	it("draws a note quoting the model's text (a tool name, a key) with no escape sequence or line break", () => {
		// A note names what the model sent; on the screen its control characters show as ?.
		const hostile: RepairFeedback = {
			rules: ["renameLeakedToolName"],
			notes: ['No tool is named "\u001b[2J\u001b]0;owned\u0007x\r\nfake"; the call was run as read.'],
		};
		const lines = indicatorLines(hostile, { ...defaultRepairSettings(), showNotes: true }, theme, 200);
		expect(lines.join("\n")).toContain('   ↳ No tool is named "?[2J?]0;owned?x??fake"; the call was run as read.');
		expect(lines.join("\n")).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
	});

	it("renders a clean call exactly as pi does, with no indicator", () => {
		const { component, lines } = renderOnce(defaultRepairSettings(), "clean");
		expect(component).not.toBeInstanceOf(RepairIndicatorComponent);
		expect(lines.join("\n")).not.toContain("🔨");
	});

	it("shows nothing extra when the indicator is switched off", () => {
		const { lines } = renderOnce({ ...defaultRepairSettings(), showIndicator: false }, "repaired");
		expect(lines.join("\n")).not.toContain("🔨");
	});

	it("keeps every line within the width when re-rendered at 40, 58, 66, 80 and 120 columns", () => {
		const settings = { ...defaultRepairSettings(), showNotes: true };
		let last: unknown;
		for (const width of [40, 58, 66, 80, 120]) {
			const { component, lines } = renderOnce(settings, "repaired", width, last);
			if (last !== undefined) expect(component).toBe(last);
			last = component;
			for (const line of lines) expect(visibleWidth(line)).toBeLessThanOrEqual(width);
			expect(lines.join("")).toContain("🔨");
		}
	});

	it("shows the result as pi renders it, and reports the failure, when the theme throws", () => {
		const reported: ContainedErrorEvent[] = [];
		const component = new RepairIndicatorComponent(defaultRepairSettings(), recordingContained(reported));
		component.inner = { render: () => ["the result"], invalidate() {} };
		component.info = info;
		component.theme = {
			fg: () => {
				throw new Error("no theme");
			},
		};
		expect(component.render(80)).toEqual(["the result"]);
		expect(reported).toEqual([{ label: "indicator-render", error: "Error" }]);
	});
});

describe("the footer tally", () => {
	function recordingContext(hasUI: boolean) {
		const calls: [string, string | undefined][] = [];
		return {
			calls,
			ctx: { hasUI, ui: { setStatus: (key: string, text: string | undefined) => calls.push([key, text]) } },
		};
	}

	it("shows the number of repaired calls where there is a UI", () => {
		const { calls, ctx } = recordingContext(true);
		updateFooterStatus(ctx, { repaired: 3, recovered: 0, stripped: 0, observed: 0 }, defaultRepairSettings());
		expect(calls).toEqual([[STATUS_KEY, "🔨 3 repaired"]]);
	});

	it("counts promoted calls as recovered, the word /repair-stats uses", () => {
		expect(footerStatusText({ repaired: 2, recovered: 1, stripped: 0, observed: 0 }, defaultRepairSettings())).toBe(
			"🔨 2 repaired · 1 recovered",
		);
		expect(footerStatusText({ repaired: 0, recovered: 1, stripped: 0, observed: 0 }, defaultRepairSettings())).toBe(
			"🔨 1 recovered",
		);
	});

	it("counts leaked calls that were stripped or left as text, so a leak that did not run is never invisible", () => {
		expect(footerStatusText({ repaired: 1, recovered: 0, stripped: 2, observed: 0 }, defaultRepairSettings())).toBe(
			"🔨 1 repaired · 2 leaks stripped",
		);
		expect(footerStatusText({ repaired: 0, recovered: 0, stripped: 1, observed: 1 }, defaultRepairSettings())).toBe(
			"🔨 1 leak stripped · 1 leak observed",
		);
	});

	it("marks a promoted call's result as recovered, not as repaired input", () => {
		const lines = indicatorLines(
			{ rules: ["grammarRecovery:glm"], notes: [], outcome: "recovered" },
			defaultRepairSettings(),
			theme,
			80,
		);
		expect(lines).toEqual(["🔨 ✓ call recovered (grammarRecovery:glm)"]);
	});

	it("clears itself for zero repairs or a hidden indicator", () => {
		expect(
			footerStatusText({ repaired: 0, recovered: 0, stripped: 0, observed: 0 }, defaultRepairSettings()),
		).toBeUndefined();
		expect(
			footerStatusText(
				{ repaired: 2, recovered: 0, stripped: 0, observed: 0 },
				{ ...defaultRepairSettings(), showIndicator: false },
			),
		).toBeUndefined();
	});

	it("never touches the UI without one (print and JSON modes), and leaves a throwing one to the caller's boundary", () => {
		const { calls, ctx } = recordingContext(false);
		updateFooterStatus(ctx, { repaired: 3, recovered: 0, stripped: 0, observed: 0 }, defaultRepairSettings());
		expect(calls).toEqual([]);
		const throwing = {
			hasUI: true,
			ui: {
				setStatus: () => {
					throw new Error("gone");
				},
			},
		};
		expect(() =>
			updateFooterStatus(throwing, { repaired: 1, recovered: 0, stripped: 0, observed: 0 }, defaultRepairSettings()),
		).toThrow("gone");
		expect(() =>
			updateFooterStatus(undefined, { repaired: 1, recovered: 0, stripped: 0, observed: 0 }, defaultRepairSettings()),
		).not.toThrow();
	});
});
