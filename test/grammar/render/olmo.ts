/**
 * Writes a call in OLMo 3's `<function_calls>` pythonic grammar, for the
 * round-trip property test. Top-level strings become double-quoted Python
 * strings (backslash and quote escaped), `true`/`false`/`null` become
 * `True`/`False`/`None`, numbers their JSON form, arrays and objects JSON text
 * (which the pythonic reader parses as JSON).
 *
 * Limits (`renderable`): the name and every key are identifiers, and no value
 * contains `</function_calls>` (it would close the block early).
 */
export interface RenderableCall {
	name: string;
	arguments: Record<string, unknown>;
}

const IDENTIFIER = /^[A-Za-z_][\w.-]*$/;

export function renderable(call: RenderableCall): boolean {
	return (
		IDENTIFIER.test(call.name) &&
		Object.keys(call.arguments).every((key) => IDENTIFIER.test(key)) &&
		!JSON.stringify(call.arguments).toLowerCase().includes("</function_calls>")
	);
}

function pythonValue(value: unknown): string {
	if (value === true) return "True";
	if (value === false) return "False";
	if (value === null) return "None";
	if (typeof value === "string") return `"${value.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
	return JSON.stringify(value);
}

export function render(call: RenderableCall): string {
	const args = Object.entries(call.arguments)
		.map(([key, value]) => `${key}=${pythonValue(value)}`)
		.join(", ");
	return `<function_calls>\n${call.name}(${args})\n</function_calls>`;
}
