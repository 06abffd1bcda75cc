/**
 * Writes a call in Kimi K3's XTML tool channel, for the round-trip property
 * tests: one `argument` element per key, typed from the value (`string`
 * verbatim, everything else as JSON under its JSON type).
 *
 * Limits (`renderable`): keys are non-empty and hold no quote or `&` (they sit
 * in an attribute, where `&` would read as an entity), and no text holds `<|`
 * (a token inside a value would end it early).
 */
export interface RenderableCall {
	name: string;
	arguments: Record<string, unknown>;
}

function typeOf(value: unknown): string {
	if (value === null) return "null";
	if (Array.isArray(value)) return "array";
	return typeof value;
}

export function renderable(call: RenderableCall): boolean {
	if (JSON.stringify(call).includes("<|") || /["&]/.test(call.name)) return false;
	return Object.keys(call.arguments).every((key) => key !== "" && !/["&]/.test(key));
}

export function render(call: RenderableCall): string {
	const args = Object.entries(call.arguments).map(([key, value]) => {
		const body = typeof value === "string" ? value : JSON.stringify(value);
		return `<|open|>argument key="${key}" type="${typeOf(value)}"<|sep|>${body}<|close|>argument<|sep|>`;
	});
	return [
		"On it.",
		"<|open|>tools<|sep|>",
		`<|open|>call tool="${call.name}" index="1"<|sep|>`,
		...args,
		"<|close|>call<|sep|>",
		"<|close|>tools<|sep|>",
	].join("");
}
