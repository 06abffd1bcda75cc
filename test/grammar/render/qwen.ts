/**
 * Writes a call in Qwen3-Coder's `<function=…>` XML, for the round-trip
 * property test. Values are written as JSON, which loose coercion reads back
 * as the same value (a string as a JSON string literal).
 *
 * Limits (`renderable`): keys are non-blank, untrimmed-free and hold no angle
 * bracket; no argument text holds `<`.
 */
export interface RenderableCall {
	name: string;
	arguments: Record<string, unknown>;
}

export function renderable(call: RenderableCall): boolean {
	if (JSON.stringify(call.arguments).includes("<")) return false;
	return Object.keys(call.arguments).every((key) => key !== "" && key === key.trim() && !/[<>]/.test(key));
}

export function render(call: RenderableCall): string {
	const parameters = Object.entries(call.arguments).map(
		([key, value]) => `<parameter=${key}>\n${JSON.stringify(value)}\n</parameter>`,
	);
	return ["<tool_call>", `<function=${call.name}>`, ...parameters, "</function>", "</tool_call>"].join("\n");
}
