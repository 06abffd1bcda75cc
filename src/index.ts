/**
 * pi-repair-layer - repairs provably safe mistakes in tool-call arguments
 *
 * Models get tool calls subtly wrong: `file_path` instead of `path`, an
 * `edits` array sent as a JSON string, `null` for an optional field, a path
 * wrapped in a markdown link, a whole argument object sent as a string or cut
 * off at the end. At `message_end`, before pi renders or runs anything, every
 * call of the finished message goes through a schema-guided repair pipeline:
 * calls of pi's eight built-in tools (read, bash, edit, write, grep, find,
 * ls, powershell) with the built-in tables, every other active tool
 * (extension and MCP tools, a built-in name another extension holds) against
 * its own schema, with schema rules only.
 *
 * - Valid input goes through untouched (the same object), silently.
 * - Repaired input runs, and the model sees a `<repair_note>` on that call's
 *   tool result naming what was fixed (rule IDs and field names, never values).
 * - Unrepairable input fails closed with a retry message the model can act on
 *   (PI_TOOL_REPAIR_PASSTHROUGH=1 hands it to pi's own validation instead).
 * - Argument text that is not a JSON object at all is rescued at
 *   `message_end`, before pi would reject it.
 * - PI_TOOL_REPAIR_LOG=1 prints one value-free diagnostics line per repair to
 *   stderr; `/repair-settings` and `/repair-stats` control and summarize it.
 *
 * How it works: `session_start` tracks the model (for model-family gates) and
 * surveys who owns each built-in name; `resources_discover` (after every
 * extension's `session_start`) and `before_agent_start` survey again;
 * `message_end` leaves a reply whose every call passes as sent against the
 * tools as last read this run as pi finished it, reading nothing, and runs
 * the stage table (`extension/repair/message-end.ts`) for any other: the
 * tool-name repair (when on), the grammar-leak handler, the judgement of every
 * call against its active tool (the malformed-JSON rescue included), and the
 * silent-stop check; `tool_call` blocks only a refusal decided there, and
 * `tool_result` attaches the notes bound by call ID, each listened to only
 * while a refusal or note waits; `turn_start` drops notes of calls that never
 * ran; `turn_end` is listened to only for a turn that
 * stopped silently, to continue it once; `context` rewrites saved tool names a
 * strict provider rejects, listened to only once the session holds one; `session_shutdown` forgets everything in memory. The result renderer adds a muted
 * `🔨 ✓ input repaired (...)` line and the footer counts repairs this session,
 * and the leaked calls whose text was stripped or only observed instead of run.
 *
 * Usage:
 *   pi -e ./path/to/pi-repair-layer        # a checkout (auto-discovery entry)
 *   pi install npm:pi-repair-layer          # the published package
 */
import type {
	ContextEvent,
	ContextEventResult,
	ExtensionAPI,
	ExtensionContext,
	ToolCallEvent,
	ToolCallEventResult,
	ToolResultEvent,
	ToolResultEventResult,
	TurnEndEvent,
	TurnEndEventResult,
	TurnStartEvent,
} from "@earendil-works/pi-coding-agent";
import { registerRepairCommands, showSettingsWarning } from "./extension/commands/commands.ts";
import { indicatorRenderers, updateFooterStatus } from "./extension/commands/indicator.ts";
import {
	aliasesFor,
	defaultCompositionSettings,
	loadCompositionSettings,
} from "./extension/files/composition-settings.ts";
import {
	defaultRepairSettings,
	loadRepairSettingsWithWarning,
	trySaveRepairSettings,
	unknownAllowedTools,
} from "./extension/files/settings.ts";
import { createTelemetryRecorder } from "./extension/files/telemetry.ts";
import { createContained, reportContainedError } from "./extension/host/contained.ts";
import { logLeakText } from "./extension/host/diagnostics.ts";
import { OnDemandHandler } from "./extension/host/on-demand-handler.ts";
import type { RepairSettings, SettingsHost, TelemetryRecorder } from "./extension/host/types.ts";
import { SilentStopGuard } from "./extension/leaks/continuation.ts";
import { echoTexts } from "./extension/leaks/echo-sources.ts";
import { createGrammarLeakHandler } from "./extension/leaks/grammar-leaks.ts";
import { savedMessages, UnsafeNames, withProviderSafeToolNames } from "./extension/leaks/history-names.ts";
import { loadLeakModels } from "./extension/leaks/leak-models.ts";
import { BuiltinRepairers } from "./extension/repair/builtin-repairers.ts";
import { CodemodeOwnership, codemodeLine, decideNestedCall } from "./extension/repair/codemode-repair.ts";
import { RepeatFailureTracker } from "./extension/repair/escalation.ts";
import { RepairFeedbackHub } from "./extension/repair/feedback.ts";
import {
	anyStageFor,
	layerStages,
	noStageWhenSettled,
	type PassMessage,
	runMessageEndStages,
} from "./extension/repair/message-end.ts";
import {
	CallTargets,
	JudgedArgs,
	judgeToolCalls,
	PendingRefusals,
	settledMessage,
} from "./extension/repair/message-repair.ts";
import { ModelTracker } from "./extension/repair/model-tracker.ts";
import type { RepairDeps } from "./extension/repair/prepare.ts";
import { renameFeedback, renameLeakedToolNames, withAvailableTools } from "./extension/repair/tool-names.ts";
import {
	ForeignOwners,
	foreignBuiltinOwners,
	foreignOwnerLine,
	isBuiltinToolName,
} from "./extension/repair/tool-owners.ts";
import { ToolSurvey } from "./extension/repair/tool-survey.ts";
import { mayHoldLeak } from "./grammar/recover.ts";

export default function toolRepairExtension(pi: ExtensionAPI): void {
	// Any failure inside the extension is reported and leaves pi to carry on as it would alone.
	let telemetry: TelemetryRecorder | undefined;
	const contained = createContained(() => telemetry);
	const loaded = contained("settings-load", () => loadRepairSettingsWithWarning());
	// One live object: every handler reads it at call time, so menu changes apply at once.
	const settings = loaded?.settings ?? defaultRepairSettings();
	const composed = contained("composition-load", () => loadCompositionSettings());
	const composition = composed?.settings ?? defaultCompositionSettings();
	const leakModels = contained("leak-models-load", () => loadLeakModels());
	let settingsWarnings = [loaded?.warning, composed?.warning, leakModels?.warning];

	// Warnings raised between events (a telemetry file refused) go to the UI of the latest session, else stderr.
	let warningContext: ExtensionContext | undefined;
	/** The session's cwd: pi's built-in definitions (and so the built-in repairers) are made for it. */
	let cwd = process.cwd();
	const model = new ModelTracker();
	// pi builds a context and awaits every tool_result handler around each call: listen only while a note waits.
	const resultNotes = new OnDemandHandler<ToolResultEvent, ToolResultEventResult | undefined>(
		(handler) => pi.on("tool_result", handler),
		(event) =>
			contained("tool-result", () => {
				const content = feedback.onToolResult(event.toolCallId, event.parentToolCallId, event.content);
				return content === undefined ? undefined : { content };
			}),
		() => feedback.holding,
	);
	// A host that cannot persist an entry still shows and notes the repair.
	const feedback = new RepairFeedbackHub({
		appendEntry: (type, data) => contained(`append-entry:${type}`, () => pi.appendEntry(type, data)),
		onHold: () => {
			resultNotes.want();
			turnStarts.want();
		},
	});
	const deps: RepairDeps = {
		settings: () => settings,
		model,
		telemetry: createTelemetryRecorder({
			warn: (text) => contained("telemetry-warning", () => showSettingsWarning(warningContext, text)),
		}),
		feedback,
		failures: new RepeatFailureTracker(),
		contained,
	};
	telemetry = deps.telemetry;
	const builtins = new BuiltinRepairers(deps);
	// Refreshed as each event starts: the stages of one message share one read of pi's tool lists.
	const survey = new ToolSurvey(pi);
	const foreignOwners = new ForeignOwners();
	// Likewise tool_call: listened to only while a refusal decided at message_end waits for its call.
	const refusalCheck = new OnDemandHandler<ToolCallEvent, ToolCallEventResult | undefined>(
		(handler) => pi.on("tool_call", handler),
		// Never throws: a throw here would fail the call. Only a refusal decided at message_end blocks.
		(event) => {
			const reason = contained("tool-call", () => refusals.verdict(event.toolCallId, event.input));
			return reason === undefined ? undefined : { block: true, reason };
		},
		() => refusals.holding,
	);
	const refusals = new PendingRefusals(() => {
		refusalCheck.want();
		turnStarts.want();
	});
	const judged = new JudgedArgs();
	const targets = new CallTargets(
		{
			allTools: () => survey.allTools(),
			activeTools: () => survey.activeTools(),
			builtinRepairer: (name) => builtins.repairer(name, cwd),
			piShimFor: (name, schema) => builtins.piShimFor(name, schema, cwd),
			configuredAliases: (name) => aliasesFor(composition, name),
		},
		deps,
	);
	const codemode = composition.codemodeRepair
		? contained(
				"codemode-build",
				() =>
					new CodemodeOwnership(
						pi,
						(parentId, toolName, args, shim) =>
							// A failure inside the layer leaves the nested call exactly as pi alone would run it.
							contained("codemode:nested-call", () => {
								survey.refresh();
								return decideNestedCall(parentId, toolName, args, targets.forMessage("all")(toolName), feedback, shim);
							}) ?? { args },
					),
			)
		: undefined;
	if (composition.codemodeRepair && codemode === undefined) {
		settingsWarnings.push("Tool repair: codemodeRepair is on, but pi's codemode tool could not be re-registered.");
	}
	/** The codemode line last said, so each holder is announced once. */
	let codemodeSaid: string | undefined;
	/**
	 * Says once which built-in names another extension holds and, with
	 * `codemodeRepair`, registers the repairing codemode where pi's own (or
	 * none) holds the name.
	 */
	const composeOwners = (ctx: ExtensionContext, claimCodemode: boolean) => {
		// Where owners may have changed, the first reply after reads pi's lists again before it may skip them.
		targets.forget();
		for (const fresh of foreignOwners.update(foreignBuiltinOwners(pi.getAllTools()))) {
			showSettingsWarning(ctx, foreignOwnerLine(fresh));
		}
		// Before every extension's session_start has run, who holds codemode is not settled yet.
		if (codemode === undefined || !claimCodemode) return;
		const line = codemodeLine(codemode.claim());
		if (line !== codemodeSaid && line !== codemodeLine("layer")) showSettingsWarning(ctx, line);
		codemodeSaid = line;
	};
	// A UI that cannot show status never affects repairs or the message they changed.
	const showTally = (ctx: ExtensionContext) =>
		contained("footer", () => updateFooterStatus(ctx, feedback.tally, settings));
	/** Set when the current message's leaked text was stripped or observed, so the footer is redrawn. */
	let leaksNoted = false;
	/** Whether the session holds a tool name a strict provider rejects (then every request is rewritten). */
	let unsafeNamesSaved = false;
	let messageModel: () => ExtensionContext["model"] = () => undefined;
	// The user's message and this run's tool results: a leak repeating them is an echo, never a call. Read from
	// the session only when a reply may hold a leak, and once per message however many stages ask.
	let messageEchoes: () => readonly string[] = () => [];
	const echoSources = () => messageEchoes();
	const grammarLeaks = createGrammarLeakHandler({
		echoSources,
		settings: () => settings,
		modelId: () => model.id,
		activeTools: () => survey.activeTools(),
		toolSchemas: () => survey.toolSchemas(),
		leakModels: () => leakModels?.patterns ?? [],
		// pi's own built-ins the user enabled; one another extension owns is not pi's.
		builtinTools: () => survey.activeTools().filter((name) => isBuiltinToolName(name) && !foreignOwners.has(name)),
		telemetry: deps.telemetry,
		// The same resolution as the message's other calls, so a promoted call counts under the owner its repairs do.
		ownerOf: (toolName) => targets.forMessage()(toolName)?.repairer.owner,
		onPromoted: (toolCallId, toolName, promoted) => feedback.bind(toolCallId, toolName, promoted),
		onLeakText: (leak) => {
			leaksNoted = true;
			logLeakText(leak);
			feedback.noteLeak(leak);
		},
	});
	const silentStops = new SilentStopGuard({
		settings: () => settings,
		modelId: () => model.id,
		activeTools: () => survey.activeTools(),
		leakModels: () => leakModels?.patterns ?? [],
		echoSources,
		onContinue: (stop) =>
			contained("continuation:telemetry", () =>
				deps.telemetry.continued?.({
					model: model.id,
					phantom: stop.phantom,
					reasoningOnly: stop.reasoningOnly,
					grammars: [...stop.grammars],
					profile: settings.policyProfile,
				}),
			),
	});
	const stages = layerStages({
		repairToolNames: () => settings.repairToolNames,
		listTools: (message) => withAvailableTools(message, survey.activeTools()),
		renameTools: (message) => {
			const renamed = renameLeakedToolNames(message, survey.activeTools(), (name) => survey.schemaOf(name));
			for (const call of renamed?.renamed ?? []) {
				contained("message-end:rename-feedback", () =>
					feedback.bind(call.toolCallId, call.to, renameFeedback(call, settings.policyProfile, model.id)),
				);
			}
			return renamed?.message;
		},
		grammarLeaks: (message) => grammarLeaks(message)?.message,
		judgeCalls: (message) =>
			judgeToolCalls(message, targets.forMessage(), { feedback, refusals, judged, contained, model: messageModel }),
		mayStopSilently: (message) => silentStops.hasWorkFor(message),
		noteSilentStop: (original, final) => silentStops.noteAssistantMessage(original, final),
	});
	const settingsHost: SettingsHost = {
		current: () => settings,
		update(next: RepairSettings, notice?: (line: string) => void) {
			Object.assign(settings, next, { grammarAllowedTools: [...next.grammarAllowedTools] });
			trySaveRepairSettings(settings, undefined, notice);
		},
	};

	/** What the commands say about other owners and the reach settings, only when there is something to say. */
	const compositionLines = (): string[] => {
		const lines = foreignOwners.list().map(foreignOwnerLine);
		if (composition.toolAliases.size > 0) {
			lines.push(
				`Tool repair: owner-configured aliases (toolAliases) for ${[...composition.toolAliases.keys()].join(", ")}.`,
			);
		}
		if (codemodeSaid !== undefined) lines.push(codemodeSaid);
		return lines;
	};

	pi.on("session_start", (_event, ctx) => {
		warningContext = ctx;
		cwd = ctx.cwd;
		silentStops.reset();
		unsafeNamesSaved = false;
		// pi copies the session's entries on each read: one read serves the saved names and the restored notes.
		const entries = contained("session-start:entries", () => ctx.sessionManager.getEntries()) ?? [];
		contained("session-start:history-names", () => {
			historyNames.settle();
			for (const message of savedMessages(entries)) noteSavedNames(message);
		});
		contained("session-start:model", () => model.fromContext(ctx));
		contained("session-start:owners", () => composeOwners(ctx, false));
		contained("session-start:restore", () => feedback.restore(entries));
		contained("session-start:tally", () => showTally(ctx));
		for (const warning of settingsWarnings) contained("session-start:warning", () => showSettingsWarning(ctx, warning));
		settingsWarnings = [];
		contained("session-start:allowed-tools", () =>
			showSettingsWarning(
				ctx,
				unknownAllowedTools(
					settings.grammarAllowedTools,
					pi.getAllTools().map((tool) => tool.name),
				),
			),
		);
	});

	// Runs after every extension's session_start, so an owner that registers its tool there is seen first.
	pi.on("resources_discover", (_event, ctx) => {
		contained("resources-discover:owners", () => composeOwners(ctx, true));
		return undefined;
	});

	// Before each run (the first one included): catches owners that registered later.
	pi.on("before_agent_start", (_event, ctx) => {
		contained("before-agent-start:owners", () => composeOwners(ctx, true));
		return undefined;
	});

	pi.on("model_select", (event, ctx) => {
		contained("model-select", () => model.fromSelect(event, ctx));
	});

	// A turn's held notes and refusals belong to calls that never ran once the next turn starts. Listened to
	// only while one waits or a continuation is remembered: most turns leave nothing for the next.
	const turnStarts = new OnDemandHandler<TurnStartEvent, void>(
		(handler) => pi.on("turn_start", handler),
		() => {
			contained("turn-start", () => {
				feedback.endTurn();
				refusals.clear();
				silentStops.onTurnStart();
				resultNotes.settle();
				refusalCheck.settle();
			});
		},
		() => feedback.holding || refusals.holding || silentStops.spansTurns,
	);

	// Registered only for a turn that stopped silently: pi rebuilds the session's context around every turn_end handler.
	const continuation = new OnDemandHandler<TurnEndEvent, TurnEndEventResult | undefined>(
		(handler) => pi.on("turn_end", handler),
		(event) => {
			survey.refresh();
			const result = contained("turn-end:continuation", () => silentStops.onTurnEnd(event));
			if (silentStops.spansTurns) turnStarts.want();
			return result;
		},
	);

	// Only what is sent: a saved tool name a strict provider rejects would fail every later request.
	const historyNames = new OnDemandHandler<ContextEvent, ContextEventResult | undefined>(
		(handler) => pi.on("context", handler),
		(event) =>
			contained("context:history-names", () => {
				survey.refresh();
				const safe = withProviderSafeToolNames(event.messages, () => survey.allTools().map((tool) => tool.name));
				return safe === undefined ? undefined : { messages: safe.messages as typeof event.messages };
			}),
		() => unsafeNamesSaved,
	);
	/**
	 * Names reach the session only through replies pi finishes (each passes
	 * message_end; a tool result carries the name of the call it answers) or
	 * with the session itself (read at session_start): pi filters the whole
	 * history around every context handler, so the layer listens only once
	 * the session holds a name to rewrite.
	 */
	const unsafeNames = new UnsafeNames();
	const noteSavedNames = (message: unknown) => {
		if (unsafeNamesSaved || !unsafeNames.inMessage(message)) return;
		unsafeNamesSaved = true;
		historyNames.want();
	};

	pi.on("session_shutdown", () => {
		contained("session-shutdown", () => {
			feedback.clear();
			refusals.clear();
			judged.clear();
			targets.forget();
			deps.failures.clear();
			foreignOwners.clear();
			silentStops.reset();
			resultNotes.settle();
			refusalCheck.settle();
			turnStarts.settle();
		});
	});

	/** Whether a message is settled, judged against pi's tool lists as they are now. */
	const settledNow = (message: PassMessage) => settledMessage(message, targets.forMessage(), mayHoldLeak);
	/** The same, against each called tool as it was at its latest read this run: reads nothing. */
	const settledAsLastRead = (message: PassMessage) => settledMessage(message, targets.asLastRead(), mayHoldLeak);
	pi.on("message_end", (event, ctx) =>
		contained("message-end", () => {
			const message = event.message;
			// Most messages (every tool result that is not an error) have no row, and nothing else to do: a tool
			// result's name is its call's, noted with the reply that made the call, and the echo texts are read
			// from the session when a reply needs them.
			if (message.role !== "assistant" && !anyStageFor(stages, message)) return undefined;
			// A settled reply no stage is for (most replies) stays as pi finished it: only its tool names are noted.
			const noStageIfSettled =
				message.role === "assistant" &&
				contained("message-end:settled-stages", () => noStageWhenSettled(stages, message)) === true;
			// Settled against the latest read of its tools, it needs no new read: pi has no event for a change of its tools.
			if (noStageIfSettled && contained("message-end:settled-as-read", () => settledAsLastRead(message)) === true) {
				noteSavedNames(message);
				return undefined;
			}
			survey.refresh();
			cwd = ctx.cwd;
			// Asked once per reply, here: a throw counts as "not settled", and every stage runs.
			const settled =
				message.role === "assistant" && contained("message-end:settled", () => settledNow(message)) === true;
			if (settled && noStageIfSettled) {
				noteSavedNames(message);
				return undefined;
			}
			// Reading ctx.model makes pi look the model up, so only a message with malformed text pays for it.
			messageModel = () => ctx.model;
			let echoes: readonly string[] | undefined;
			messageEchoes = () => (echoes ??= echoTexts(savedMessages(ctx.sessionManager.getBranch())));
			leaksNoted = false;
			const final = runMessageEndStages(stages, message, contained, () => settled);
			contained("message-end:history-names", () => noteSavedNames(final ?? message));
			if (silentStops.wantsTurnEnd()) contained("message-end:continuation", () => continuation.want());
			if (message.role === "assistant" && (final !== undefined || leaksNoted)) showTally(ctx);
			return final === undefined ? undefined : { message: final as typeof message };
		}),
	);

	// Every tool keeps its own renderers: a judged call is drawn as it runs, with the indicator under its result.
	contained("register-renderer", () =>
		pi.registerToolRenderer(
			indicatorRenderers(
				(toolCallId) => feedback.info(toolCallId),
				(toolCallId) => judged.get(toolCallId),
				() => settings,
				contained,
			),
		),
	);

	// The commands are an extra: a failure to register them must not unload the repairs.
	contained("register-commands", () =>
		registerRepairCommands(pi, settingsHost, {
			composition: () => compositionLines(),
			reportContained: (label, error) => reportContainedError(label, error, telemetry),
		}),
	);
}
