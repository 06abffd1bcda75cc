/**
 * The one repair point for every model-issued call: at `message_end`, before
 * pi looks a call's tool up and validates its arguments, each call of the
 * finished assistant message goes through the `/core` pipeline of its tool.
 *
 * - The layer's own built-in overrides repair in their `prepareArguments`
 *   (which also covers codemode's nested calls); here they only get the
 *   rescue of malformed argument text.
 * - Every other active tool (extension tools, MCP tools, a built-in another
 *   extension owns) is repaired against its own schema, with schema-driven
 *   rules only plus the aliases its owner configured. Plain JSON Schema and
 *   TypeBox schemas go through the same validator.
 * - Valid calls are left alone: same block, same arguments object, no note.
 * - Repaired calls are written back into the message and their notes bound to
 *   the call's ID, so its result carries one `<repair_note>`.
 * - Unrepairable calls of those tools fail open (pi's own validation and
 *   message), except where pi's coercion would accept them and so silently
 *   change a value (`null` into a required string becomes `"null"`, a
 *   stringified list becomes `["[…]"]`): those are refused through
 *   `argumentsError` with the layer's retry message.
 */
import { validateToolArguments } from "@earendil-works/pi-ai";
import type { ToolInfo } from "@earendil-works/pi-coding-agent";
import type { Preprocessor, RepairPipelineResult } from "../core/types.ts";
import { markArgumentsRefused } from "../pi/refused-arguments.ts";
import { callsMayRun, isMalformedCall, type RescueDeps } from "./argument-rescue.ts";
import type { Contained } from "./contained.ts";
import type { RepairFeedbackHub } from "./feedback.ts";
import { type RepairDeps, ToolRepairer } from "./prepare.ts";
import { isToolCallBlock, type ToolCallBlock } from "./tool-call-block.ts";
import { type OwnerKind, ownerKindOf } from "./tool-owners.ts";

/** What the message pass needs to know about the session's tools. */
export interface ToolSource {
	/** `pi.getAllTools()`. */
	allTools(): readonly ToolInfo[];
	/** `pi.getActiveTools()`: the tools a model-issued call can reach. */
	activeTools(): readonly string[];
	/** The override the layer registered under this name, when pi reports it as the winner. */
	ownRepairer(tool: ToolInfo): ToolRepairer | undefined;
	/**
	 * The override of a name the layer is known to own, answered without asking
	 * pi for its tool list (the common case of a message of built-in calls).
	 */
	knownOwnRepairer(toolName: string): ToolRepairer | undefined;
	/** Aliases the owner configured for this tool, as alias preprocessors. */
	configuredAliases(toolName: string): readonly Preprocessor[];
}

/** How the pass treats one tool of the current message. */
export interface CallTarget {
	repairer: ToolRepairer;
	/** The layer's own override: repaired in `prepareArguments`, so only malformed text is handled here. */
	own: boolean;
}

interface CachedRepairer {
	schema: unknown;
	aliases: readonly Preprocessor[];
	owner: OwnerKind;
	repairer: ToolRepairer;
}

/** Resolves each tool name of one message to its repairer; asks pi for its tool list at most once per message. */
export class CallTargets {
	private readonly source: ToolSource;
	private readonly deps: RepairDeps;
	private readonly cache = new Map<string, CachedRepairer>();

	constructor(source: ToolSource, deps: RepairDeps) {
		this.source = source;
		this.deps = deps;
	}

	/**
	 * A resolver for one message: model-issued calls reach the active tools;
	 * nested calls (`ctx.executeTool`) reach every tool pi lists.
	 */
	forMessage(reach: "active" | "all" = "active"): (toolName: string) => CallTarget | undefined {
		let tools: Map<string, ToolInfo> | undefined;
		const resolved = new Map<string, CallTarget | undefined>();
		return (toolName) => {
			if (resolved.has(toolName)) return resolved.get(toolName);
			const known = this.source.knownOwnRepairer(toolName);
			let target: CallTarget | undefined;
			if (known !== undefined) target = { repairer: known, own: true };
			else {
				tools ??= this.toolInfo(reach);
				const tool = tools.get(toolName);
				if (tool !== undefined) {
					const own = this.source.ownRepairer(tool);
					target = own === undefined ? { repairer: this.foreign(tool), own: false } : { repairer: own, own: true };
				}
			}
			resolved.set(toolName, target);
			return target;
		};
	}

	private toolInfo(reach: "active" | "all"): Map<string, ToolInfo> {
		const active = reach === "active" ? new Set(this.source.activeTools()) : undefined;
		const tools = new Map<string, ToolInfo>();
		for (const tool of this.source.allTools()) if (active?.has(tool.name) !== false) tools.set(tool.name, tool);
		return tools;
	}

	/** The schema-rules repairer of a tool the layer does not own, rebuilt when its schema, owner or aliases change. */
	private foreign(tool: ToolInfo): ToolRepairer {
		const aliases = this.source.configuredAliases(tool.name);
		const owner = ownerKindOf(tool);
		const cached = this.cache.get(tool.name);
		if (cached?.schema === tool.parameters && cached.aliases === aliases && cached.owner === owner) {
			return cached.repairer;
		}
		const repairer = new ToolRepairer(
			{
				name: tool.name,
				schema: tool.parameters,
				preprocessors: aliases,
				repairConfig: {},
				strictSampling: false,
				owner,
			},
			this.deps,
		);
		this.cache.set(tool.name, { schema: tool.parameters, aliases, owner, repairer });
		return repairer;
	}
}

/**
 * The rescue's view of one message's targets: every tool the layer repairs,
 * own or not. A failing repair leaves that call as pi delivered it, and a
 * failing bookkeeping step (telemetry, note binding) never decides whether a
 * call is rescued; both are contained and reported.
 */
/** Whether a message holds a call the rescue could act on; most hold none, and then nothing else is asked of pi. */
export function hasMalformedCall(message: { role?: unknown; content?: unknown; stopReason?: unknown }): boolean {
	return callsMayRun(message) && message.content.some(isMalformedCall);
}

export function rescueDepsFor(
	target: (toolName: string) => CallTarget | undefined,
	feedback: RepairFeedbackHub,
	model: RescueDeps["model"],
	contained: Contained,
): RescueDeps {
	return {
		isWrapped: (name) => target(name) !== undefined,
		repair: (name, input) => contained(`rescue:${name}`, () => target(name)?.repairer.run(input)),
		onAttempt: ({ toolCallId, toolName, result }) =>
			contained(`rescue-feedback:${toolName}`, () => {
				const chosen = target(toolName)?.repairer;
				if (chosen === undefined) return;
				chosen.report(result);
				if (result.outcome === "repaired") feedback.bind(toolCallId, toolName, chosen.feedbackFor(result));
			}),
		// pi refuses the call with the model's own text; every shim (ours, an adapted tool's) hands it over unchanged.
		onUnrescued: (args) => markArgumentsRefused(args),
		model,
	};
}

type WellFormedCall = ToolCallBlock & { arguments: Record<string, unknown> };

/** A call pi parsed: an arguments object and no `argumentsError`. */
function isWellFormedCall(block: unknown): block is WellFormedCall {
	return (
		isToolCallBlock(block) &&
		block.argumentsError === undefined &&
		typeof block.arguments === "object" &&
		block.arguments !== null
	);
}

/** True when pi's own validation (with its coercion) would let these arguments through. */
export function piWouldAccept(toolName: string, schema: unknown, args: unknown): boolean {
	try {
		validateToolArguments(
			{ name: toolName, description: "", parameters: schema as never },
			{
				type: "toolCall",
				id: "probe",
				name: toolName,
				arguments: args as never,
			},
		);
		return true;
	} catch {
		// pi's validation answers "rejected" by throwing: an outcome, not a failure.
		return false;
	}
}

/**
 * A replacement message with the well-formed calls of tools the layer does
 * not own repaired or refused, or `undefined` when nothing changed. The input
 * message is never mutated (only an unrepairable call's arguments object gets
 * the invisible refusal mark); untouched blocks keep their identity.
 */
export function repairToolCalls<M extends { role?: unknown; content?: unknown; stopReason?: unknown }>(
	message: M,
	target: (toolName: string) => CallTarget | undefined,
	feedback: RepairFeedbackHub,
): M | undefined {
	if (!callsMayRun(message)) return undefined;
	let content: unknown[] | undefined;
	message.content.forEach((block: unknown, index: number) => {
		if (!isWellFormedCall(block)) return;
		const found = target(block.name);
		if (found === undefined || found.own) return;
		const replacement = decideCall(block, found.repairer, feedback);
		if (replacement === undefined) return;
		content ??= [...message.content];
		content[index] = replacement;
	});
	return content === undefined ? undefined : { ...message, content };
}

function decideCall(block: WellFormedCall, repairer: ToolRepairer, feedback: RepairFeedbackHub): unknown {
	const result: RepairPipelineResult = repairer.run(block.arguments);
	if (result.outcome === "valid") return undefined;
	repairer.report(result);
	if (result.outcome === "repaired") {
		feedback.bind(block.id, block.name, repairer.feedbackFor(result));
		return { ...block, arguments: result.args };
	}
	// Fail open: pi's own validation and message, unless pi would let a value through that the layer refuses.
	if (!piWouldAccept(block.name, repairer.spec.schema, block.arguments)) return undefined;
	const retry = repairer.retryText(result);
	if (retry === undefined) return undefined;
	markArgumentsRefused(block.arguments);
	return { ...block, argumentsError: retry };
}
