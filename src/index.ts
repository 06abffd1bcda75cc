/**
 * pi-repair-layer - repairs provably safe mistakes in tool-call arguments
 *
 * Models get tool calls subtly wrong: `file_path` instead of `path`, an
 * `edits` array sent as a JSON string, `null` for an optional field, a path
 * wrapped in a markdown link, a whole argument object sent as a string or cut
 * off at the end. This extension re-registers pi's eight built-in tools (read,
 * bash, edit, write, grep, find, ls, powershell) from their real definitions,
 * changing only `prepareArguments`: every call goes through a schema-guided
 * repair pipeline before pi validates it.
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
 * How it works: `session_start` registers the overrides for the session's cwd
 * and tracks the model (for model-family gates); `tool_call` binds each repair
 * to its call ID; `tool_result` attaches the notes; `turn_end` drops repairs
 * of calls that never ran and continues a silent stop once; `message_end` runs the malformed-JSON rescue, then
 * the grammar-leak handler; `session_shutdown` forgets everything in memory. The result renderer adds a muted
 * `🔨 ✓ input repaired (...)` line and the footer counts repairs this session.
 *
 * Usage:
 *   pi -e ./path/to/pi-repair-layer        # a checkout (auto-discovery entry)
 *   pi install npm:pi-repair-layer          # the published package
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { rescueMalformedArguments } from "./extension/argument-rescue.ts";
import { BuiltinOverrides, isBuiltinToolName } from "./extension/builtin-overrides.ts";
import { registerRepairCommands, showSettingsWarning } from "./extension/commands.ts";
import { SilentStopGuard } from "./extension/continuation.ts";
import { RepeatFailureTracker } from "./extension/escalation.ts";
import { RepairFeedbackHub } from "./extension/feedback.ts";
import { createGrammarLeakHandler } from "./extension/grammar-leaks.ts";
import { updateFooterStatus } from "./extension/indicator.ts";
import { ModelTracker } from "./extension/model-tracker.ts";
import type { RepairDeps } from "./extension/prepare.ts";
import {
	defaultDisplaySettings,
	loadDisplaySettingsWithDiagnostics,
	trySaveDisplaySettings,
	unknownAllowedTools,
} from "./extension/settings.ts";
import { createTelemetryRecorder } from "./extension/telemetry.ts";
import { renameFeedback, renameLeakedToolNames, withAvailableTools } from "./extension/tool-names.ts";
import type { RepairDisplaySettings, SettingsHost } from "./extension/types.ts";

/** Runs a handler body; any failure inside the extension leaves pi to carry on as it would alone. */
function contained<T>(body: () => T): T | undefined {
	try {
		return body();
	} catch {
		return undefined;
	}
}

/** Parameter schemas of every tool pi knows, for typing values recovered from grammar leaks. */
function toolSchemas(pi: ExtensionAPI): ReadonlyMap<string, unknown> {
	return new Map(pi.getAllTools().map((tool) => [tool.name, tool.parameters] as const));
}

export default function toolRepairExtension(pi: ExtensionAPI): void {
	const loaded = contained(() => loadDisplaySettingsWithDiagnostics());
	// One live object: every handler reads it at call time, so menu changes apply at once.
	const settings = loaded?.settings ?? defaultDisplaySettings();
	let settingsWarning = loaded?.warning;

	// Warnings raised between events (a telemetry file refused) go to the UI of the latest session, else stderr.
	let warningContext: ExtensionContext | undefined;
	const model = new ModelTracker();
	const feedback = new RepairFeedbackHub({ appendEntry: (type, data) => pi.appendEntry(type, data) });
	const deps: RepairDeps = {
		settings: () => settings,
		model,
		telemetry: createTelemetryRecorder({ warn: (text) => showSettingsWarning(warningContext, text) }),
		feedback,
		failures: new RepeatFailureTracker(),
		unrescued: new WeakSet(),
	};
	const overrides = new BuiltinOverrides(pi, deps);
	const showTally = (ctx: ExtensionContext) => updateFooterStatus(ctx, feedback.tally, settings);
	const grammarLeaks = createGrammarLeakHandler({
		settings: () => settings,
		modelId: () => model.id,
		activeTools: () => pi.getActiveTools(),
		toolSchemas: () => toolSchemas(pi),
		telemetry: deps.telemetry,
		onPromoted: (toolCallId, toolName, promoted) => feedback.bind(toolCallId, toolName, promoted),
	});
	const silentStops = new SilentStopGuard({
		settings: () => settings,
		modelId: () => model.id,
		activeTools: () => pi.getActiveTools(),
		toolSchemas: () => toolSchemas(pi),
	});
	const settingsHost: SettingsHost = {
		current: () => settings,
		update(next: RepairDisplaySettings) {
			Object.assign(settings, next, { grammarAllowedTools: [...next.grammarAllowedTools] });
			trySaveDisplaySettings(settings);
		},
	};

	pi.on("session_start", (_event, ctx) => {
		warningContext = ctx;
		silentStops.reset();
		contained(() => model.fromContext(ctx));
		contained(() => overrides.register(ctx.cwd));
		contained(() => feedback.restore(ctx.sessionManager.getEntries()));
		contained(() => showTally(ctx));
		contained(() => showSettingsWarning(ctx, settingsWarning));
		settingsWarning = undefined;
		contained(() =>
			showSettingsWarning(
				ctx,
				unknownAllowedTools(
					settings.grammarAllowedTools,
					pi.getAllTools().map((tool) => tool.name),
				),
			),
		);
	});

	pi.on("model_select", (event, ctx) => {
		contained(() => model.fromSelect(event, ctx));
	});

	pi.on("tool_call", (event, ctx) => {
		// Never blocks and never throws: a throw here would fail the call.
		contained(() => {
			if (feedback.onToolCall(event.toolName, event.input, event.toolCallId) !== undefined) showTally(ctx);
		});
		return undefined;
	});

	pi.on("tool_result", (event) =>
		contained(() => {
			const content = feedback.onToolResult(event.toolCallId, event.parentToolCallId, event.content);
			return content === undefined ? undefined : { content };
		}),
	);

	pi.on("turn_end", (event) => {
		contained(() => feedback.endTurn());
		return contained(() => silentStops.onTurnEnd(event));
	});

	pi.on("session_shutdown", () => {
		contained(() => {
			feedback.clear();
			deps.failures.clear();
			silentStops.reset();
		});
	});

	pi.on("message_end", (event, ctx) =>
		contained(() => {
			if (event.message.role === "toolResult" && settings.repairToolNames) {
				const listed = withAvailableTools(event.message, pi.getActiveTools());
				return listed === undefined ? undefined : { message: listed as typeof event.message };
			}
			if (event.message.role !== "assistant") return undefined;
			// Names first (so the rescue repairs against the right tool), then the malformed-JSON rescue,
			// then grammar leaks on the (possibly rescued) message.
			const renamed = settings.repairToolNames
				? contained(() => renameLeakedToolNames(event.message, pi.getActiveTools()))
				: undefined;
			for (const call of renamed?.renamed ?? []) {
				contained(() =>
					feedback.bind(call.toolCallId, call.to, renameFeedback(call, settings.policyProfile, model.id)),
				);
			}
			const named = (renamed?.message ?? event.message) as typeof event.message;
			const rescued = rescueMalformedArguments(named, {
				isWrapped: (name) => isBuiltinToolName(name) && overrides.repairer(name) !== undefined,
				repair: (name, input) => {
					const repairer = overrides.repairer(name);
					if (repairer === undefined) throw new Error("not a wrapped tool");
					return repairer.run(input);
				},
				onAttempt: ({ toolCallId, toolName, result }) => {
					const repairer = overrides.repairer(toolName);
					if (repairer === undefined) return;
					repairer.report(result);
					if (result.outcome === "repaired") feedback.bind(toolCallId, toolName, repairer.feedbackFor(result));
				},
				onUnrescued: (args) => deps.unrescued.add(args),
				model: ctx.model,
			});
			const current = rescued ?? named;
			const promoted = contained(() => grammarLeaks(current));
			contained(() => silentStops.noteAssistantMessage(current, promoted?.message ?? current));
			const final = promoted?.message ?? rescued ?? renamed?.message;
			if (final === undefined) return undefined;
			showTally(ctx);
			return { message: final as typeof event.message };
		}),
	);

	// The commands are an extra: a failure to register them must not unload the repairs.
	contained(() => registerRepairCommands(pi, settingsHost));
}
