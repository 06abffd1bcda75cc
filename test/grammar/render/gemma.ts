/**
 * Writes a call in Gemma 4's tool-call token grammar, for the round-trip
 * property test: bare keys where they are identifiers (quoted otherwise),
 * strings between `<|"|>` markers, bare numbers and literals, nested objects
 * and arrays under the same rules.
 *
 * Limits (`renderable`): the name is an identifier, and no string (key or
 * value) contains the `<|"|>` marker itself.
 */
export interface RenderableCall {
	name: string;
	arguments: Record<string, unknown>;
}

const IDENTIFIER = /^[A-Za-z_][\w.-]*$/;
const MARK = '<|"|>';

function hasMarker(value: unknown): boolean {
	if (typeof value === "string") return value.includes(MARK);
	if (Array.isArray(value)) return value.some(hasMarker);
	if (typeof value === "object" && value !== null) {
		return Object.entries(value).some(([key, item]) => key.includes(MARK) || hasMarker(item));
	}
	return false;
}

export function renderable(call: RenderableCall): boolean {
	return IDENTIFIER.test(call.name) && !hasMarker(call.arguments);
}

function gemmaValue(value: unknown): string {
	if (typeof value === "string") return `${MARK}${value}${MARK}`;
	if (Array.isArray(value)) return `[${value.map(gemmaValue).join(",")}]`;
	if (typeof value === "object" && value !== null) {
		const entries = Object.entries(value).map(
			([key, item]) => `${IDENTIFIER.test(key) ? key : JSON.stringify(key)}:${gemmaValue(item)}`,
		);
		return `{${entries.join(",")}}`;
	}
	return JSON.stringify(value);
}

export function render(call: RenderableCall): string {
	return `<|tool_call>call:${call.name}${gemmaValue(call.arguments)}<tool_call|>`;
}
