/**
 * Writes a call in Kimi's sentinel-token grammar, for the round-trip property
 * test (`render` a call, parse it back equal).
 *
 * Limits (`renderable`): the name is an identifier, and the argument text holds
 * no `<|` (a Kimi token inside it would end the call early).
 */
export interface RenderableCall {
	name: string;
	arguments: Record<string, unknown>;
}

const IDENTIFIER = /^[A-Za-z_][\w.-]*$/;

export function renderable(call: RenderableCall): boolean {
	return IDENTIFIER.test(call.name) && !JSON.stringify(call.arguments).includes("<|");
}

export function render(call: RenderableCall): string {
	return [
		"<|tool_calls_section_begin|>",
		`<|tool_call_begin|>functions.${call.name}:0`,
		`<|tool_call_argument_begin|>${JSON.stringify(call.arguments)}`,
		"<|tool_call_end|>",
		"<|tool_calls_section_end|>",
	].join("");
}
