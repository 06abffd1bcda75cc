/**
 * Split calls: one call sent in two halves. The provider returns a native
 * tool call whose arguments are `{}`, and the same call's arguments leak into
 * the message text as tool-call markup (about a quarter of DeepSeek V4 runs
 * behind one gateway, cline#13348: `tool_calls.arguments == "{}"` while the
 * content carries the `<｜DSML｜…>` block). Left alone, the empty call fails
 * validation and the leak is stripped: the model's intent is lost.
 *
 * The halves are merged into the native call (its ID kept) only when nothing
 * else could be meant: exactly one native call has empty arguments, exactly
 * one leaked call is written in the text, it names the same tool, the one
 * provenance rule says the model itself meant it as a call (not reasoning,
 * quoted, an echo or a mention), the tool runs no scripts, and the merged
 * arguments validate against the tool's schema. The leaked text then leaves
 * the message as a promotion would remove it. Anything else is no merge, and
 * the message goes on to the ordinary leak handling.
 *
 * Pure: never mutates its input; the changed part and message are copies.
 */
import { check } from "../core/validator.ts";
import { removeRanges } from "./ranges.ts";
import { judgeLeaks, scannableField } from "./recover.ts";
import { isPlainObject } from "./scan.ts";
import { typeArgumentsFromSchema } from "./schema-typing.ts";
import { runsScripts } from "./targets.ts";
import type { EchoIndex, GrammarName, MinimalAssistantMessage } from "./types.ts";

export interface SplitCallOptions {
	grammars: Iterable<GrammarName>;
	/** The tools a leak may name (active tools or the allow-list). */
	knownTools: ReadonlySet<string>;
	/** Parameter schemas by tool name: a tool without one is never merged into. */
	toolSchemas: ReadonlyMap<string, unknown>;
	/** The current turn's tool results and the user's message: a leak repeating one is an echo. */
	echoes: EchoIndex;
}

export interface SplitCallMerge {
	message: MinimalAssistantMessage;
	/** The native call's ID, kept. */
	callId: string;
	name: string;
	grammar: GrammarName;
}

type Part = MinimalAssistantMessage["content"][number];

/** True for a native call whose arguments are an empty plain object. */
function isEmptyCall(part: Part): part is { type: "toolCall"; id: string; name: string; arguments: object } {
	const call = part as { type?: unknown; id?: unknown; name?: unknown; arguments?: unknown };
	return (
		call.type === "toolCall" &&
		typeof call.id === "string" &&
		typeof call.name === "string" &&
		isPlainObject(call.arguments) &&
		Reflect.ownKeys(call.arguments).length === 0
	);
}

/** The merged message, or undefined when the halves are not unambiguously one call. */
export function mergeSplitCall(
	message: MinimalAssistantMessage,
	options: SplitCallOptions,
): SplitCallMerge | undefined {
	if (message?.role !== "assistant" || !Array.isArray(message.content)) return undefined;
	const empty = message.content.flatMap((part, index) => (isEmptyCall(part) ? [{ part, index }] : []));
	const native = empty[0];
	if (empty.length !== 1 || native === undefined) return undefined;
	const grammars = [...options.grammars];
	// Every call written in the text, whoever said it: with two, either could be the arguments.
	const leaks = message.content.flatMap((part, index) => {
		const field = scannableField(part);
		if (field === undefined) return [];
		const text = (part as Record<string, unknown>)[field] as string;
		return judgeLeaks(text, field, grammars, options.echoes)
			.filter(({ candidate }) => candidate.stripOnly !== true && candidate.name !== "")
			.map((judged) => ({ ...judged, index, text }));
	});
	const leak = leaks[0];
	if (leaks.length !== 1 || leak === undefined || leak.who !== "call") return undefined;
	const { candidate } = leak;
	const name = native.part.name;
	if (candidate.name !== name || !options.knownTools.has(name)) return undefined;
	const schema = options.toolSchemas.get(name);
	if (schema === undefined || runsScripts(name, schema)) return undefined;
	const args = typeArgumentsFromSchema(candidate.arguments, schema, candidate.rawArguments);
	if (args === undefined || Object.keys(args).length === 0 || !check(schema as never, args)) return undefined;
	const content = [...message.content];
	const part = content[leak.index] as Record<string, unknown>;
	content[leak.index] = { ...part, text: removeRanges(leak.text, [candidate]) };
	content[native.index] = { ...native.part, arguments: args };
	return { message: { ...message, content }, callId: native.part.id, name, grammar: candidate.grammar };
}
