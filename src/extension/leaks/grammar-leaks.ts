/**
 * The extension's `message_end` grammar-leak handler, as a factory over
 * injected dependencies so it is pure logic and
 * testable without pi: the extension passes its live settings, the current
 * model id, the active tool names and schemas, its telemetry recorder and an
 * `onPromoted` hook that ties each promoted call to the lifecycle, the
 * indicator and the session entry.
 *
 * Returns `{ message }` when the message changed (pi writes it over the
 * loop's message, so promoted `toolCall` parts run this turn and go through
 * the same argument repair as any call), otherwise `undefined`. It does not
 * catch: the extension calls it inside its one `contained` boundary, so a
 * failure leaves the message alone and is reported there.
 *
 * A native call with empty arguments whose arguments leaked into the text
 * (a split call, cline#13348) is merged first (`split-call.ts`); the merged
 * message is returned as it is, its call keeping the native ID.
 *
 * The bookkeeping hooks (`onPromoted`, telemetry) never decide a promotion:
 * one that throws is contained and reported, and the call still runs, as on
 * the malformed-arguments rescue path.
 *
 * Leaked text that is stripped or only observed (not promoted) is handed to
 * `onLeakText`, so the user sees it counted in the footer and the
 * diagnostics log; a promoted call is seen through `onPromoted` instead.
 *
 * Under the `strip` setting, and for unknown tools under
 * `unknownGrammarText: "strip"`, only sentinel-framed markup leaves the text
 * (the rule lives in `recoverGrammarLeaks`): bare JSON, `name(arg=…)` lines
 * and anything quoted are the assistant's words and stay.
 */
import { grammarRecoveryRuleId, RULE } from "../../core/rule-ids.ts";
import type { RepairFeedback } from "../../core/types.ts";
import { createEchoIndex, NO_ECHOES } from "../../grammar/echo.ts";
import { type LeakModelPatterns, leakGrammarsFor } from "../../grammar/models.ts";
import { mayHoldLeak, recoverGrammarLeaks } from "../../grammar/recover.ts";
import { mergeSplitCall } from "../../grammar/split-call.ts";
import type { MinimalAssistantMessage } from "../../grammar/types.ts";
import { createContained, reportContainedError } from "../host/contained.ts";
import type { LeakTextEvent, OwnerKind, RepairSettings, TelemetryRecorder } from "../host/types.ts";

export interface GrammarLeakHandlerDeps {
	settings(): RepairSettings;
	modelId(): string | undefined;
	/** pi's active tool names (with no allow-list set, a leak may only promote to one of these). */
	activeTools(): readonly string[];
	/** Parameter schemas by tool name, for typing recovered values. */
	toolSchemas(): ReadonlyMap<string, unknown>;
	/** The `leakModels` setting: model ids whose ambiguous grammars are looked for too. */
	leakModels?(): LeakModelPatterns;
	/** Texts of the current run's tool results and the user's message: a leak repeating one is an echo, never a call. */
	echoSources?(): readonly string[];
	/** pi's own built-ins the user enabled: the only tools collapsed debris may become. Default: pi's built-in names. */
	builtinTools?(): readonly string[];
	telemetry: TelemetryRecorder;
	/** The owner kind of a tool a leak was promoted to, so stats count the call with its owner. */
	ownerOf?(toolName: string): OwnerKind | undefined;
	/** Called once per promoted or merged call, before the message is returned; a throw is contained. */
	onPromoted(callId: string, toolName: string, feedback: RepairFeedback): void;
	/** Called once per message whose leaked text was stripped or observed instead of promoted. */
	onLeakText?(leak: LeakTextEvent): void;
	/** Clock for promoted call IDs (tests); default `Date.now`. */
	now?: () => number;
}

/** A call the handler made run (promoted or merged), with what its bookkeeping records. */
interface PromotedCall {
	callId: string;
	name: string;
	grammar: string;
	feedback: RepairFeedback;
	split?: boolean;
}

export type GrammarLeakHandler = ((message: unknown) => { message: MinimalAssistantMessage } | undefined) & {
	/** Only the split-call merge (cline#13348), for the caller to run before the empty call meets argument repair. */
	splitCall(message: unknown): { message: MinimalAssistantMessage } | undefined;
};

/** The note the model sees on the result of a call merged from its native half and its leaked arguments. */
export function splitCallNote(grammar: string, name: string): string {
	return `Your ${name} call arrived with empty arguments, and its arguments were written as plain text in the ${grammar} tool-call grammar; the two were merged into one ${name} call and run. In future turns put the arguments in the tool call itself.`;
}

/** The note the model sees on the result of a promoted call. */
export function grammarRecoveryNote(grammar: string, name: string): string {
	return `Your ${name} call arrived as plain text written in the ${grammar} tool-call grammar, not as a tool call; it was converted into a real ${name} call and run. In future turns use your native tool-calling mechanism instead of writing tool-call markup into the reply.`;
}

function knownToolsFor(settings: RepairSettings, deps: GrammarLeakHandlerDeps): Set<string> {
	const allowed = Array.isArray(settings.grammarAllowedTools) ? settings.grammarAllowedTools : [];
	return new Set(allowed.length > 0 ? allowed : deps.activeTools());
}

function isAssistantMessage(message: unknown): message is MinimalAssistantMessage {
	return (
		message !== null &&
		typeof message === "object" &&
		(message as { role?: unknown }).role === "assistant" &&
		Array.isArray((message as { content?: unknown }).content)
	);
}

export function createGrammarLeakHandler(deps: GrammarLeakHandlerDeps): GrammarLeakHandler {
	// Bookkeeping never cancels a call that is already decided: a throwing hook is reported, not raised.
	const contained = createContained(() => deps.telemetry);
	const bookkeep = (model: string | undefined, profile: string, call: PromotedCall) => {
		contained("grammar:on-promoted", () => deps.onPromoted(call.callId, call.name, call.feedback));
		const owner = contained("grammar:owner", () => deps.ownerOf?.(call.name));
		contained("grammar:telemetry", () =>
			deps.telemetry.grammarRecovered({
				tool: call.name,
				model,
				grammar: call.grammar,
				profile,
				...(owner === undefined ? {} : { owner }),
				...(call.split === true ? { split: true } : {}),
			}),
		);
	};
	/** The split-call merge alone, so the caller can run it before argument repair sees the empty call. */
	const splitCall = (message: unknown): { message: MinimalAssistantMessage } | undefined => {
		const settings = deps.settings();
		if (settings.grammarRecovery !== "recover" || !isAssistantMessage(message)) return undefined;
		const model = deps.modelId();
		const merged = contained("grammar:split-call", () =>
			mergeSplitCall(message, {
				grammars: leakGrammarsFor(model, deps.leakModels?.()),
				knownTools: knownToolsFor(settings, deps),
				toolSchemas: deps.toolSchemas(),
				echoes: deps.echoSources ? createEchoIndex(deps.echoSources()) : NO_ECHOES,
			}),
		);
		if (merged === undefined) return undefined;
		const { callId, name, grammar } = merged;
		const profile = settings.policyProfile;
		const feedback = recoveredFeedback(RULE.mergeSplitCall, splitCallNote(grammar, name), profile, model);
		bookkeep(model, profile, { callId, name, grammar, feedback, split: true });
		return { message: merged.message };
	};
	const handler = (message: unknown): { message: MinimalAssistantMessage } | undefined => {
		const settings = deps.settings();
		const mode = settings.grammarRecovery;
		if (mode === "off") return undefined;
		if (!isAssistantMessage(message)) return undefined;
		// Most replies are calls alone or plain prose: with no markup in any text or reasoning there is nothing to scan.
		if (!message.content.some(mayHoldLeak)) return undefined;
		const merged = splitCall(message);
		if (merged !== undefined) return merged;
		const model = deps.modelId();
		const profile = settings.policyProfile;
		const options: Parameters<typeof recoverGrammarLeaks>[1] = {
			mode,
			grammars: leakGrammarsFor(model, deps.leakModels?.()),
			knownTools: knownToolsFor(settings, deps),
			requireKnownTool: true,
			unknownToolText: settings.unknownGrammarText,
			toolSchemas: deps.toolSchemas(),
		};
		if (deps.echoSources) options.echoSources = deps.echoSources();
		if (deps.builtinTools) options.debrisTools = new Set(deps.builtinTools());
		if (deps.now) options.now = deps.now;
		options.onContainedError = (label, error) => reportContainedError(label, error, deps.telemetry);
		const result = recoverGrammarLeaks(message, options);
		if (!result.changed) {
			if (result.observed) {
				deps.telemetry.grammarObserved({ model, grammars: result.detectedGrammars, profile });
				deps.onLeakText?.({
					outcome: "observed",
					grammars: result.detectedGrammars,
					count: result.detectedRanges,
					mode,
				});
			}
			return undefined;
		}
		if (result.promoted) {
			result.recoveredCalls.forEach((call, i) => {
				const callId = result.promotedCallIds[i];
				if (callId === undefined) return;
				const feedback = recoveredFeedback(
					grammarRecoveryRuleId(call.grammar),
					grammarRecoveryNote(call.grammar, call.name),
					profile,
					model,
				);
				bookkeep(model, profile, { callId, name: call.name, grammar: call.grammar, feedback });
			});
		} else {
			deps.telemetry.grammarStripped({ model, grammars: result.strippedGrammars, profile });
			deps.onLeakText?.({ outcome: "stripped", grammars: result.strippedGrammars, count: result.strippedRanges, mode });
		}
		return { message: result.message };
	};
	return Object.assign(handler, { splitCall });
}

/** The feedback of a call the handler made run. */
function recoveredFeedback(rule: string, note: string, profile: string, model: string | undefined): RepairFeedback {
	return {
		rules: [rule],
		notes: [note],
		stages: ["grammar"],
		profile,
		outcome: "recovered",
		...(model === undefined ? {} : { model }),
	};
}
