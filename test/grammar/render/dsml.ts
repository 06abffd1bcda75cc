/**
 * Writes a call as a DSML block, for the round-trip property test. Every
 * value goes out as `string="false"` JSON, so any JSON value comes back as
 * itself.
 *
 * Limits (`renderable`): keys hold no quote, angle bracket or newline (they
 * sit in an attribute), and no argument text mentions `dsml` (it would read
 * as a tag).
 */
export interface RenderableCall {
	name: string;
	arguments: Record<string, unknown>;
}

const BAR = "\uff5c";
const tag = (name: string) => `<${BAR}DSML${BAR}${name}`;
const close = (name: string) => `</${BAR}DSML${BAR}${name}>`;

export function renderable(call: RenderableCall): boolean {
	if (JSON.stringify(call).toLowerCase().includes("dsml")) return false;
	return Object.keys(call.arguments).every((key) => !/["'<>\n\r]/.test(key));
}

export function render(call: RenderableCall): string {
	const parameters = Object.entries(call.arguments).map(
		([key, value]) => `${tag("parameter")} name="${key}" string="false">${JSON.stringify(value)}${close("parameter")}`,
	);
	return [
		"Running it now.",
		`${tag("tool_calls")}>`,
		`${tag("invoke")} name="${call.name}">`,
		...parameters,
		close("invoke"),
		close("tool_calls"),
	].join("\n");
}
