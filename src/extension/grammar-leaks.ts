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
 * the same argument repair as any call), otherwise `undefined`. Never throws:
 * any failure means "leave the message alone".
 *
 * Under the `strip` setting, and for unknown tools under
 * `unknownGrammarText: "strip"`, only sentinel-framed markup leaves the text
 * (the rule lives in `recoverGrammarLeaks`): bare JSON, `name(arg=…)` lines
 * and anything quoted are the assistant's words and stay.
 */
import { grammarRecoveryRuleId } from "../core/rule-ids.ts";
import type { RepairFeedback } from "../core/types.ts";
import { modelLeaksGrammar } from "../grammar/models.ts";
import { recoverGrammarLeaks } from "../grammar/recover.ts";
import type { MinimalAssistantMessage } from "../grammar/types.ts";
import { reportContainedError } from "./contained.ts";
import type { RepairDisplaySettings, TelemetryRecorder } from "./types.ts";

export interface GrammarLeakHandlerDeps {
	settings(): RepairDisplaySettings;
	modelId(): string | undefined;
	/** pi's active tool names; may throw or be missing on an old host (then nothing is allowed). */
	activeTools(): string[];
	/** Parameter schemas by tool name, for typing recovered values. */
	toolSchemas(): ReadonlyMap<string, unknown>;
	telemetry: TelemetryRecorder;
	/** Called once per promoted call, before the message is returned. */
	onPromoted(callId: string, toolName: string, feedback: RepairFeedback): void;
	/** Clock for promoted call IDs (tests); default `Date.now`. */
	now?: () => number;
}

export type GrammarLeakHandler = (message: unknown) => { message: MinimalAssistantMessage } | undefined;

/** The rule ID recorded for a call promoted from `grammar`. */
export function grammarRecoveryRule(grammar: string): string {
	return grammarRecoveryRuleId(grammar);
}

/** The note the model sees on the result of a promoted call. */
export function grammarRecoveryNote(grammar: string, name: string): string {
	return `Your ${name} call arrived as plain text written in the ${grammar} tool-call grammar, not as a tool call; it was converted into a real ${name} call and run. In future turns use your native tool-calling mechanism instead of writing tool-call markup into the reply.`;
}

function knownToolsFor(settings: RepairDisplaySettings, deps: GrammarLeakHandlerDeps): Set<string> {
	const allowed = Array.isArray(settings.grammarAllowedTools) ? settings.grammarAllowedTools : [];
	if (allowed.length > 0) return new Set(allowed);
	try {
		const active = deps.activeTools();
		return new Set(Array.isArray(active) ? active.filter((n) => typeof n === "string") : []);
	} catch {
		return new Set();
	}
}

function schemasFor(deps: GrammarLeakHandlerDeps): ReadonlyMap<string, unknown> | undefined {
	try {
		return deps.toolSchemas();
	} catch {
		return undefined;
	}
}

function isAssistantMessage(message: unknown): message is MinimalAssistantMessage {
	return (
		message !== null &&
		typeof message === "object" &&
		(message as { role?: unknown }).role === "assistant" &&
		Array.isArray((message as { content?: unknown }).content)
	);
}

/** Telemetry must never break the turn. */
function quietly(record: () => void): void {
	try {
		record();
	} catch {
		// a failing recorder is not the message's problem
	}
}

export function createGrammarLeakHandler(deps: GrammarLeakHandlerDeps): GrammarLeakHandler {
	return (message) => {
		try {
			const settings = deps.settings();
			const mode = settings.grammarRecovery;
			if (mode === "off") return undefined;
			if (!isAssistantMessage(message)) return undefined;
			const model = deps.modelId();
			if (!modelLeaksGrammar(model)) return undefined;
			const profile = settings.policyProfile;
			const options: Parameters<typeof recoverGrammarLeaks>[1] = {
				mode,
				knownTools: knownToolsFor(settings, deps),
				requireKnownTool: true,
				unknownToolText: settings.unknownGrammarText,
			};
			const schemas = schemasFor(deps);
			if (schemas) options.toolSchemas = schemas;
			if (deps.now) options.now = deps.now;
			options.onContainedError = (label, error) => reportContainedError(label, error, deps.telemetry);
			const result = recoverGrammarLeaks(message, options);
			if (!result.changed) {
				if (result.observed) {
					quietly(() => deps.telemetry.grammarObserved({ model, grammars: result.detectedGrammars, profile }));
				}
				return undefined;
			}
			if (result.promoted) {
				result.recoveredCalls.forEach((call, i) => {
					const callId = result.promotedCallIds[i];
					if (callId === undefined) return;
					const feedback: RepairFeedback = {
						rules: [grammarRecoveryRule(call.grammar)],
						notes: [grammarRecoveryNote(call.grammar, call.name)],
						stages: ["grammar"],
						profile,
						outcome: "recovered",
					};
					if (model !== undefined) feedback.model = model;
					quietly(() => deps.onPromoted(callId, call.name, feedback));
					quietly(() => deps.telemetry.grammarRecovered({ tool: call.name, model, grammar: call.grammar, profile }));
				});
			} else {
				quietly(() => deps.telemetry.grammarStripped({ model, grammars: result.strippedGrammars, profile }));
			}
			return { message: result.message };
		} catch {
			return undefined;
		}
	};
}
