/**
 * Writes a call in MiniMax-Text-01's TypeScript-style grammar, for the
 * round-trip property test.
 *
 * Limits (`renderable`): the name is an identifier; the arguments hold no
 * `arguments` key with a string or object value (argument normalization would
 * unwrap it).
 */
export interface RenderableCall {
	name: string;
	arguments: Record<string, unknown>;
}

const IDENTIFIER = /^[A-Za-z_][\w.-]*$/;

export function renderable(call: RenderableCall): boolean {
	const inner = call.arguments.arguments;
	const unwraps = typeof inner === "string" || (typeof inner === "object" && inner !== null && !Array.isArray(inner));
	return IDENTIFIER.test(call.name) && !unwraps;
}

export function render(call: RenderableCall): string {
	return `<function_call>\`\`\`typescript\nfunctions.${call.name}(${JSON.stringify(call.arguments)})\n\`\`\``;
}
