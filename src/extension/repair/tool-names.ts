/**
 * Leaked tool names (off by default, setting `repairToolNames`): some models
 * and serving stacks hand a native call a name with template debris around it
 * (`functions.bash:0`, `<|tool_call|>read`, `write:`), another spelling of
 * the tool (`Bash`, `web-search` for `web_search`) or a common synonym
 * (`shell`, `execute_command` for `bash`). pi then refuses the call as an
 * unknown tool. At `message_end` such a call is renamed, but only when
 * exactly one active tool matches, and only when the rename keeps the call's
 * meaning: every argument key the model sent is declared by that tool, the
 * arguments validate against its schema as sent (no conversion), and a
 * synonym carries only the keys whose meaning it shares with its target
 * (`execute_command {command, cwd, requires_approval}` is another agent's
 * tool: run as `bash` it would run in the wrong directory, and another
 * agent's `timeout` may be milliseconds where `bash` reads seconds).
 * Otherwise the call is left for pi to refuse. Nothing here guesses by
 * similarity: every match is an equality after a fixed cleanup, or an entry
 * of the alias table.
 */
import { isRecord } from "../../core/json-value.ts";
import { RULE } from "../../core/rule-ids.ts";
import { propertiesOf } from "../../core/schema-shape.ts";
import type { RepairFeedback } from "../../core/types.ts";
import { check } from "../../core/validator.ts";
import { isToolCallBlock } from "./tool-call-block.ts";

/** The rule ID recorded on a renamed call. */
export const RENAME_TOOL_NAME_RULE = RULE.renameLeakedToolName;

/**
 * Synonyms models use for a built-in, with the argument keys whose meaning
 * the synonym shares with its target; a synonym only counts when its target
 * is active, and only for a call that sends no other key.
 */
export const TOOL_NAME_ALIASES: Readonly<Record<string, { tool: string; sharedKeys: readonly string[] }>> = {
	shell: { tool: "bash", sharedKeys: ["command"] },
	execute_command: { tool: "bash", sharedKeys: ["command"] },
};

// `<|…|>` and `<｜…｜>` template tokens, and bare `<tag>` / `</tag>` markers.
const TEMPLATE_TOKEN = /<[|｜][^<>]*?[|｜]>|<\/?[A-Za-z_][\w-]*>/g;
const FUNCTIONS_FORM = /^functions\.(.+?)(?::\d+)?$/;

/** The name with leaked template tokens, a `functions.` prefix with its `:IDX`, and trailing colons removed. */
export function cleanToolName(name: string): string {
	let cleaned = name.replace(TEMPLATE_TOKEN, "").trim();
	const functions = FUNCTIONS_FORM.exec(cleaned);
	if (functions?.[1] !== undefined) cleaned = functions[1];
	return cleaned.replace(/:+$/, "").trim();
}

/** Case and `-`/`_` differences do not separate two names. */
function spellingKey(name: string): string {
	return name.toLowerCase().replace(/[-_]/g, "");
}

/**
 * The one active tool `name` stands for, or `undefined` when the name is
 * already active, matches no tool, or matches more than one.
 */
export function matchToolName(name: string, activeTools: readonly string[]): string | undefined {
	return resolveToolName(name, activeTools)?.tool;
}

/** {@link matchToolName}, with the keys a synonym may carry (`undefined`: a spelling match, every declared key). */
function resolveToolName(
	name: string,
	activeTools: readonly string[],
): { tool: string; sharedKeys?: readonly string[] } | undefined {
	if (activeTools.includes(name)) return undefined;
	const cleaned = cleanToolName(name);
	if (cleaned === "") return undefined;
	const key = spellingKey(cleaned);
	const matches = new Map<string, readonly string[] | undefined>();
	for (const tool of activeTools) if (spellingKey(tool) === key) matches.set(tool, undefined);
	for (const [alias, target] of Object.entries(TOOL_NAME_ALIASES)) {
		if (spellingKey(alias) === key && activeTools.includes(target.tool) && !matches.has(target.tool)) {
			matches.set(target.tool, target.sharedKeys);
		}
	}
	const only = matches.size === 1 ? [...matches][0] : undefined;
	if (only === undefined) return undefined;
	const [tool, sharedKeys] = only;
	return sharedKeys === undefined ? { tool } : { tool, sharedKeys };
}

/**
 * True when `args`, sent under another name, mean the same to the tool of
 * `schema`: an object, every key declared by the schema (and, for a synonym,
 * one of the keys it shares), and valid against the schema exactly as sent.
 */
export function keepsMeaning(schema: unknown, args: unknown, sharedKeys?: readonly string[]): boolean {
	if (!isRecord(schema) || !isRecord(args)) return false;
	const declared = propertiesOf(schema) ?? {};
	for (const key of Object.keys(args)) {
		if (!Object.hasOwn(declared, key)) return false;
		if (sharedKeys !== undefined && !sharedKeys.includes(key)) return false;
	}
	return check(schema, args);
}

export function renameToolNameNote(from: string, to: string): string {
	return `No tool is named "${from}"; the call was run as ${to}, the one available tool that name stands for. Call tools by their exact names.`;
}

export interface RenamedCall {
	toolCallId: string;
	from: string;
	to: string;
}

// A failed, aborted or cut-off message runs nothing, so none of its calls is renamed.
const RUNNABLE_STOPS = new Set(["toolUse", "stop"]);

/**
 * The message with each call to an unknown tool renamed to the one active tool
 * it matches, where the rename keeps the call's meaning ({@link keepsMeaning}
 * against the schema `schemaOf` gives for that tool), and the renames made;
 * `undefined` when nothing was renamed.
 */
export function renameLeakedToolNames(
	message: { role?: unknown; content?: unknown; stopReason?: unknown },
	activeTools: readonly string[],
	schemaOf: (toolName: string) => unknown,
): { message: typeof message; renamed: RenamedCall[] } | undefined {
	if (message.role !== "assistant" || !Array.isArray(message.content)) return undefined;
	if (typeof message.stopReason !== "string" || !RUNNABLE_STOPS.has(message.stopReason)) return undefined;
	const renamed: RenamedCall[] = [];
	const content = message.content.map((part: unknown) => {
		if (!isToolCallBlock(part) || part.argumentsError !== undefined) return part;
		const target = resolveToolName(part.name, activeTools);
		if (target === undefined || !keepsMeaning(schemaOf(target.tool), part.arguments, target.sharedKeys)) return part;
		renamed.push({ toolCallId: part.id, from: part.name, to: target.tool });
		return { ...part, name: target.tool };
	});
	return renamed.length === 0 ? undefined : { message: { ...message, content }, renamed };
}

/** The feedback bound to a renamed call, so its result carries the note. */
export function renameFeedback(call: RenamedCall, profile: string, model: string | undefined): RepairFeedback {
	const feedback: RepairFeedback = {
		rules: [RENAME_TOOL_NAME_RULE],
		notes: [renameToolNameNote(call.from, call.to)],
		stages: ["tool-name"],
		profile,
		outcome: "repaired",
	};
	if (model !== undefined) feedback.model = model;
	return feedback;
}

/**
 * pi's refusal of a call to an unknown tool (`Tool X not found`) with the
 * active tool names added, so the model can pick the right one; `undefined`
 * for any other message. pi answers such a call without the result hooks,
 * so this runs on the tool-result message itself.
 */
export function withAvailableTools(
	message: { role?: unknown; toolName?: unknown; isError?: unknown; content?: unknown },
	activeTools: readonly string[],
): typeof message | undefined {
	if (message.role !== "toolResult" || message.isError !== true || typeof message.toolName !== "string")
		return undefined;
	if (activeTools.includes(message.toolName) || !Array.isArray(message.content)) return undefined;
	const refusal = `Tool ${message.toolName} not found`;
	const content = message.content as unknown[];
	const matches = content.some(
		(part) => typeof part === "object" && part !== null && (part as { text?: unknown }).text === refusal,
	);
	if (!matches) return undefined;
	const listing = `The available tools are: ${activeTools.join(", ") || "(none)"}. Call one of them by its exact name.`;
	return { ...message, content: [...content, { type: "text", text: listing }] };
}
