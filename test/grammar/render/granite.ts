/**
 * Writes a call as a bare pythonic line (`name(key=value, …)`), for the
 * round-trip property test: strings as double-quoted literals, `True`,
 * `False`, `None`, numbers and JSON for arrays and objects.
 *
 * Limits (`renderable`): keys are identifiers; top-level strings need no
 * escape beyond `\"` and `\\` (the pythonic reader unescapes only those).
 */
export interface RenderableCall {
	name: string;
	arguments: Record<string, unknown>;
}

const IDENTIFIER = /^[A-Za-z_][\w.-]*$/;
const PLAIN_KEY = /^[A-Za-z_]\w*$/;

function needsOnlySimpleEscapes(value: string): boolean {
	return !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(value);
}

export function renderable(call: RenderableCall): boolean {
	if (!IDENTIFIER.test(call.name)) return false;
	return Object.entries(call.arguments).every(
		([key, value]) => PLAIN_KEY.test(key) && (typeof value !== "string" || needsOnlySimpleEscapes(value)),
	);
}

function pythonValue(value: unknown): string {
	if (value === true) return "True";
	if (value === false) return "False";
	if (value === null) return "None";
	return JSON.stringify(value);
}

export function render(call: RenderableCall): string {
	const args = Object.entries(call.arguments).map(([key, value]) => `${key}=${pythonValue(value)}`);
	return `Let me check.\n${call.name}(${args.join(", ")})`;
}
