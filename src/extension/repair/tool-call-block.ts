/**
 * The one shape check of a `toolCall` content block in a finished assistant
 * message (pi-ai's `ToolCall`), shared by every `message_end` pass: the
 * tool-name repair, the malformed-JSON rescue and the schema repair each add
 * only what they need on top of it.
 */

/** A `toolCall` block with a string ID and name; its other fields are the caller's to check. */
export interface ToolCallBlock {
	type: "toolCall";
	id: string;
	name: string;
	arguments?: unknown;
	argumentsError?: unknown;
	[key: string]: unknown;
}

export function isToolCallBlock(block: unknown): block is ToolCallBlock {
	if (typeof block !== "object" || block === null) return false;
	const record = block as Record<string, unknown>;
	return record.type === "toolCall" && typeof record.id === "string" && typeof record.name === "string";
}
