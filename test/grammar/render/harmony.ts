/**
 * Writes a call in gpt-oss's harmony grammar (the canonical commentary form),
 * for the round-trip property test.
 *
 * Limits (`renderable`): the name is an identifier, and the argument text
 * holds no `<|` (a harmony token inside the body would end it).
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
	return `<|start|>assistant<|channel|>commentary to=functions.${call.name} <|constrain|>json<|message|>${JSON.stringify(call.arguments)}<|call|>`;
}
