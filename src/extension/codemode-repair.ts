/**
 * Opt-in repair of codemode's nested calls (`codemodeRepair` in the settings
 * file, off by default).
 *
 * Calls a codemode script makes through `ctx.executeTool` never pass
 * `message_end`. The layer's own built-in overrides still repair them in
 * their `prepareArguments`; every other tool would go unrepaired. With the
 * setting on, the layer registers pi's own codemode tool (built by pi's
 * `createCodemodeExtension`, unchanged) with an `executeTool` that runs each
 * nested call of a tool the layer does not own through the same schema-rules
 * pipeline first. The cost: pi sees a second `codemode` registration, leaves
 * its built-in codemode extension out and says so at startup.
 *
 * Nested results reach only the script, so notes go to the parent codemode
 * call's result. An unrepairable nested call goes to pi as it is, except
 * where pi's coercion would accept it: that one comes back to the script as
 * a failed call with the retry message, and the tool does not run.
 */
import {
	createCodemodeExtension,
	type ExtensionAPI,
	type ExtensionToolContext,
	type ToolDefinition,
} from "@earendil-works/pi-coding-agent";
import type { RepairFeedbackHub } from "./feedback.ts";
import { type CallTarget, piWouldAccept } from "./message-repair.ts";

// biome-ignore lint/suspicious/noExplicitAny: codemode's definition is typed by pi with its own schema and details.
type AnyToolDefinition = ToolDefinition<any, any, any>;
type Outcome = Awaited<ReturnType<ExtensionToolContext["executeTool"]>>;

/** What a nested call becomes: the arguments to run it with, or a refusal to hand back to the script. */
export type NestedDecision = { args: unknown } | { refusal: string };

/** Decides one nested call of `toolName`, binding any notes to the parent codemode call. */
export function decideNestedCall(
	parentId: string,
	toolName: string,
	args: unknown,
	target: CallTarget | undefined,
	feedback: RepairFeedbackHub,
): NestedDecision {
	// Unknown tools and the layer's own overrides (repaired in prepareArguments) go on as they are.
	if (target === undefined || target.own) return { args };
	const { repairer } = target;
	const result = repairer.run(args);
	// The value the pipeline judged: the caller's own object for plain data, a copy of its one read otherwise.
	if (result.outcome === "valid") return { args: result.args };
	repairer.report(result);
	if (result.outcome === "repaired") {
		feedback.bind(parentId, toolName, repairer.feedbackFor(result));
		return { args: result.args };
	}
	if (!piWouldAccept(toolName, repairer.spec.schema, args)) return { args };
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
function repairingContext(
	ctx: ExtensionToolContext,
	parentId: string,
	decide: (parentId: string, toolName: string, args: unknown) => NestedDecision,
): ExtensionToolContext {
	let refused = 0;
	const executeTool: ExtensionToolContext["executeTool"] = (name, args, options) => {
		const decision = decide(parentId, name, args);
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

/** Registers pi's codemode tool with a repairing `executeTool`. */
export function registerRepairingCodemode(
	pi: ExtensionAPI,
	decide: (parentId: string, toolName: string, args: unknown) => NestedDecision,
): void {
	const codemode = piCodemodeDefinition(pi);
	pi.registerTool({
		...codemode,
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
	});
}
