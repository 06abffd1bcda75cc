/**
 * The one repair point for every model-issued call: at `message_end`, before
 * pi renders, looks up, prepares or validates any call, each call of the
 * finished assistant message is judged once by the `/core` pipeline of its
 * tool, and what pi then renders, persists and runs is the judged call.
 *
 * - pi's own built-ins (while pi owns the name) are repaired with the
 *   built-in tables and pi's own shim (edit's), fail closed: what cannot be
 *   repaired is refused through `argumentsError` with the layer's retry
 *   message (PI_TOOL_REPAIR_PASSTHROUGH=1 leaves it to pi instead).
 * - Every other active tool (extension tools, MCP tools, a built-in name
 *   another extension owns) is repaired against its own schema, with
 *   schema-driven rules only plus the aliases its owner configured. Plain
 *   JSON Schema and TypeBox schemas go through the same validator.
 * - Malformed argument text (pi's `argumentsError`) is rescued for both.
 * - Valid calls are left alone: same block, same arguments object, no note.
 * - Repaired calls are written back into the message and their notes bound
 *   to the call's ID, so its result carries one `<repair_note>`.
 *
 * Other owners' `prepareArguments`: pi runs a tool's own shim after
 * `message_end`, and pi's extension API exposes no other owner's shim
 * (`pi.getAllTools()` lists schemas only). So for those tools the layer
 * (1) repairs only what its schema rules prove, which a shim then sees in
 * the shape its schema declares; (2) uses pi's own shim for a tool built on
 * pi's definition of a built-in (it carries pi's schema object); (3) never
 * refuses at `message_end`: an unrepairable call pi alone would run with a
 * meaning-changing conversion (`null` into `"null"`, a list literal into a
 * one-item list) is refused at `tool_call`, after the owner's shim and pi's
 * validation ran, and only when the arguments pi is about to run are exactly
 * what pi's coercion makes of the model's own (the shim changed nothing). A
 * call pi's coercion runs losslessly (`ids: 42` as `[42]`) is pi's, as sent.
 */
import { validateToolArguments } from "@earendil-works/pi-ai";
import type { ToolInfo } from "@earendil-works/pi-coding-agent";
import { jsonEqual } from "../../core/clone.ts";
import { isRecord } from "../../core/json-value.ts";
import type { Preprocessor, RepairPipelineResult } from "../../core/types.ts";
import { markArgumentsRefused } from "../../pi/refused-arguments.ts";
import { setNewest } from "../host/bounded-map.ts";
import type { Contained } from "../host/contained.ts";
import type { OwnerKind } from "../host/types.ts";
import { callsMayRun, type RescueDeps, reachedOutputLimit, rescueCall } from "./argument-rescue.ts";
import type { RepairFeedbackHub } from "./feedback.ts";
import type { PassMessage } from "./message-end.ts";
import { type RepairDeps, ToolRepairer } from "./prepare.ts";
import { isToolCallBlock, type ToolCallBlock } from "./tool-call-block.ts";
import { isPiCoreTool, ownerKindOf } from "./tool-owners.ts";

/** What the message pass needs to know about the session's tools. */
export interface ToolSource {
	/** `pi.getAllTools()`. */
	allTools(): readonly ToolInfo[];
	/** `pi.getActiveTools()`: the tools a model-issued call can reach. */
	activeTools(): readonly string[];
	/** The built-in repairer of this name for the session's cwd, or `undefined` for any other name. */
	builtinRepairer(toolName: string): ToolRepairer | undefined;
	/** pi's own shim of a built-in name, when `schema` is pi's very schema of it. */
	piShimFor(toolName: string, schema: unknown): ((args: unknown) => unknown) | undefined;
	/** Aliases the owner configured for this tool, as alias preprocessors. */
	configuredAliases(toolName: string): readonly Preprocessor[];
}

/** How the pass treats one tool of the current message. */
export interface CallTarget {
	repairer: ToolRepairer;
	/** pi's own built-in: its shim is known, so what cannot be repaired is refused outright. */
	builtin: boolean;
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
	/** What each tool name of a model-issued call resolved to at its latest read of pi's lists, until {@link forget}. */
	private readonly lastRead = new Map<string, CallTarget>();

	constructor(source: ToolSource, deps: RepairDeps) {
		this.source = source;
		this.deps = deps;
	}

	/**
	 * A resolver for one message: model-issued calls reach the active tools;
	 * nested calls (`ctx.executeTool`) reach every tool pi lists.
	 */
	forMessage(reach: "active" | "all" = "active"): (toolName: string) => CallTarget | undefined {
		let resolved: Map<string, CallTarget | undefined> | undefined;
		let all: readonly ToolInfo[] | undefined;
		let active: readonly string[] | undefined;
		return (toolName) => {
			if (resolved?.has(toolName) === true) return resolved.get(toolName);
			// A message names a few tools: each is looked up in pi's lists where it is, the lists read once.
			if (reach === "active") active ??= this.source.activeTools();
			let tool: ToolInfo | undefined;
			if (active?.includes(toolName) !== false) {
				all ??= this.source.allTools();
				tool = all.find((info) => info.name === toolName);
			}
			const target = tool === undefined ? undefined : this.targetOf(tool);
			resolved ??= new Map();
			resolved.set(toolName, target);
			if (reach === "active") {
				if (target === undefined) this.lastRead.delete(toolName);
				else this.lastRead.set(toolName, target);
			}
			return target;
		};
	}

	/**
	 * A resolver over what each name resolved to at its latest read of pi's
	 * lists, reading nothing; a name no read resolved to an active tool is
	 * unknown here. Only for leaving a reply alone: a call that passes as
	 * sent against a tool changed since is left as pi finished it, which is
	 * what pi alone would run, and anything the layer would change is judged
	 * on a new read.
	 */
	asLastRead(): (toolName: string) => CallTarget | undefined {
		return (toolName) => this.lastRead.get(toolName);
	}

	/** Drops the record of the latest read, so the next message reads pi's lists before it can skip them. */
	forget(): void {
		this.lastRead.clear();
	}

	private targetOf(tool: ToolInfo): CallTarget {
		// Who owns the name is read from pi's list whenever a call may be changed, so a late owner is never judged as pi's tool.
		const builtin = isPiCoreTool(tool) ? this.source.builtinRepairer(tool.name) : undefined;
		return builtin === undefined
			? { repairer: this.foreign(tool), builtin: false }
			: { repairer: builtin, builtin: true };
	}

	/** The schema-rules repairer of a tool pi does not own, rebuilt when its schema, owner or aliases change. */
	private foreign(tool: ToolInfo): ToolRepairer {
		const aliases = this.source.configuredAliases(tool.name);
		const owner = ownerKindOf(tool);
		const cached = this.cache.get(tool.name);
		if (cached?.schema === tool.parameters && cached.aliases === aliases && cached.owner === owner) {
			return cached.repairer;
		}
		const piShim = this.source.piShimFor(tool.name, tool.parameters);
		const builtinRules = piShim === undefined ? undefined : this.source.builtinRepairer(tool.name)?.spec;
		const repairer = new ToolRepairer(
			{
				name: tool.name,
				schema: tool.parameters,
				preprocessors: aliases,
				repairConfig: {},
				strictSampling: false,
				owner,
				...(piShim === undefined ? {} : { ownerPrepare: piShim }),
				...(builtinRules?.ownerPrepareApplies === undefined
					? {}
					: { ownerPrepareApplies: builtinRules.ownerPrepareApplies }),
			},
			this.deps,
		);
		this.cache.set(tool.name, { schema: tool.parameters, aliases, owner, repairer });
		return repairer;
	}
}

/** pi's coercion of `args`: the arguments pi would run, or `undefined` when pi refuses them. */
export function piCoercion(toolName: string, schema: unknown, args: unknown): { value: unknown } | undefined {
	try {
		const value: unknown = validateToolArguments(
			{ name: toolName, description: "", parameters: schema as never },
			{ type: "toolCall", id: "probe", name: toolName, arguments: args as never },
		);
		return { value };
	} catch {
		// pi's validation answers "rejected" by throwing: an outcome, not a failure.
		return undefined;
	}
}

/** Decimal JSON number text, the only text the layer agrees may become a number. */
const DECIMAL_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

/**
 * True when every value pi's coercion changed keeps its meaning: a number or
 * boolean taken into a one-item list (`42` as `[42]`), decimal number text
 * and a number trading places, `"true"`/`"false"` and a boolean. `null`
 * becoming text, a boolean becoming text and text wrapped into a list are
 * not: those are the conversions the layer refuses.
 */
export function losslessCoercion(sent: unknown, coerced: unknown): boolean {
	if (jsonEqual(sent, coerced)) return true;
	if (Array.isArray(coerced) && !Array.isArray(sent)) {
		return (
			coerced.length === 1 &&
			(typeof sent === "number" || typeof sent === "boolean") &&
			losslessCoercion(sent, coerced[0])
		);
	}
	if (Array.isArray(sent) && Array.isArray(coerced)) {
		return sent.length === coerced.length && sent.every((item, index) => losslessCoercion(item, coerced[index]));
	}
	if (isRecord(sent) && isRecord(coerced)) {
		const keys = new Set([...Object.keys(sent), ...Object.keys(coerced)]);
		for (const key of keys) {
			if (!Object.hasOwn(sent, key) || !Object.hasOwn(coerced, key)) return false;
			if (!losslessCoercion(sent[key], coerced[key])) return false;
		}
		return true;
	}
	if (typeof sent === "string" && typeof coerced === "number")
		return DECIMAL_NUMBER.test(sent) && Number(sent) === coerced;
	if (typeof sent === "number" && typeof coerced === "string") return String(sent) === coerced;
	if (typeof sent === "string" && typeof coerced === "boolean") return sent === String(coerced);
	return false;
}

/** A refusal of another owner's call, waiting for `tool_call` to see what pi is about to run. */
interface PendingRefusal {
	retry: string;
	/** What pi's coercion alone makes of the model's arguments. */
	coerced: unknown;
}

/** Refusals kept for calls not yet run; a message never holds more calls than this. */
const MAX_PENDING_REFUSALS = 256;

/**
 * Refusals of other owners' calls, by call ID. The verdict is the
 * `message_end` pass's; `tool_call` only checks that the owner's shim left
 * the call as pi's coercion alone would run it before enforcing it.
 */
export class PendingRefusals {
	private readonly byId = new Map<string, PendingRefusal>();
	/** A refusal now waits for its call (the `tool_call` handler is due). */
	private readonly onHold: (() => void) | undefined;

	constructor(onHold?: () => void) {
		this.onHold = onHold;
	}

	hold(toolCallId: string, refusal: PendingRefusal): void {
		setNewest(this.byId, toolCallId, refusal, MAX_PENDING_REFUSALS);
		this.onHold?.();
	}

	/** True while a refusal waits for its call. */
	get holding(): boolean {
		return this.byId.size > 0;
	}

	/** `tool_call`: the retry message when this call is to be refused, else `undefined` (the call runs). */
	verdict(toolCallId: string, input: unknown): string | undefined {
		const pending = this.byId.get(toolCallId);
		if (pending === undefined) return undefined;
		this.byId.delete(toolCallId);
		return jsonEqual(input, pending.coerced) ? pending.retry : undefined;
	}

	clear(): void {
		this.byId.clear();
	}
}

/** Calls whose arguments were kept for drawing; older ones are dropped first. */
const MAX_JUDGED_CALLS = 512;

/**
 * The arguments the pass wrote back, by call ID (in memory only), so the
 * TUI can draw a call pi made its row for while it streamed with what pi
 * will run.
 */
export class JudgedArgs {
	private readonly byId = new Map<string, unknown>();

	record(toolCallId: string, args: unknown): void {
		setNewest(this.byId, toolCallId, args, MAX_JUDGED_CALLS);
	}

	get(toolCallId: string): unknown {
		return this.byId.get(toolCallId);
	}

	clear(): void {
		this.byId.clear();
	}
}

/** What the pass needs beyond the targets. */
export interface CallPassDeps {
	feedback: RepairFeedbackHub;
	refusals: PendingRefusals;
	/** Told the arguments of every call the pass rewrote. */
	judged?: JudgedArgs;
	contained: Contained;
	/**
	 * The current model: its `maxTokens` is the output limit of the messages it
	 * wrote. Asked only for a message with malformed text: reading it makes pi
	 * look the model up.
	 */
	model?: () => RescueDeps["model"];
}

type WellFormedCall = ToolCallBlock & { arguments: Record<string, unknown> };

/** A call pi parsed: an arguments object and no `argumentsError`. */
function isWellFormedCall(block: ToolCallBlock): block is WellFormedCall {
	return block.argumentsError === undefined && typeof block.arguments === "object" && block.arguments !== null;
}

/**
 * The rescue's view of one message's targets. A failing repair leaves that
 * call as pi delivered it, and a failing bookkeeping step (telemetry, note
 * binding) never decides whether a call is rescued; both are contained and
 * reported.
 */
export function rescueDepsFor(
	target: (toolName: string) => CallTarget | undefined,
	feedback: RepairFeedbackHub,
	model: RescueDeps["model"],
	contained: Contained,
): RescueDeps {
	return {
		isWrapped: (name) => target(name) !== undefined,
		repair: (name, input, overrides) => contained(`rescue:${name}`, () => target(name)?.repairer.run(input, overrides)),
		onAttempt: ({ toolCallId, toolName, result }) =>
			contained(`rescue-feedback:${toolName}`, () => {
				const chosen = target(toolName)?.repairer;
				if (chosen === undefined) return;
				chosen.report(result);
				if (result.outcome === "repaired") feedback.bind(toolCallId, toolName, chosen.feedbackFor(result));
			}),
		// pi refuses the call with the model's own text; every shim (an adapted tool's included) hands it over unchanged.
		onUnrescued: (args) => markArgumentsRefused(args),
		model,
	};
}

/**
 * A replacement message with every call of a known tool judged once
 * (malformed text rescued, arguments repaired or refused), or `undefined`
 * when nothing changed. The input message is never mutated (only an
 * unrepairable call's arguments object gets the invisible refusal mark);
 * untouched blocks keep their identity. One call's failure inside the layer
 * leaves that call as pi delivered it and is reported.
 */
export function judgeToolCalls<M extends { role?: unknown; content?: unknown; stopReason?: unknown }>(
	message: M,
	target: (toolName: string) => CallTarget | undefined,
	deps: CallPassDeps,
): M | undefined {
	if (!callsMayRun(message)) return undefined;
	let rescue: { deps: RescueDeps; cut: boolean } | undefined;
	const rescueOf = () => {
		if (rescue !== undefined) return rescue;
		const model = deps.model?.();
		rescue = {
			deps: rescueDepsFor(target, deps.feedback, model, deps.contained),
			cut: reachedOutputLimit(message, model),
		};
		return rescue;
	};
	let content: unknown[] | undefined;
	message.content.forEach((block: unknown, index: number) => {
		if (!isToolCallBlock(block)) return;
		const found = target(block.name);
		if (found === undefined) return;
		const replacement = isWellFormedCall(block)
			? deps.contained(`judge:${block.name}`, () => decideCall(block, found, deps))
			: rescueCall(block, rescueOf().deps, rescueOf().cut);
		if (replacement === undefined) return;
		if (replacement.argumentsError === undefined) deps.judged?.record(block.id, replacement.arguments);
		content ??= [...message.content];
		content[index] = replacement;
	});
	return content === undefined ? undefined : { ...message, content };
}

/**
 * True when no stage of the pass has anything to change in `message`: each
 * call is a well-formed call of a tool `target` resolves (an active tool, so
 * its name is never renamed) whose arguments pass as sent (so it is never
 * judged), and no other part may hold a leak (`mayHoldLeak`, the grammar
 * stage's own first check). Most replies are such a message; each of its
 * calls is judged by the same valid path the pass would run.
 */
export function settledMessage(
	message: PassMessage,
	target: (toolName: string) => CallTarget | undefined,
	mayHoldLeak: (part: never) => boolean,
): boolean {
	if (message.role !== "assistant" || !Array.isArray(message.content)) return false;
	for (const block of message.content as unknown[]) {
		if (!isToolCallBlock(block)) {
			if (mayHoldLeak(block as never)) return false;
			continue;
		}
		if (!isWellFormedCall(block)) return false;
		const found = target(block.name);
		if (found === undefined || !found.repairer.passesAsSent(block.arguments)) return false;
	}
	return true;
}

function decideCall(block: WellFormedCall, target: CallTarget, deps: CallPassDeps): ToolCallBlock | undefined {
	const { repairer } = target;
	const result: RepairPipelineResult = repairer.run(block.arguments);
	if (result.outcome === "valid") return undefined;
	repairer.report(result);
	if (result.outcome === "repaired") {
		// The call still runs repaired when its note cannot be bound; only the note is lost.
		deps.contained(`bind:${block.name}`, () => deps.feedback.bind(block.id, block.name, repairer.feedbackFor(result)));
		return { ...block, arguments: result.args };
	}
	if (target.builtin) {
		const retry = repairer.retryText(result);
		if (retry === undefined) return undefined;
		markArgumentsRefused(block.arguments);
		return { ...block, argumentsError: retry };
	}
	// Another owner's tool: pi's own validation and message where pi refuses, pi's run where its coercion is lossless.
	const coerced = piCoercion(block.name, repairer.spec.schema, block.arguments);
	if (coerced === undefined || losslessCoercion(block.arguments, coerced.value)) return undefined;
	const retry = repairer.retryText(result);
	if (retry !== undefined) deps.refusals.hold(block.id, { retry, coerced: coerced.value });
	return undefined;
}
