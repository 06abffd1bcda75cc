/**
 * Rescue of malformed argument JSON at `message_end`, for every tool the
 * layer repairs (its own built-in overrides and, schema rules only, every
 * other active tool).
 *
 * Since pi 1.3 a finished call whose argument text is not a JSON object (a
 * root string, a JSON-stringified object, a singleton array, a truncated
 * object) arrives with `toolCall.argumentsError` set and `arguments: {}`, and
 * validation fails whatever `prepareArguments` returns. Before the loop runs
 * the calls, this step takes the raw text pi recorded in `argumentsError`,
 * runs the tool's own pipeline on it (envelope recovery included, under the
 * same policy and model gates) and, when the outcome is `repaired`, writes the
 * arguments back and clears the error. Nothing is rescued from a message that
 * stopped on `length`, `error` or `aborted`: such calls are never executed.
 * The pipeline never completes a string that was cut off, so a truncated
 * command stays refused. A message whose output reached the model's output
 * limit counts as cut whatever its stop reason says (providers label such
 * messages `toolUse` too): no truncated call of it is completed, and the error
 * of every call left malformed says the call was cut at the output limit.
 */

import { parseJsonWithRepair, parseToolCallArguments } from "@earendil-works/pi-ai";
import type { RepairPipelineResult, RepairPolicyOverrides } from "../../core/types.ts";
import { isToolCallBlock, type ToolCallBlock } from "./tool-call-block.ts";

/** The separator pi-ai puts between the parse error and the model's raw text. */
export const RECEIVED_ARGUMENTS_MARKER = "\n\nReceived arguments:\n";

/** Stop reasons whose calls the loop refuses anyway; rescuing them would only mislead. */
const NO_RESCUE_STOP_REASONS = new Set(["length", "error", "aborted"]);

/**
 * The raw argument text pi recorded in `argumentsError`, or `undefined` when
 * the text is not in the shape this version knows. The candidate is accepted
 * only if pi-ai's own parser, fed with it, reproduces the exact error, so a
 * marker inside the model's text can never shift the cut.
 */
export function rawArgumentsText(argumentsError: string): string | undefined {
	let from = argumentsError.indexOf(RECEIVED_ARGUMENTS_MARKER);
	while (from >= 0) {
		const candidate = argumentsError.slice(from + RECEIVED_ARGUMENTS_MARKER.length);
		if (parseToolCallArguments(candidate).argumentsError === argumentsError) return candidate;
		from = argumentsError.indexOf(RECEIVED_ARGUMENTS_MARKER, from + 1);
	}
	return undefined;
}

/**
 * The pipeline's input for raw text: the JSON value when the text parses (a
 * string or an array, since an object would not have failed), else the text
 * itself for envelope recovery to work on.
 */
export function rescueInput(rawText: string): unknown {
	try {
		return parseJsonWithRepair(rawText);
	} catch {
		// Not JSON even after pi-ai's repair: a parse outcome, not a failure; the text is the input.
		return rawText;
	}
}

/** The policy of a call cut at the output limit: never completed, whatever the profile allows. */
const CUT_AT_OUTPUT_LIMIT: RepairPolicyOverrides = Object.freeze({ allowTruncatedEnvelopeCompletion: false });

export interface RescuedCall {
	toolCallId: string;
	toolName: string;
	result: RepairPipelineResult;
}

export interface RescueDeps {
	/** True for the tools this extension wraps. */
	isWrapped(toolName: string): boolean;
	/** Runs that tool's pipeline; `undefined` when it failed (the failure is the caller's to contain and report). */
	repair(toolName: string, input: unknown, overrides?: RepairPolicyOverrides): RepairPipelineResult | undefined;
	/** Called for every malformed call to a wrapped tool that was tried, repaired or not; must not decide the rescue. */
	onAttempt?(call: RescuedCall): void;
	/** The `arguments` object of a malformed call left as pi delivered it. */
	onUnrescued?(args: object): void;
	/** The current model: its `maxTokens` is the output limit of the messages it wrote. */
	model?: { id: string; maxTokens: number } | undefined;
}

/** A call pi could not parse: its raw text is in `argumentsError`. */
type MalformedCall = ToolCallBlock & { argumentsError: string };

export function isMalformedCall(block: unknown): block is MalformedCall {
	return isToolCallBlock(block) && typeof block.argumentsError === "string";
}

interface AssistantLike {
	role?: unknown;
	content?: unknown;
	stopReason?: unknown;
	model?: unknown;
	usage?: unknown;
}

/** True when the message's output tokens reached the output limit of the model that wrote it. */
export function reachedOutputLimit(message: AssistantLike, model: RescueDeps["model"]): boolean {
	if (model === undefined || message.model !== model.id || !(model.maxTokens > 0)) return false;
	const output = (message.usage as { output?: unknown } | undefined)?.output;
	return typeof output === "number" && output >= model.maxTokens;
}

function cutAtLimitError(argumentsError: string, maxTokens: number): string {
	return `The call was cut off at the model's output limit (${maxTokens} tokens), so it was not run. Send it again in a shorter form: split a large write or edit into several calls.\n\n${argumentsError}`;
}

/** True for an assistant message whose calls the loop will run; only those are worth repairing. */
export function callsMayRun<M extends AssistantLike>(message: M): message is M & { content: unknown[] } {
	if (message.role !== "assistant" || !Array.isArray(message.content)) return false;
	return !(typeof message.stopReason === "string" && NO_RESCUE_STOP_REASONS.has(message.stopReason));
}

/**
 * A replacement message with every rescuable call repaired, or `undefined`
 * when nothing changed. The input message is never mutated; untouched blocks
 * keep their identity.
 */
export function rescueMalformedArguments<M extends AssistantLike>(message: M, deps: RescueDeps): M | undefined {
	if (!callsMayRun(message)) return undefined;
	const cut = reachedOutputLimit(message, deps.model);
	let content: unknown[] | undefined;
	message.content.forEach((block: unknown, index: number) => {
		if (!isToolCallBlock(block) || !deps.isWrapped(block.name)) return;
		const rescued = rescueCall(block, deps, cut);
		if (rescued === undefined) return;
		content ??= [...message.content];
		content[index] = rescued;
	});
	return content === undefined ? undefined : { ...message, content };
}

/**
 * The replacement of one malformed call of a wrapped tool (rescued, or its
 * error extended when the message was cut at the output limit), or
 * `undefined` to leave the block as it is (a well-formed call included). A
 * call left malformed gets the refusal mark on its `arguments` object.
 */
export function rescueCall(block: ToolCallBlock, deps: RescueDeps, cut: boolean): ToolCallBlock | undefined {
	if (!isMalformedCall(block)) return undefined;
	const rescued = rescueOne(block, deps, cut);
	if (rescued !== undefined) return rescued;
	if (typeof block.arguments === "object" && block.arguments !== null) deps.onUnrescued?.(block.arguments);
	if (!cut) return undefined;
	return { ...block, argumentsError: cutAtLimitError(block.argumentsError, deps.model!.maxTokens) };
}

function rescueOne(block: MalformedCall, deps: RescueDeps, cut: boolean): ToolCallBlock | undefined {
	const rawText = rawArgumentsText(block.argumentsError);
	if (rawText === undefined) return undefined;
	const input = rescueInput(rawText);
	// A completion guesses where the text ended; at the output limit the text did not end, it was cut.
	const result = deps.repair(block.name, input, cut ? CUT_AT_OUTPUT_LIMIT : undefined);
	if (result === undefined) return undefined;
	deps.onAttempt?.({ toolCallId: block.id, toolName: block.name, result });
	if (result.outcome !== "repaired") return undefined;
	const { argumentsError: _cleared, ...rest } = block;
	return { ...rest, arguments: result.args };
}
