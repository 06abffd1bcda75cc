/**
 * Writes a call in Mistral's `[TOOL_CALLS]` array grammar, for the round-trip
 * property test.
 *
 * Limits (`renderable`): the arguments must survive argument normalization, so
 * they may not hold an `arguments` key whose value is a string or an object
 * (normalization unwraps it); the name is not blank.
 */
export interface RenderableCall {
	name: string;
	arguments: Record<string, unknown>;
}

export function renderable(call: RenderableCall): boolean {
	const inner = call.arguments.arguments;
	const unwraps = typeof inner === "string" || (typeof inner === "object" && inner !== null && !Array.isArray(inner));
	return call.name.trim() === call.name && call.name !== "" && !unwraps;
}

export function render(call: RenderableCall): string {
	return `[TOOL_CALLS] ${JSON.stringify([{ name: call.name, arguments: call.arguments, id: "a1B2c3D4e" }])}`;
}
