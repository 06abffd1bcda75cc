/**
 * Tool names in the saved history that a strict provider rejects.
 *
 * pi-ai replays every assistant tool call and tool result of the session
 * with the name it was saved under. A name the model made up or leaked
 * (`read file`, `functions.read:0`, a name over 64 characters) was an
 * unknown-tool error once; replayed, it makes a strict provider refuse the
 * whole request with a 400 (`^[a-zA-Z0-9_-]{1,64}$`, claude-code#603,
 * openai-dotnet#441), every request after it too, so one bad name ends the
 * session (opencode#48750, mastra#13632).
 *
 * So, in what is sent (pi's `context` event hands a copy of the messages for
 * each provider request), such a name is rewritten on the assistant's tool
 * call and on its result alike; the session file keeps the model's name. A
 * name pi knows as a tool is never touched, whatever its spelling: it is
 * declared under that name, so the history agrees with the declaration.
 *
 * The rewrite is deterministic and collision-free: the name's characters
 * outside the safe set become `_`, a hash of the whole name is appended, and
 * a name already in the history or among pi's tools is never produced, so
 * two different names never meet and the same history always reads the same
 * (which keeps the provider's prompt cache valid from request to request).
 */
import { fnv1a } from "../../core/issues.ts";
import { isRecord } from "../../core/json-value.ts";
import { codeMinus, isDigit, isIdentifierStart } from "../../grammar/scan/chars.ts";

const MAX_NAME_LENGTH = 64;
/** `_` and eight hex digits of the hash. */
const SUFFIX_LENGTH = 9;

/** A character every strict provider accepts in a tool name: `[A-Za-z0-9_-]`. */
function isSafeNameChar(code: number): boolean {
	return isIdentifierStart(code) || isDigit(code) || code === codeMinus;
}

/**
 * True when every strict provider accepts `name` as a tool name
 * (`^[A-Za-z0-9_-]{1,64}$`). Asked of every name of every message pi
 * finishes, so it is a loop over the characters, not a regular expression.
 */
export function isProviderSafeToolName(name: string): boolean {
	if (name.length === 0 || name.length > MAX_NAME_LENGTH) return false;
	for (let index = 0; index < name.length; index++) if (!isSafeNameChar(name.charCodeAt(index))) return false;
	return true;
}

/** The safe spelling of `name` that no name in `taken` already has; adds it to `taken`. */
function safeNameFor(name: string, taken: Set<string>): string {
	let safe = "";
	for (let index = 0; index < name.length; index++)
		safe += isSafeNameChar(name.charCodeAt(index)) ? name.charAt(index) : "_";
	const base = safe.slice(0, MAX_NAME_LENGTH - SUFFIX_LENGTH) || "tool";
	let candidate = `${base}_${fnv1a(name)}`;
	// A hash collision with a name in use is next to impossible; a counter keeps even that case apart.
	for (let n = 1; taken.has(candidate); n++) {
		const counter = `_${n}`;
		candidate = `${base.slice(0, MAX_NAME_LENGTH - SUFFIX_LENGTH - counter.length)}${counter}_${fnv1a(name)}`;
	}
	taken.add(candidate);
	return candidate;
}

interface ToolCallPart {
	type: "toolCall";
	name: string;
	[key: string]: unknown;
}

function isToolCallPart(part: unknown): part is ToolCallPart {
	return isRecord(part) && part.type === "toolCall" && typeof part.name === "string";
}

/** Calls `visit` with every tool name one message carries (its tool calls, or its result's tool) until it answers true. */
function someNameIn(message: unknown, visit: (name: string) => boolean): boolean {
	if (!isRecord(message)) return false;
	if (message.role === "toolResult") return typeof message.toolName === "string" && visit(message.toolName);
	if (message.role !== "assistant" || !Array.isArray(message.content)) return false;
	for (const part of message.content) if (isToolCallPart(part) && visit(part.name)) return true;
	return false;
}

/** Calls `visit` with every tool name the messages carry (assistant tool calls and tool results) until it answers true. */
function someName(messages: readonly unknown[], visit: (name: string) => boolean): boolean {
	for (const message of messages) if (someNameIn(message, visit)) return true;
	return false;
}

const isUnsafeName = (name: string) => !isProviderSafeToolName(name);

/** True when a tool name the messages carry (on a call or a result) is one a strict provider rejects. */
function holdsUnsafeName(messages: readonly unknown[]): boolean {
	return someName(messages, isUnsafeName);
}

/** How many names proven safe {@link UnsafeNames} keeps: a session calls a few tools, a model may invent many. */
const MAX_PROVEN_SAFE = 64;

/**
 * {@link holdsUnsafeName} for one message at a time, keeping the names it
 * found safe: every message pi finishes is asked, and nearly all carry a
 * name asked before. Whether a name is safe depends on the name alone.
 */
export class UnsafeNames {
	private readonly provenSafe = new Set<string>();

	/** True when `message` carries a tool name a strict provider rejects. */
	inMessage(message: unknown): boolean {
		return someNameIn(message, this.isUnsafe);
	}

	private readonly isUnsafe = (name: string): boolean => {
		if (this.provenSafe.has(name)) return false;
		if (!isProviderSafeToolName(name)) return true;
		if (this.provenSafe.size < MAX_PROVEN_SAFE) this.provenSafe.add(name);
		return false;
	};
}

/** The messages a session's entries hold (pi's `message` entries), in order. */
export function savedMessages(entries: readonly unknown[]): unknown[] {
	const messages: unknown[] = [];
	for (const entry of entries) if (isRecord(entry) && entry.type === "message") messages.push(entry.message);
	return messages;
}

/** Every tool name the messages carry: on assistant tool calls and on tool results. */
function namesIn(messages: readonly unknown[]): Set<string> {
	const names = new Set<string>();
	someName(messages, (name) => {
		names.add(name);
		return false;
	});
	return names;
}

/**
 * The rewrite of each name in `messages` a strict provider rejects and pi
 * does not know as a tool; empty when there is none. Names are assigned in
 * sorted order, so the result depends only on the set of names. pi's tool
 * names are asked for only when some name is unsafe: a request is sent on
 * every turn, and almost every history has none.
 */
export function providerSafeNames(
	messages: readonly unknown[],
	knownTools: Iterable<string> | (() => Iterable<string>),
): Map<string, string> {
	const renames = new Map<string, string>();
	if (!holdsUnsafeName(messages)) return renames;
	const names = namesIn(messages);
	const known = new Set(typeof knownTools === "function" ? knownTools() : knownTools);
	const unsafe = [...names].filter((name) => !known.has(name) && !isProviderSafeToolName(name)).sort();
	if (unsafe.length === 0) return renames;
	const taken = new Set([...names, ...known]);
	for (const name of unsafe) renames.set(name, safeNameFor(name, taken));
	return renames;
}

/**
 * The messages with each rejected tool name rewritten (tool calls and tool
 * results alike), or undefined when none needs it. Changed messages and
 * parts are copies; the input is never mutated.
 */
export function withProviderSafeToolNames(
	messages: readonly unknown[],
	knownTools: Iterable<string> | (() => Iterable<string>),
): { messages: unknown[]; renamed: number } | undefined {
	const renames = providerSafeNames(messages, knownTools);
	if (renames.size === 0) return undefined;
	const out = messages.map((message) => {
		if (!isRecord(message)) return message;
		if (message.role === "toolResult" && typeof message.toolName === "string") {
			const to = renames.get(message.toolName);
			return to === undefined ? message : { ...message, toolName: to };
		}
		if (message.role !== "assistant" || !Array.isArray(message.content)) return message;
		let changed = false;
		const content = message.content.map((part: unknown) => {
			if (!isToolCallPart(part)) return part;
			const to = renames.get(part.name);
			if (to === undefined) return part;
			changed = true;
			return { ...part, name: to };
		});
		return changed ? { ...message, content } : message;
	});
	return { messages: out, renamed: renames.size };
}
