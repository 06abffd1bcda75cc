/**
 * Writes a call as `<invoke>` XML inside a `<minimax:tool_call>` wrapper, for
 * the round-trip property test. Values are JSON with `string="false"`.
 *
 * Limits (`renderable`): keys hold no quote, angle bracket or newline, and no
 * argument text holds `<` (values end at the next `</parameter>`).
 */
export interface RenderableCall {
	name: string;
	arguments: Record<string, unknown>;
}

export function renderable(call: RenderableCall): boolean {
	if (JSON.stringify(call.arguments).includes("<")) return false;
	return Object.keys(call.arguments).every((key) => !/["'<>\n\r]/.test(key));
}

export function render(call: RenderableCall): string {
	const parameters = Object.entries(call.arguments).map(
		([key, value]) => `<parameter name="${key}" string="false">${JSON.stringify(value)}</parameter>`,
	);
	return [
		"<minimax:tool_call>",
		`<invoke name="${call.name}">`,
		...parameters,
		"</invoke>",
		"</minimax:tool_call>",
	].join("\n");
}
