/**
 * A DeepSeek DSML `write` call as a model leaks it into its reply text, for
 * the end-to-end tests of leaked calls (string parameters, sentinel-framed).
 */
const BAR = "\uff5c";

export function dsmlWrite(path: string, content: string): string {
	return [
		`<${BAR}DSML${BAR}tool_calls>`,
		`<${BAR}DSML${BAR}invoke name="write">`,
		`<${BAR}DSML${BAR}parameter name="path" string="true">${path}</${BAR}DSML${BAR}parameter>`,
		`<${BAR}DSML${BAR}parameter name="content" string="true">${content}</${BAR}DSML${BAR}parameter>`,
		`</${BAR}DSML${BAR}invoke>`,
		`</${BAR}DSML${BAR}tool_calls>`,
	].join("\n");
}
