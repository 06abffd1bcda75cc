/**
 * The `message_end` pass as an ordered table of stages. Each row names its
 * step, says for which messages it runs and returns the changed message (or
 * `undefined` for "unchanged"); the next row sees the result. The order is
 * data: it is read here, top to bottom, and pinned by one unit test. A new
 * message-level repair is one row.
 *
 * Each stage runs inside the extension's one `contained` boundary: a stage
 * that fails is reported and leaves the message as the stage before it left
 * it, and the rows after it still run.
 */
import type { Contained } from "../host/contained.ts";

/** The message of a `message_end` event, as far as the stages read it. */
export interface PassMessage {
	role?: unknown;
	content?: unknown;
	stopReason?: unknown;
	isError?: unknown;
}

/** What every stage of one pass may read besides the current message. */
export interface PassContext {
	/** The message as pi delivered it, before any stage. */
	readonly original: PassMessage;
}

export interface MessageEndStage {
	/** Names the stage in contained-error reports (`message-end:<label>`). */
	label: string;
	/** The role of the messages the stage is for: read before anything else, so other messages cost one comparison. */
	role: "assistant" | "toolResult";
	/** Whether the stage runs for a message of its role (the message's state, the live settings). */
	enabled(message: PassMessage): boolean;
	/** The changed message, or `undefined` when the stage changed nothing. */
	run(message: PassMessage, pass: PassContext): PassMessage | undefined;
	/**
	 * True for a stage that leaves a settled message as it is, so it is
	 * skipped for one; a test of the message for a stage that leaves some
	 * settled messages as they are. A test may read the message, so it is
	 * asked inside the boundary, and one that throws counts as "not idle".
	 */
	idleWhenSettled?: true | ((message: PassMessage) => boolean);
}

/**
 * True when some stage runs for `message`. Most messages pi finishes have no
 * row (every tool result that is not an error): the handler asks this first
 * and skips the pass's setup for them.
 */
export function anyStageFor(stages: readonly MessageEndStage[], message: PassMessage): boolean {
	for (const stage of stages) if (runsFor(stage, message)) return true;
	return false;
}

/**
 * True when a settled `message` runs no stage: each stage of its role is
 * idle for it or not enabled. Most replies are such a message (every call
 * valid as sent, nothing that may be a leak, and a call, so no silent stop),
 * and the handler then skips the pass. Asks the stages' idle tests, which
 * may read the message: call it inside the boundary.
 */
export function noStageWhenSettled(stages: readonly MessageEndStage[], message: PassMessage): boolean {
	for (const stage of stages) {
		if (stage.role !== message.role || idleForSettled(stage, message)) continue;
		if (stage.enabled(message)) return false;
	}
	return true;
}

/** Whether `stage` leaves the settled `message` as it is (its idle test may read the message, and throw). */
function idleForSettled(stage: MessageEndStage, message: PassMessage): boolean {
	const idle = stage.idleWhenSettled;
	return idle === true || idle?.(message) === true;
}

function runsFor(stage: MessageEndStage, message: PassMessage): boolean {
	return message.role === stage.role && stage.enabled(message);
}

/**
 * Runs `stages` in order over `message`; returns the final message, or
 * `undefined` when no stage changed it. `settled` answers whether the
 * message is one every stage marked `idleWhenSettled` leaves as it is; it is
 * asked at most once, at the first such stage for the message's role, and
 * those stages are then skipped (a throw counts as "not settled", and every
 * stage runs).
 */
export function runMessageEndStages(
	stages: readonly MessageEndStage[],
	message: PassMessage,
	contained: Contained,
	settled?: (message: PassMessage) => boolean,
): PassMessage | undefined {
	let current = message;
	let pass: PassContext | undefined;
	let skipIdle: boolean | undefined;
	for (const stage of stages) {
		// Whether a row runs reads only the role and the live settings; the boundary is for its work, on every message pi finishes.
		if (stage.role !== current.role) continue;
		// A settled message skips an idle row before the row is asked anything.
		if (stage.idleWhenSettled !== undefined && settled !== undefined) {
			skipIdle ??= contained("message-end:settled", () => settled(current)) === true;
			// An idle test that throws is reported and counts as "not idle".
			if (skipIdle && contained(`message-end:${stage.label}`, () => idleForSettled(stage, current)) === true) continue;
		}
		if (!stage.enabled(current)) continue;
		pass ??= { original: message };
		const context = pass;
		const next = contained(`message-end:${stage.label}`, () => stage.run(current, context));
		if (next !== undefined) current = next;
	}
	return current === message ? undefined : current;
}

/** What the layer's own stages are built from (all read at call time, so settings changes apply at once). */
export interface LayerStageDeps {
	/** `settings.repairToolNames`. */
	repairToolNames(): boolean;
	/** A failed call's result, with the active tools listed when its tool was unknown. */
	listTools(message: PassMessage): PassMessage | undefined;
	/** Calls to unknown tools renamed to the one active tool they clearly meant; their notes bound. */
	renameTools(message: PassMessage): PassMessage | undefined;
	/** Leaked tool-call grammar in the text: promoted, stripped or observed. */
	grammarLeaks(message: PassMessage): PassMessage | undefined;
	/** Every call judged once: malformed text rescued, arguments repaired or refused, notes bound by ID. */
	judgeCalls(message: PassMessage): PassMessage | undefined;
	/** Whether {@link noteSilentStop} has anything to do for the message: a reply with a call is no silent stop. */
	mayStopSilently(message: PassMessage): boolean;
	/** A reply that ran nothing although the model meant to act, noted for `turn_end`. */
	noteSilentStop(original: PassMessage, final: PassMessage): void;
}

const always = () => true;

/**
 * The layer's stages, in order: names first, so the calls are judged against
 * the tool the model meant; grammar leaks before the calls, so a promoted
 * call is judged like any other; the silent-stop check last, on the final
 * message. Names, leaks and calls are idle for a settled message (every call
 * valid as sent to an active tool, no markup in its text: `settledMessage`),
 * which is most replies; the silent-stop check runs for every reply but a
 * settled one that calls a tool.
 */
export function layerStages(deps: LayerStageDeps): MessageEndStage[] {
	return [
		{
			label: "tool-result-tools",
			role: "toolResult",
			// Only pi's refusal of an unknown tool is an error result; the rest never read pi's tool list.
			enabled: (message) => message.isError === true && deps.repairToolNames(),
			run: (message) => deps.listTools(message),
		},
		{
			label: "tool-names",
			role: "assistant",
			enabled: () => deps.repairToolNames(),
			run: (message) => deps.renameTools(message),
			idleWhenSettled: true,
		},
		{
			label: "grammar",
			role: "assistant",
			enabled: always,
			run: (message) => deps.grammarLeaks(message),
			idleWhenSettled: true,
		},
		{
			label: "tool-calls",
			role: "assistant",
			enabled: always,
			run: (message) => deps.judgeCalls(message),
			idleWhenSettled: true,
		},
		{
			label: "silent-stops",
			role: "assistant",
			enabled: always,
			run: (message, pass) => {
				deps.noteSilentStop(pass.original, message);
				return undefined;
			},
			// A settled reply is its own final message, and one that calls a tool is no silent stop.
			idleWhenSettled: (message) => !deps.mayStopSilently(message),
		},
	];
}
