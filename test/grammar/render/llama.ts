/**
 * Writes a call in Llama's `<|python_tag|>` JSON grammar (the Llama 3.1
 * `parameters` key), for the round-trip property test.
 *
 * Limits (`renderable`): the name is not blank and has no surrounding
 * spaces; the arguments hold no `arguments` key with a string or object value
 * (argument normalization would unwrap it).
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
	return `<|python_tag|>${JSON.stringify({ name: call.name, parameters: call.arguments })}<|eom_id|>`;
}
