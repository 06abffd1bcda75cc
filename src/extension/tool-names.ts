/**
 * Leaked tool names (off by default, setting `repairToolNames`): some models
 * and serving stacks hand a native call a name with template debris around it
 * (`functions.bash:0`, `<|tool_call|>read`, `write:`), another spelling of
 * the tool (`Bash`, `web-search` for `web_search`) or a common synonym
 * (`shell`, `execute_command` for `bash`). pi then refuses the call as an
 * unknown tool. At `message_end` such a call is renamed, but only when
 * exactly one active tool matches; otherwise it is left for pi to refuse.
 * Nothing here guesses by similarity: every match is an equality after a
 * fixed cleanup, or an entry of the alias table.
 */
import { RULE } from "../core/rule-ids.ts";
import type { RepairFeedback } from "../core/types.ts";
import { isToolCallBlock } from "./tool-call-block.ts";

/** The rule ID recorded on a renamed call. */
export const RENAME_TOOL_NAME_RULE = RULE.renameLeakedToolName;

/** Synonyms models use for a built-in; a synonym only counts when its target is active. */
export const TOOL_NAME_ALIASES: Readonly<Record<string, string>> = { shell: "bash", execute_command: "bash" };

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
	if (activeTools.includes(name)) return undefined;
	const cleaned = cleanToolName(name);
	if (cleaned === "") return undefined;
	const key = spellingKey(cleaned);
	const matches = new Set(activeTools.filter((tool) => spellingKey(tool) === key));
	for (const [alias, target] of Object.entries(TOOL_NAME_ALIASES)) {
		if (spellingKey(alias) === key && activeTools.includes(target)) matches.add(target);
	}
	return matches.size === 1 ? [...matches][0] : undefined;
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
 * it matches, and the renames made; `undefined` when nothing was renamed.
 */
export function renameLeakedToolNames(
	message: { role?: unknown; content?: unknown; stopReason?: unknown },
	activeTools: readonly string[],
): { message: typeof message; renamed: RenamedCall[] } | undefined {
	if (message.role !== "assistant" || !Array.isArray(message.content)) return undefined;
	if (typeof message.stopReason !== "string" || !RUNNABLE_STOPS.has(message.stopReason)) return undefined;
	const renamed: RenamedCall[] = [];
	const content = message.content.map((part: unknown) => {
		if (!isToolCallBlock(part)) return part;
		const target = matchToolName(part.name, activeTools);
		if (target === undefined) return part;
		renamed.push({ toolCallId: part.id, from: part.name, to: target });
		return { ...part, name: target };
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
