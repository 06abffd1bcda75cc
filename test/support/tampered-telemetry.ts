/**
 * Telemetry records as someone with write access to the file could forge
 * them: names holding escape sequences (clear screen, set title, a C1 CSI),
 * line breaks that would forge report rows, a line separator and bidi
 * overrides. `/repair-stats` must show every one printable.
 */

export const TAMPERED_RECORDS: readonly Record<string, unknown>[] = [
	{
		ts: "2026-07-20T09:00:00.000Z",
		tool: "\u001b[2J\u001b]0;owned\u0007read\nRules fired:\n  forged: 99",
		model: "\u009b31mglm\r",
		owner: "\u001b[1mmcp",
		outcome: "repaired",
		rules: ["rule\r\n[pi-repair] forged", "\u202eevil"],
	},
	{
		ts: "2026-07-20T09:00:01.000Z",
		model: "m\u2028x",
		outcome: "stripped",
		channel: "message",
		rules: ["grammarStrip"],
		grammar: "dsml,\u001b[5mq",
	},
];

/** How the forged tool name must read on the screen. */
export const TAMPERED_TOOL_SHOWN = "?[2J?]0;owned?read?Rules fired:?  forged: 99";

/** Every C0 and C1 control but the newline that ends a line, DEL, line separators and bidi overrides. */
export const UNPRINTABLE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Lines that start with the forged row: a name that broke out of its own line. */
export function forgedLines(text: string): string[] {
	return text.split("\n").filter((line) => line.trim().startsWith("forged"));
}
