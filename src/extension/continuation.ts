/**
 * No silent stops. A turn can end with nothing run although the model meant
 * to act: the provider reported `stopReason: "toolUse"` with no tool call in
 * the message (pi#9681), or the model wrote its call as text that was
 * stripped or only observed (strip and observe modes, an unknown tool, an
 * incomplete block). Left alone, the agent just stops and waits for the user.
 *
 * pi's `turn_end` boundary lets an extension append session entries and ask
 * for one more provider request (`{ entries, continue: true }`). This guard
 * uses it to continue the loop once with a hidden note that says what
 * happened and what to do: call the tool natively, with the shape it takes.
 * Never twice in a row (a continuation that again ends silently is left to
 * the user) and at most {@link MAX_CONTINUATIONS_PER_SESSION} times per
 * session. The note names tools and their argument shapes, never values.
 */
import type { CustomMessageEntryDraft, TurnEndEvent, TurnEndEventResult } from "@earendil-works/pi-coding-agent";
import type { TSchema } from "typebox";
import { describeExpectedShape } from "../core/issues.ts";
import { modelLeaksGrammar } from "../grammar/models.ts";
import { recoverGrammarLeaks } from "../grammar/recover.ts";
import type { MinimalAssistantMessage } from "../grammar/types.ts";
import type { RepairSettings } from "./types.ts";

export const MAX_CONTINUATIONS_PER_SESSION = 5;
/** `customType` of the hidden note appended at `turn_end`. */
export const CONTINUATION_MESSAGE_TYPE = "tool-repair-continuation";

export interface SilentStopDeps {
	settings(): RepairSettings;
	modelId(): string | undefined;
	activeTools(): readonly string[];
	toolSchemas(): ReadonlyMap<string, unknown>;
	/** Told of each continuation, for the value-free telemetry counter. */
	onContinue?(stop: { phantom: boolean; grammars: readonly string[] }): void;
}

/** Why the last assistant message ran nothing. */
interface SilentStop {
	phantom: boolean;
	/** Leak families whose markup was found outside quoted text and reasoning. */
	grammars: string[];
	/** Names of the complete calls written as text. */
	calls: string[];
}

/** The slice of pi's `turn_end` event the guard reads. */
export type TurnEndView = Pick<TurnEndEvent, "outcome" | "toolResults" | "entries">;

export class SilentStopGuard {
	private pending: SilentStop | undefined;
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
		if (!isAssistant(original) || !isAssistant(final) || hasToolCall(final)) return;
		const stop = final.stopReason;
		if (stop !== "toolUse" && stop !== "stop") return;
		const leak = this.leakIn(original);
		if (stop === "toolUse" || leak !== undefined) {
			this.pending = { phantom: stop === "toolUse", grammars: leak?.grammars ?? [], calls: leak?.calls ?? [] };
		}
	}

	/** `turn_end`: the continuation to request, or `undefined` to let the turn end as pi decides. */
	onTurnEnd(event: TurnEndView): TurnEndEventResult | undefined {
		const pending = this.pending;
		this.pending = undefined;
		const continuedBefore = this.continuedLastTurn;
		this.continuedLastTurn = false;
		if (pending === undefined || event.outcome !== "completed" || event.toolResults.length > 0) return undefined;
		if (continuedBefore || this.continuations >= MAX_CONTINUATIONS_PER_SESSION) return undefined;
		this.continuations++;
		this.continuedLastTurn = true;
		const draft: CustomMessageEntryDraft = {
			type: "custom_message",
			customType: CONTINUATION_MESSAGE_TYPE,
			content: this.noteFor(pending),
			display: false,
		};
		this.deps.onContinue?.({ phantom: pending.phantom, grammars: pending.grammars });
		return { entries: [...event.entries, draft], continue: true };
	}

	/** A new or ended session starts from nothing. */
	reset(): void {
		this.pending = undefined;
		this.continuedLastTurn = false;
		this.continuations = 0;
	}

	/** Leak markup in the provider's text, found the way strip mode would find it; only for leaking model families. */
	private leakIn(message: MinimalAssistantMessage): { grammars: string[]; calls: string[] } | undefined {
		if (this.deps.settings().grammarRecovery === "off" || !modelLeaksGrammar(this.deps.modelId())) return undefined;
		const probe = recoverGrammarLeaks(
			{ ...message, stopReason: "stop" },
			{ mode: "recover", knownTools: new Set(), requireKnownTool: false, unknownToolText: "strip" },
		);
		if (!probe.changed) return undefined;
		const calls = [...new Set(probe.recoveredCalls.map((call) => call.name))];
		// Debris without a complete call counts only when it was the whole reply: in prose it is too weak a sign.
		if (calls.length === 0 && textOf(probe.message).trim() !== "") return undefined;
		return { grammars: probe.strippedGrammars, calls };
	}

	private noteFor(stop: SilentStop): string {
		const lines: string[] = [];
		if (stop.phantom) {
			lines.push(
				"Your last reply ended with stop reason toolUse but held no tool call, so no tool ran and the turn would have ended here.",
			);
		}
		if (stop.grammars.length > 0) {
			lines.push(
				`Your last reply wrote tool-call markup (${stop.grammars.join(", ")}) as plain text instead of making a tool call, so it was not run.`,
			);
		}
		const active = this.deps.activeTools();
		const schemas = this.deps.toolSchemas();
		for (const name of stop.calls) {
			if (!active.includes(name)) {
				lines.push(`There is no tool named "${name}". The available tools are: ${active.join(", ") || "(none)"}.`);
				continue;
			}
			const schema = schemas.get(name);
			const shape = schema === undefined ? "" : `\n${name} takes:\n${describeExpectedShape(schema as TSchema)}`;
			lines.push(`To run ${name}, call it now with your native tool-calling mechanism.${shape}`);
		}
		if (stop.calls.length === 0) {
			lines.push(
				"If you meant to use a tool, make the call now with your native tool-calling mechanism, not as text; otherwise continue with your answer.",
			);
		}
		return lines.join("\n");
	}
}

function isAssistant(message: unknown): message is MinimalAssistantMessage {
	return (
		typeof message === "object" &&
		message !== null &&
		(message as { role?: unknown }).role === "assistant" &&
		Array.isArray((message as { content?: unknown }).content)
	);
}

function textOf(message: MinimalAssistantMessage): string {
	return message.content
		.map((part) =>
			(part as { type?: unknown; text?: unknown }).type === "text"
				? String((part as { text?: unknown }).text ?? "")
				: "",
		)
		.join("");
}

function hasToolCall(message: MinimalAssistantMessage): boolean {
	return message.content.some(
		(part) => typeof part === "object" && part !== null && (part as { type?: unknown }).type === "toolCall",
	);
}
