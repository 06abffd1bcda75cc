/**
 * pi-repair-layer - repairs provably safe mistakes in tool-call arguments
 *
 * Models get tool calls subtly wrong: `file_path` instead of `path`, an
 * `edits` array sent as a JSON string, `null` for an optional field, a path
 * wrapped in a markdown link, a whole argument object sent as a string or cut
 * off at the end. This extension re-registers those of pi's eight built-in
 * tools (read, bash, edit, write, grep, find, ls, powershell) that pi itself
 * still owns, from their real definitions, changing only `prepareArguments`:
 * every call goes through a schema-guided repair pipeline before pi validates
 * it. Every other active tool (extension and MCP tools, and a built-in that
 * another extension owns, which is never replaced) is repaired at
 * `message_end` against its own schema, with schema rules only.
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
 * extension's `session_start`) and `before_agent_start` survey again and
 * register the overrides pi still owns for the session's cwd; `tool_call` binds each repair
 * to its call ID; `tool_result` attaches the notes; `turn_end` drops repairs
 * of calls that never ran and continues a silent stop once; `message_end` runs the
 * tool-name repair (when on), the malformed-JSON rescue, the schema repair of other
 * owners' calls, then the grammar-leak handler; `session_shutdown` forgets everything in memory. The result renderer adds a muted
 * `🔨 ✓ input repaired (...)` line and the footer counts repairs this session,
 * and the leaked calls whose text was stripped or only observed instead of run.
 *
 * Usage:
 *   pi -e ./path/to/pi-repair-layer        # a checkout (auto-discovery entry)
 *   pi install npm:pi-repair-layer          # the published package
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { BUILTIN_TOOL_NAMES } from "./core/builtin-tables.ts";
import { rescueMalformedArguments } from "./extension/argument-rescue.ts";
import { BuiltinOverrides } from "./extension/builtin-overrides.ts";
import { decideNestedCall, registerRepairingCodemode } from "./extension/codemode-repair.ts";
import { registerRepairCommands, showSettingsWarning } from "./extension/commands.ts";
import { aliasesFor, defaultCompositionSettings, loadCompositionSettings } from "./extension/composition-settings.ts";
import { createContained, reportContainedError } from "./extension/contained.ts";
import { SilentStopGuard } from "./extension/continuation.ts";
import { logLeakText } from "./extension/diagnostics.ts";
import { EchoSources } from "./extension/echo-sources.ts";
import { RepeatFailureTracker } from "./extension/escalation.ts";
import { RepairFeedbackHub } from "./extension/feedback.ts";
import { createGrammarLeakHandler } from "./extension/grammar-leaks.ts";
import { withProviderSafeToolNames } from "./extension/history-names.ts";
import { updateFooterStatus } from "./extension/indicator.ts";
import { loadLeakModels } from "./extension/leak-models.ts";
import { CallTargets, hasMalformedCall, repairToolCalls, rescueDepsFor } from "./extension/message-repair.ts";
import { ModelTracker } from "./extension/model-tracker.ts";
import type { RepairDeps } from "./extension/prepare.ts";
import {
	defaultRepairSettings,
	loadRepairSettingsWithWarning,
	trySaveRepairSettings,
	unknownAllowedTools,
} from "./extension/settings.ts";
import { createTelemetryRecorder } from "./extension/telemetry.ts";
import { renameFeedback, renameLeakedToolNames, withAvailableTools } from "./extension/tool-names.ts";
import { ForeignOwners, foreignOwnerLine, surveyBuiltinOwners } from "./extension/tool-owners.ts";
import type { RepairSettings, SettingsHost, TelemetryRecorder } from "./extension/types.ts";

/** Parameter schemas of every tool pi knows, for typing values recovered from grammar leaks. */
function toolSchemas(pi: ExtensionAPI): ReadonlyMap<string, unknown> {
	return new Map(pi.getAllTools().map((tool) => [tool.name, tool.parameters] as const));
}

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
	/** Whether pi's codemode tool was re-registered with repairing nested calls. */
	let codemodeRepaired = false;

	// Warnings raised between events (a telemetry file refused) go to the UI of the latest session, else stderr.
	let warningContext: ExtensionContext | undefined;
	const model = new ModelTracker();
	// A host that cannot persist an entry still shows and notes the repair.
	const feedback = new RepairFeedbackHub({
		appendEntry: (type, data) => contained(`append-entry:${type}`, () => pi.appendEntry(type, data)),
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
	const overrides = new BuiltinOverrides(pi, deps);
	const foreignOwners = new ForeignOwners();
	const targets = new CallTargets(
		{
			allTools: () => pi.getAllTools(),
			activeTools: () => pi.getActiveTools(),
			ownRepairer: (tool) => (overrides.isOurs(tool) ? overrides.repairer(tool.name) : undefined),
			knownOwnRepairer: (name) => (foreignOwners.has(name) ? undefined : overrides.repairer(name)),
			configuredAliases: (name) => aliasesFor(composition, name),
		},
		deps,
	);
	/**
	 * Surveys who owns each built-in name and, when `register` is set,
	 * registers the overrides of the names pi (or the layer) still owns. A
	 * foreign owner is announced once, in the UI or on stderr.
	 */
	const composeOwners = (ctx: ExtensionContext, register: boolean) => {
		const isOurs = (tool: { parameters: unknown }) => overrides.isOurs(tool);
		let survey = surveyBuiltinOwners(pi.getAllTools(), isOurs);
		if (register) {
			overrides.register(ctx.cwd, [...survey.piOwned, ...survey.ours]);
			// An owner earlier in load order wins its name even over a registration made now.
			survey = surveyBuiltinOwners(pi.getAllTools(), isOurs);
		}
		for (const fresh of foreignOwners.update(survey.foreign)) showSettingsWarning(ctx, foreignOwnerLine(fresh));
	};
	// A UI that cannot show status never affects repairs or the message they changed.
	const showTally = (ctx: ExtensionContext) =>
		contained("footer", () => updateFooterStatus(ctx, feedback.tally, settings));
	/** Set when the current message's leaked text was stripped or observed, so the footer is redrawn. */
	let leaksNoted = false;
	// The user's message and this run's tool results: a leak repeating them is an echo, never a call.
	const echoes = new EchoSources();
	const grammarLeaks = createGrammarLeakHandler({
		echoSources: () => echoes.texts(),
		settings: () => settings,
		modelId: () => model.id,
		activeTools: () => pi.getActiveTools(),
		toolSchemas: () => toolSchemas(pi),
		leakModels: () => leakModels?.patterns ?? [],
		// pi's own built-ins the user enabled; one another extension owns is not pi's.
		builtinTools: () =>
			pi
				.getActiveTools()
				.filter((name) => (BUILTIN_TOOL_NAMES as readonly string[]).includes(name) && !foreignOwners.has(name)),
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
		activeTools: () => pi.getActiveTools(),
		leakModels: () => leakModels?.patterns ?? [],
		echoSources: () => echoes.texts(),
		onContinue: (stop) =>
			contained("continuation:telemetry", () =>
				deps.telemetry.continued?.({
					model: model.id,
					phantom: stop.phantom,
					grammars: [...stop.grammars],
					profile: settings.policyProfile,
				}),
			),
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
		if (codemodeRepaired) lines.push("Tool repair: codemode is re-registered to repair nested calls (codemodeRepair).");
		return lines;
	};

	pi.on("session_start", (_event, ctx) => {
		warningContext = ctx;
		silentStops.reset();
		contained("session-start:model", () => model.fromContext(ctx));
		contained("session-start:owners", () => composeOwners(ctx, false));
		contained("session-start:restore", () => feedback.restore(ctx.sessionManager.getEntries()));
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

	// Before each run (the first one included): registers what is still missing and catches later owners.
	pi.on("before_agent_start", (_event, ctx) => {
		contained("before-agent-start:owners", () => composeOwners(ctx, true));
		return undefined;
	});

	pi.on("model_select", (event, ctx) => {
		contained("model-select", () => model.fromSelect(event, ctx));
	});

	pi.on("tool_call", (event, ctx) => {
		// Never blocks and never throws: a throw here would fail the call.
		contained("tool-call", () => {
			if (feedback.onToolCall(event.toolName, event.input, event.toolCallId) !== undefined) showTally(ctx);
		});
		return undefined;
	});

	pi.on("tool_result", (event) =>
		contained("tool-result", () => {
			const content = feedback.onToolResult(event.toolCallId, event.parentToolCallId, event.content);
			return content === undefined ? undefined : { content };
		}),
	);

	pi.on("turn_end", (event) => {
		contained("turn-end", () => feedback.endTurn());
		return contained("turn-end:continuation", () => silentStops.onTurnEnd(event));
	});

	// Only what is sent: a saved tool name a strict provider rejects would fail every later request.
	pi.on("context", (event) =>
		contained("context:history-names", () => {
			const known = pi.getAllTools().map((tool) => tool.name);
			const safe = withProviderSafeToolNames(event.messages, known);
			return safe === undefined ? undefined : { messages: safe.messages as typeof event.messages };
		}),
	);

	pi.on("session_shutdown", () => {
		contained("session-shutdown", () => {
			feedback.clear();
			deps.failures.clear();
			foreignOwners.clear();
			silentStops.reset();
			echoes.clear();
		});
	});

	pi.on("message_end", (event, ctx) =>
		contained("message-end", () => {
			contained("message-end:echo-sources", () => echoes.note(event.message));
			if (event.message.role === "toolResult" && settings.repairToolNames) {
				const listed = withAvailableTools(event.message, pi.getActiveTools());
				return listed === undefined ? undefined : { message: listed as typeof event.message };
			}
			if (event.message.role !== "assistant") return undefined;
			// Names first (so the rescue repairs against the right tool), then the malformed-JSON rescue,
			// then other owners' calls, then grammar leaks on the result.
			const renamed = settings.repairToolNames
				? contained("message-end:tool-names", () =>
						renameLeakedToolNames(
							event.message,
							pi.getActiveTools(),
							(name) => pi.getAllTools().find((tool) => tool.name === name)?.parameters,
						),
					)
				: undefined;
			for (const call of renamed?.renamed ?? []) {
				contained("message-end:rename-feedback", () =>
					feedback.bind(call.toolCallId, call.to, renameFeedback(call, settings.policyProfile, model.id)),
				);
			}
			// A split call (empty native arguments, the arguments leaked as text) is merged before argument repair.
			const split = contained("message-end:split-call", () =>
				grammarLeaks.splitCall(renamed?.message ?? event.message),
			);
			const named = (split?.message ?? renamed?.message ?? event.message) as typeof event.message;
			const target = targets.forMessage();
			// Reading ctx.model makes pi look the model up, so only a message with malformed text pays for it.
			const rescued = hasMalformedCall(named)
				? contained("message-end:rescue", () =>
						rescueMalformedArguments(named, rescueDepsFor(target, feedback, ctx.model, contained)),
					)
				: undefined;
			const repaired =
				contained("message-end:tool-calls", () => repairToolCalls(rescued ?? named, target, feedback)) ?? rescued;
			const current = repaired ?? named;
			leaksNoted = false;
			const promoted = contained("message-end:grammar", () => grammarLeaks(current));
			contained("message-end:silent-stops", () =>
				silentStops.noteAssistantMessage(current, promoted?.message ?? current),
			);
			const final = promoted?.message ?? repaired ?? split?.message ?? renamed?.message;
			if (final !== undefined || leaksNoted) showTally(ctx);
			return final === undefined ? undefined : { message: final as typeof event.message };
		}),
	);

	if (composition.codemodeRepair) {
		const registered = contained("codemode-register", () => {
			registerRepairingCodemode(
				pi,
				(parentId, toolName, args) =>
					// A failure inside the layer leaves the nested call exactly as pi alone would run it.
					contained("codemode:nested-call", () =>
						decideNestedCall(parentId, toolName, args, targets.forMessage("all")(toolName), feedback),
					) ?? { args },
			);
			return true;
		});
		codemodeRepaired = registered === true;
		if (registered === undefined)
			settingsWarnings.push("Tool repair: codemodeRepair is on, but pi's codemode tool could not be re-registered.");
	}

	// The commands are an extra: a failure to register them must not unload the repairs.
	contained("register-commands", () =>
		registerRepairCommands(pi, settingsHost, {
			composition: () => compositionLines(),
			reportContained: (label, error) => reportContainedError(label, error, telemetry),
		}),
	);
}
