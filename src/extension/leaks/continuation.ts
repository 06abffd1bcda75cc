/**
 * No silent stops. A turn can end with nothing run although the model meant
 * to act: the provider reported `stopReason: "toolUse"` with no tool call in
 * the message (pi#9681), or the reply ended with a call written as text that
 * was stripped or only observed (strip and observe modes, an unknown tool, an
 * incomplete block). Left alone, the agent just stops and waits for the user.
 *
 * pi's `turn_end` boundary lets an extension append session entries and ask
 * for one more provider request (`{ entries, continue: true }`). This guard
 * uses it to ask once, with a visible custom message (shown in the transcript
 * and kept in the session file, never a hidden instruction), whether the
 * model meant to call a tool. It asks, never orders, and runs nothing.
 *
 * A leak counts only when the model itself meant it as a call (the grammar's
 * provenance rule: not quoted, not reasoning, not an echo of the turn's tool
 * results or the user's message, not a mention inside a sentence) and the
 * reply ends with it: nothing but whitespace after it. The note quotes only
 * the name of an active tool spelled as a plain tool-name token, never text
 * from the message.
 *
 * A reply can also stop on reasoning alone: reasoning (a thinking part or a
 * `<think>` span) and no answer and no call, sometimes with the call written
 * inside the reasoning and never made. Reasoning is never acted on, so this
 * too only asks, under the same bounds; the tool is named only when a call in
 * the reasoning names an active tool with a plain name. Never twice in a row (a continuation that again ends
 * silently is left to the user), at most {@link MAX_CONTINUATIONS_PER_SESSION}
 * times per session, and not at all with `askOnSilentStop` off.
 */
import type { CustomMessageEntryDraft, TurnEndEvent, TurnEndEventResult } from "@earendil-works/pi-coding-agent";
import { createEchoIndex } from "../../grammar/echo.ts";
import { type LeakModelPatterns, leakGrammarsFor } from "../../grammar/models.ts";
import { detectGrammarLeaks } from "../../grammar/parse.ts";
import { createProvenanceJudge, endsText } from "../../grammar/provenance.ts";
import { cutRanges, removeRanges } from "../../grammar/ranges.ts";
import { reasoningSpans } from "../../grammar/reasoning.ts";
import { judgeLeaks, scannableField } from "../../grammar/recover.ts";
import { mayHoldMarkup } from "../../grammar/scan.ts";
import type { MinimalAssistantMessage } from "../../grammar/types.ts";
import type { RepairSettings } from "../host/types.ts";

export const MAX_CONTINUATIONS_PER_SESSION = 5;
/** `customType` of the visible note appended at `turn_end`. */
export const CONTINUATION_MESSAGE_TYPE = "tool-repair-continuation";

export interface SilentStopDeps {
	settings(): RepairSettings;
	modelId(): string | undefined;
	activeTools(): readonly string[];
	/** Texts of the current turn's tool results and the user's message: a leak repeating one is an echo. */
	echoSources?(): readonly string[];
	/** The `leakModels` setting, so the continuation looks for the same grammars the leak handler does. */
	leakModels?(): LeakModelPatterns;
	/**
	 * Told of each continuation, for the value-free telemetry counter. The
	 * leak itself was already counted when it was stripped or observed, so
	 * `grammars` is empty for a leak: one leak counts once.
	 */
	onContinue?(stop: { phantom: boolean; reasoningOnly: boolean; grammars: readonly string[] }): void;
}

/** Why the last assistant message ran nothing. */
interface SilentStop {
	phantom: boolean;
	/** The reply held reasoning and nothing else. */
	reasoningOnly?: boolean;
	/** The tool the reply's closing leak names, when it is an active tool with a plain name. */
	tool: string | undefined;
}

/** The slice of pi's `turn_end` event the guard reads. */
export type TurnEndView = Pick<TurnEndEvent, "outcome" | "toolResults" | "entries">;

export class SilentStopGuard {
	private pending: SilentStop | undefined;
	/** Whether this turn, and the one before it, ended in a continuation (never two in a row). */
	private continuedThisTurn = false;
	private continuedLastTurn = false;
	private continuations = 0;
	private readonly deps: SilentStopDeps;

	constructor(deps: SilentStopDeps) {
		this.deps = deps;
	}

	/** Continuations made in this session. */
	get count(): number {
		return this.continuations;
	}

	/**
	 * `message_end` of an assistant message: `original` as the provider sent
	 * it, `final` as pi will keep it (after rescue, renames, grammar handling).
	 */
	noteAssistantMessage(original: unknown, final: unknown): void {
		this.pending = undefined;
		if (!this.deps.settings().askOnSilentStop) return;
		if (!isAssistant(original) || !isAssistant(final) || hasToolCall(final)) return;
		const stop = final.stopReason;
		if (stop !== "toolUse" && stop !== "stop") return;
		const leak = this.closingLeakOf(original);
		if (stop === "toolUse" || leak !== undefined) {
			this.pending = { phantom: stop === "toolUse", tool: leak?.tool };
			return;
		}
		if (stopsOnReasoning(original)) {
			this.pending = { phantom: false, reasoningOnly: true, tool: this.reasonedToolOf(original) };
		}
	}

	/**
	 * Whether {@link noteAssistantMessage} has anything to do for `final`: a
	 * reply with a call is never a silent stop, so for one it only forgets a
	 * stop still remembered.
	 */
	hasWorkFor(final: unknown): boolean {
		return this.pending !== undefined || !isAssistant(final) || !hasToolCall(final);
	}

	/** True while a continuation is remembered: `turn_start` must then move it along (never two in a row). */
	get spansTurns(): boolean {
		return this.continuedThisTurn || this.continuedLastTurn;
	}

	/** `turn_start`: the turn before this one is now the last turn. */
	onTurnStart(): void {
		this.continuedLastTurn = this.continuedThisTurn;
		this.continuedThisTurn = false;
	}

	/**
	 * Whether this turn's `turn_end` has anything to decide. pi runs every
	 * `turn_end` handler through its turn boundary, which rebuilds the
	 * session's context (linear in its length) on every turn, so the layer
	 * listens to `turn_end` only for a turn that stopped silently.
	 */
	wantsTurnEnd(): boolean {
		return this.pending !== undefined;
	}

	/** `turn_end`: the continuation to request, or `undefined` to let the turn end as pi decides. */
	onTurnEnd(event: TurnEndView): TurnEndEventResult | undefined {
		const pending = this.pending;
		this.pending = undefined;
		if (pending === undefined || event.outcome !== "completed" || event.toolResults.length > 0) return undefined;
		if (this.continuedLastTurn || this.continuations >= MAX_CONTINUATIONS_PER_SESSION) return undefined;
		this.continuations++;
		this.continuedThisTurn = true;
		const draft: CustomMessageEntryDraft = {
			type: "custom_message",
			customType: CONTINUATION_MESSAGE_TYPE,
			content: this.noteFor(pending),
			display: true,
		};
		this.deps.onContinue?.({ phantom: pending.phantom, reasoningOnly: pending.reasoningOnly === true, grammars: [] });
		return { entries: [...event.entries, draft], continue: true };
	}

	/** A new or ended session starts from nothing. */
	reset(): void {
		this.pending = undefined;
		this.continuedThisTurn = false;
		this.continuedLastTurn = false;
		this.continuations = 0;
	}

	/**
	 * The call the reply ends with, when the model itself meant it as one:
	 * the last leak of the last non-blank text part, judged by the grammar's
	 * provenance rule, with nothing but whitespace after it. Only the grammars
	 * the leak handler looks for from this model.
	 */
	private closingLeakOf(message: MinimalAssistantMessage): { tool: string | undefined } | undefined {
		if (this.deps.settings().grammarRecovery === "off") return undefined;
		const text = lastText(message);
		if (text === undefined || !mayHoldMarkup(text)) return undefined;
		// The grammars the leak handler looks for: sentinel-framed ones from any model, the rest by model id.
		const leaks = detectGrammarLeaks(text, leakGrammarsFor(this.deps.modelId(), this.deps.leakModels?.()));
		const last = leaks.reduce<(typeof leaks)[number] | undefined>(
			(a, b) => (a === undefined || b.end > a.end ? b : a),
			undefined,
		);
		if (last === undefined || !endsText(text, last.end)) return undefined;
		const judge = createProvenanceJudge(text, createEchoIndex(this.deps.echoSources?.() ?? []), leaks);
		if (judge.of(last) !== "call") return undefined;
		// Debris without a complete call counts only when leaks were the whole reply: after prose it is too weak a sign.
		if (last.stripOnly === true && removeRanges(text, leaks) !== "") return undefined;
		const active = this.deps.activeTools();
		return { tool: isPlainToolName(last.name) && active.includes(last.name) ? last.name : undefined };
	}

	/**
	 * The tool a call written in the reasoning names, when exactly one active
	 * tool with a plain name is named there: the leak judged `reasoning` by
	 * the provenance rule, never acted on, only named in the question.
	 */
	private reasonedToolOf(message: MinimalAssistantMessage): string | undefined {
		if (this.deps.settings().grammarRecovery === "off") return undefined;
		const grammars = leakGrammarsFor(this.deps.modelId(), this.deps.leakModels?.());
		const echoes = createEchoIndex(this.deps.echoSources?.() ?? []);
		const active = this.deps.activeTools();
		const names = new Set<string>();
		for (const part of message.content) {
			const field = scannableField(part);
			if (field === undefined) continue;
			const text = (part as Record<string, unknown>)[field] as string;
			for (const { candidate, who } of judgeLeaks(text, field, grammars, echoes)) {
				if (who === "reasoning" && candidate.name !== "") names.add(candidate.name);
			}
		}
		const [name] = names;
		return names.size === 1 && name !== undefined && isPlainToolName(name) && active.includes(name) ? name : undefined;
	}

	private noteFor(stop: SilentStop): string {
		if (stop.reasoningOnly === true) {
			return stop.tool === undefined
				? "Your last reply held only reasoning: no answer and no tool call, so nothing ran. If you meant to use a tool, call it as a tool; otherwise give your answer."
				: `Your last reply held only reasoning, with a call to \`${stop.tool}\` written in it, which was not run. If you meant to call it, call it as a tool; otherwise give your answer.`;
		}
		if (stop.phantom) {
			return "Your last reply ended with stop reason toolUse but held no tool call, so no tool ran. If you meant to use a tool, call it as a tool; otherwise go on.";
		}
		if (stop.tool !== undefined) {
			return `Your reply ended with text that looks like a call to \`${stop.tool}\`, which was not run. If you meant to call it, call it as a tool; otherwise go on.`;
		}
		return "Your reply ended with text that looks like a tool call, which was not run. If you meant to call a tool, call it as a tool; otherwise go on.";
	}
}

/** A tool name the note may quote: a plain name token, nothing a model could smuggle words or markup into. */
const PLAIN_TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

function isPlainToolName(name: string): boolean {
	return PLAIN_TOOL_NAME.test(name);
}

/**
 * True when the reply is reasoning and nothing else: some reasoning (a
 * thinking part, or a reasoning span in a text part) and no text outside it.
 */
function stopsOnReasoning(message: MinimalAssistantMessage): boolean {
	let reasoning = false;
	for (const part of message.content) {
		const { type, text, thinking, redacted } = part as Record<string, unknown>;
		if (type === "thinking") {
			reasoning ||= (typeof thinking === "string" && thinking.trim() !== "") || redacted === true;
		} else if (type === "text" && typeof text === "string") {
			const spans = reasoningSpans(text);
			if (cutRanges(text, spans).trim() !== "") return false;
			reasoning ||= spans.length > 0;
		} else {
			return false;
		}
	}
	return reasoning;
}

/** The last text part with more than whitespace, if any. */
function lastText(message: MinimalAssistantMessage): string | undefined {
	for (let i = message.content.length - 1; i >= 0; i--) {
		const part = message.content[i] as { type?: unknown; text?: unknown };
		if (part.type === "text" && typeof part.text === "string" && part.text.trim() !== "") return part.text;
	}
	return undefined;
}

function isAssistant(message: unknown): message is MinimalAssistantMessage {
	return (
		typeof message === "object" &&
		message !== null &&
		(message as { role?: unknown }).role === "assistant" &&
		Array.isArray((message as { content?: unknown }).content)
	);
}

function hasToolCall(message: MinimalAssistantMessage): boolean {
	return message.content.some(
		(part) => typeof part === "object" && part !== null && (part as { type?: unknown }).type === "toolCall",
	);
}
