/**
 * Opt-in repair of codemode's nested calls (`codemodeRepair` in the settings
 * file, off by default).
 *
 * Calls a codemode script makes through `ctx.executeTool` never pass
 * `message_end`, and the layer registers no tool over any other, so by
 * default they run exactly as pi alone runs them (pi's own shim, validation
 * and coercion). With the setting on, the layer registers pi's own codemode
 * tool (built by pi's `createCodemodeExtension`, unchanged) with an
 * `executeTool` that judges each nested call first, the way `message_end`
 * judges a model's call: pi's built-ins with the built-in tables, fail
 * closed; every other tool with its schema rules, after its owner's own
 * shim (which pi hands a running tool in `ctx.tools`). It does so only
 * while pi's own codemode holds the name: another extension's `codemode`
 * is never replaced (see `CodemodeOwnership`). The cost: pi sees a second
 * `codemode` registration and leaves its built-in codemode extension out.
 *
 * Nested results reach only the script, so notes go to the parent codemode
 * call's result. An unrepairable nested call of another owner's tool goes to
 * pi as it is, except where pi's coercion would run it with a changed
 * meaning: that one comes back to the script as a failed call with the retry
 * message, and the tool does not run.
 */
import {
	createCodemodeExtension,
	type ExtensionAPI,
	type ExtensionToolContext,
	type ToolDefinition,
	type ToolInfo,
} from "@earendil-works/pi-coding-agent";
import { cloneJson } from "../../core/clone.ts";
import type { RepairFeedbackHub } from "./feedback.ts";
import { type CallTarget, losslessCoercion, piCoercion } from "./message-repair.ts";
import { isPiCoreTool, ownSchemaCopy } from "./tool-owners.ts";

// biome-ignore lint/suspicious/noExplicitAny: codemode's definition is typed by pi with its own schema and details.
type AnyToolDefinition = ToolDefinition<any, any, any>;
type Outcome = Awaited<ReturnType<ExtensionToolContext["executeTool"]>>;
type Shim = (args: unknown) => unknown;

/** What a nested call becomes: the arguments to run it with, or a refusal to hand back to the script. */
export type NestedDecision = { args: unknown } | { refusal: string };

/**
 * Decides one nested call of `toolName`, binding any notes to the parent
 * codemode call. `ownerShim` is the tool's own `prepareArguments` as pi
 * hands it to the running script.
 */
export function decideNestedCall(
	parentId: string,
	toolName: string,
	args: unknown,
	target: CallTarget | undefined,
	feedback: RepairFeedbackHub,
	ownerShim?: Shim,
): NestedDecision {
	if (target === undefined) return { args };
	const repairer =
		target.builtin || ownerShim === undefined ? target.repairer : target.repairer.withOwnerShim(ownerShim);
	const result = repairer.run(args);
	// The value the pipeline judged: the caller's own object for plain data, a copy of its one read otherwise.
	if (result.outcome === "valid") return { args: result.args };
	repairer.report(result);
	if (result.outcome === "repaired") {
		feedback.bind(parentId, toolName, repairer.feedbackFor(result));
		return { args: result.args };
	}
	if (!target.builtin) {
		// What pi would run: the owner's shim, then pi's coercion; a lossless run or pi's own refusal is pi's.
		const shimmed = ownerShim === undefined ? args : ownerShim(cloneJson(args));
		const coerced = piCoercion(toolName, repairer.spec.schema, shimmed);
		if (coerced === undefined || losslessCoercion(shimmed, coerced.value)) return { args };
	}
	const retry = repairer.retryText(result);
	return retry === undefined ? { args } : { refusal: retry };
}

/** The failed outcome a refused nested call hands back to the script, shaped like pi's own validation failure. */
function refusedOutcome(callId: string, toolName: string, args: unknown, text: string): Outcome {
	return {
		toolCall: { type: "toolCall", id: callId, name: toolName, arguments: args as never },
		result: { content: [{ type: "text", text }], details: undefined },
		isError: true,
	};
}

/** `ctx` with a repairing `executeTool`; everything else is read through to the real (frozen) context. */
function repairingContext(ctx: ExtensionToolContext, parentId: string, decide: NestedCallJudge): ExtensionToolContext {
	let refused = 0;
	const executeTool: ExtensionToolContext["executeTool"] = (name, args, options) => {
		const shim = ctx.tools.find((tool) => tool.name === name)?.prepareArguments;
		const decision = decide(parentId, name, args, shim);
		if ("refusal" in decision) {
			refused++;
			return Promise.resolve(refusedOutcome(`${parentId}/refused-${refused}`, name, args, decision.refusal));
		}
		return ctx.executeTool(name, decision.args, options);
	};
	return Object.create(ctx, { executeTool: { value: executeTool, enumerable: true } }) as ExtensionToolContext;
}

/** pi's codemode definition, as its own extension factory builds it, captured instead of registered. */
export function piCodemodeDefinition(pi: ExtensionAPI): AnyToolDefinition {
	let captured: AnyToolDefinition | undefined;
	const capturing = new Proxy(pi, {
		get(target, property) {
			if (property === "registerTool") {
				return (definition: AnyToolDefinition) => {
					captured = definition;
				};
			}
			return Reflect.get(target, property, target);
		},
	});
	void createCodemodeExtension()(capturing);
	if (captured === undefined) throw new Error("pi's codemode extension registered no tool");
	return captured;
}

/** Judges one nested call; `shim` is the called tool's own `prepareArguments`, when it has one. */
export type NestedCallJudge = (parentId: string, toolName: string, args: unknown, shim?: Shim) => NestedDecision;

/** pi's own codemode definition with a repairing `executeTool` and its own copy of the schema object. */
export function repairingCodemode(codemode: AnyToolDefinition, decide: NestedCallJudge): AnyToolDefinition {
	return {
		...codemode,
		// Its own schema object tells the layer's registration apart from pi's, which shares pi's schema.
		parameters: ownSchemaCopy(codemode.parameters),
		execute(toolCallId, params, signal, onUpdate, ctx) {
			return codemode.execute.call(
				codemode,
				toolCallId,
				params,
				signal,
				onUpdate,
				repairingContext(ctx, toolCallId, decide),
			);
		},
	};
}

/** Who holds the `codemode` name, as pi reports it. */
export type CodemodeHolder = "none" | "pi" | "layer" | "other";

const CODEMODE_LINES: Readonly<Record<CodemodeHolder, string | undefined>> = {
	layer: "Tool repair: codemode is re-registered to repair nested calls (codemodeRepair).",
	pi: "Tool repair: codemodeRepair is on, but pi's own codemode loads before the layer, so its nested calls run as pi runs them.",
	other:
		"Tool repair: codemodeRepair is on, but `codemode` belongs to another extension, so the layer leaves it and its nested calls alone.",
	none: undefined,
};

/** What the commands and the startup warning say about who holds `codemode` under `codemodeRepair`. */
export function codemodeLine(holder: CodemodeHolder): string | undefined {
	return CODEMODE_LINES[holder];
}

/**
 * Registers the repairing codemode only while pi's own codemode (or none)
 * holds the name, so another extension's `codemode` is never replaced, and
 * says who holds it.
 */
export class CodemodeOwnership {
	private readonly pi: Pick<ExtensionAPI, "registerTool" | "getAllTools">;
	private readonly piSchema: unknown;
	private readonly ours: AnyToolDefinition;
	private registered = false;

	constructor(pi: ExtensionAPI, decide: NestedCallJudge) {
		this.pi = pi;
		const codemode = piCodemodeDefinition(pi);
		this.piSchema = codemode.parameters;
		this.ours = repairingCodemode(codemode, decide);
	}

	/** Who holds `codemode` now. */
	holder(): CodemodeHolder {
		const tool = this.pi.getAllTools().find((candidate) => candidate.name === "codemode");
		if (tool === undefined) return "none";
		if (tool.parameters === this.ours.parameters) return "layer";
		return this.isPis(tool) ? "pi" : "other";
	}

	/** Registers the layer's codemode where pi's own (or none) holds the name; returns the holder afterwards. */
	claim(): CodemodeHolder {
		const before = this.holder();
		if (this.registered || (before !== "none" && before !== "pi")) return before;
		this.registered = true;
		this.pi.registerTool(this.ours);
		return this.holder();
	}

	/**
	 * pi's own codemode: pi's schema object, registered by pi's built-in
	 * extension or by an SDK host's own factory list (`<inline:…>`). An
	 * extension loaded from a package or file is another owner, even when it
	 * spreads pi's definition.
	 */
	private isPis(tool: ToolInfo): boolean {
		if (tool.parameters !== this.piSchema) return false;
		return isPiCoreTool(tool) || tool.sourceInfo.path.startsWith("<inline:");
	}
}
