/**
 * Writes a call in GLM's `<arg_key>`/`<arg_value>` form, for the round-trip
 * property test. Values are written as JSON, read back by loose coercion.
 *
 * Limits (`renderable`): keys are non-blank, carry no surrounding whitespace
 * and hold no `<`; no argument text holds `<`.
 */
export interface RenderableCall {
	name: string;
	arguments: Record<string, unknown>;
}

export function renderable(call: RenderableCall): boolean {
	if (JSON.stringify(call.arguments).includes("<")) return false;
	return Object.keys(call.arguments).every((key) => key !== "" && key === key.trim() && !key.includes("<"));
}

export function render(call: RenderableCall): string {
	const pairs = Object.entries(call.arguments).map(
		([key, value]) => `<arg_key>${key}</arg_key>\n<arg_value>${JSON.stringify(value)}</arg_value>`,
	);
	return [`<tool_call>${call.name}`, ...pairs, "</tool_call>"].join("\n");
}
