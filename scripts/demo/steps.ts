/**
 * The demo's script: the classic tool-call mistakes, in order, each with what
 * the repair layer must do about it and what must be true in the workspace
 * afterwards. `run.ts` turns these steps into a script for the scripted
 * provider (`test/fixtures/scripted-provider.ts`), runs the real pi CLI once,
 * and checks every step against its expectation.
 *
 * A step is one or more assistant turns; every call in a turn has its own
 * expectation. Steps that need a feature the checkout may not have yet
 * (grammar-leak handling) name it in `requires`, and the runner leaves them
 * out, saying so, rather than pretending.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ScriptedToolCall, ScriptedTurn } from "../../test/fixtures/scripted-provider.ts";

/** What the repair layer did with one call, as the demo classifies it from the session. */
export type LayerVerdict = "valid" | "repaired" | "rescued" | "refused" | "promoted";

export interface CallExpectation {
	layer: LayerVerdict;
	/** Rule IDs that must be among those the layer recorded for the call (when the build records them). */
	rules?: readonly string[];
	/** Tokens the model-visible note(s) must contain: key names, tool names. */
	noteMentions?: readonly string[];
	/** The tool ran and succeeded. Default: true unless the call is refused. */
	toolSucceeds?: boolean;
}

export interface DemoTurn {
	turn: ScriptedTurn;
	/** One expectation per tool call of the turn (a promoted text call counts as the turn's call). */
	expect: readonly CallExpectation[];
}

export interface DemoStep {
	id: string;
	title: string;
	turns: readonly DemoTurn[];
	/** A feature the step needs; the runner leaves the step out when the checkout lacks it. */
	requires?: "grammar";
	/** Returns a problem with the workspace after the run, or undefined when all is as it should be. */
	checkWorkspace?: (workspace: string) => string | undefined;
}

/** The model the scripted provider plays: a DeepSeek id, so DSML grammar handling applies to it. */
export const DEMO_MODEL = "deepseek-demo";

/** Settings for the run: the `recover` profile, the only one that promotes grammar leaks to calls. */
export const DEMO_SETTINGS = { policyProfile: "recover", grammarRecovery: "recover" } as const;

/** The workspace before the run. */
export const DEMO_FILES: Readonly<Record<string, string>> = {
	"notes.md": "# Release notes\n\n- parser: faster start-up\n- cli: new --quiet flag\n",
	"config.txt": "mode = draft\nretries = 1\n",
	"docs/guide.md": "# Guide\n\nRun the demo with npm run demo.\n",
	"scratch/keep.txt": "This file must survive the demo.\n",
};

function fileHas(workspace: string, file: string, text: string): string | undefined {
	const path = join(workspace, file);
	if (!existsSync(path)) return `${file} does not exist`;
	return readFileSync(path, "utf8").includes(text) ? undefined : `${file} does not contain ${JSON.stringify(text)}`;
}

function call(name: string, args: Record<string, unknown>, id: string): ScriptedToolCall {
	return { id, name, arguments: args };
}

function raw(name: string, text: string, id: string): ScriptedToolCall {
	return { id, name, rawArguments: text };
}

const HELLO = "Hello from a call whose arguments arrived as one JSON string.\n";
const PROMOTED = "This file was written by a call the model printed as text.\n";

/** DeepSeek's DSML markup, printed as plain text instead of a native tool call. */
const DSML_LEAK = [
	"I will record that in a file.",
	"<｜DSML｜function_calls>",
	'<｜DSML｜invoke name="write">',
	'<｜DSML｜parameter name="path" string="true">from-text.txt</｜DSML｜parameter>',
	`<｜DSML｜parameter name="content" string="true">${PROMOTED}</｜DSML｜parameter>`,
	"</｜DSML｜invoke>",
	"</｜DSML｜function_calls>",
].join("\n");

export const DEMO_STEPS: readonly DemoStep[] = [
	{
		id: "read-alias",
		title: "read with file_path instead of path",
		turns: [
			{
				turn: { toolCalls: [call("read", { file_path: "notes.md" }, "demo-read-alias")] },
				expect: [{ layer: "repaired", rules: ["preprocess.exact-alias"], noteMentions: ["file_path", "path"] }],
			},
		],
	},
	{
		id: "edit-flat",
		title: "edit with flat old_string/new_string",
		turns: [
			{
				turn: {
					toolCalls: [
						call(
							"edit",
							{ path: "config.txt", old_string: "mode = draft", new_string: "mode = final" },
							"demo-edit-flat",
						),
					],
				},
				expect: [{ layer: "repaired", rules: ["foldFlatEditFields"], noteMentions: ["old_string", "new_string"] }],
			},
		],
		checkWorkspace: (workspace) => fileHas(workspace, "config.txt", "mode = final"),
	},
	{
		id: "edit-json-string",
		title: "edit with edits sent as a JSON string",
		turns: [
			{
				turn: {
					toolCalls: [
						call(
							"edit",
							{
								path: "config.txt",
								edits: JSON.stringify([{ old_string: "retries = 1", new_string: "retries = 3" }]),
							},
							"demo-edit-json",
						),
					],
				},
				expect: [{ layer: "repaired", rules: ["preprocess.exact-alias"], noteMentions: ["old_string", "oldText"] }],
			},
		],
		checkWorkspace: (workspace) => fileHas(workspace, "config.txt", "retries = 3"),
	},
	{
		id: "write-stringified",
		title: "write whose whole argument text is a JSON-stringified object",
		turns: [
			{
				turn: {
					toolCalls: [
						raw("write", JSON.stringify(JSON.stringify({ path: "hello.txt", content: HELLO })), "demo-write-string"),
					],
				},
				expect: [{ layer: "rescued", rules: ["envelope.decode-json"], noteMentions: ["write"] }],
			},
		],
		checkWorkspace: (workspace) => fileHas(workspace, "hello.txt", HELLO),
	},
	{
		id: "grep-null",
		title: "grep with null for an optional field",
		turns: [
			{
				turn: { toolCalls: [call("grep", { pattern: "retries", path: ".", glob: null }, "demo-grep-null")] },
				expect: [{ layer: "repaired", rules: ["dropNullOrUndefinedField"], noteMentions: ["glob", "null"] }],
			},
		],
	},
	{
		id: "ls-autolink",
		title: "ls with a markdown auto-link as the path",
		turns: [
			{
				turn: { toolCalls: [call("ls", { path: "[docs](http://docs)" }, "demo-ls-link")] },
				expect: [{ layer: "repaired", rules: ["preprocess.filesystem-path"], noteMentions: ["ls"] }],
			},
		],
	},
	{
		id: "bash-truncated",
		title: "bash call cut off inside its command string",
		turns: [
			{
				turn: { toolCalls: [raw("bash", '{"command":"rm -rf scratch && echo removed', "demo-bash-cut")] },
				expect: [{ layer: "refused" }],
			},
		],
		checkWorkspace: (workspace) =>
			existsSync(join(workspace, "scratch", "keep.txt"))
				? undefined
				: "scratch/keep.txt was deleted: the cut-off command ran",
	},
	{
		id: "garbage",
		title: "garbage arguments, then the model's corrected call",
		turns: [
			{
				turn: { toolCalls: [call("write", { target: 7, body: null }, "demo-write-garbage")] },
				expect: [{ layer: "refused" }],
			},
			{
				turn: {
					toolCalls: [
						call("write", { path: "summary.txt", content: "Mode is final, retries is 3.\n" }, "demo-write-retry"),
					],
				},
				expect: [{ layer: "valid" }],
			},
		],
		checkWorkspace: (workspace) => {
			for (const stray of ["null", "7", "undefined"]) {
				if (existsSync(join(workspace, stray))) return `a file named ${stray} was written from the garbage call`;
			}
			return fileHas(workspace, "summary.txt", "retries is 3");
		},
	},
	{
		id: "dsml-leak",
		title: "a write printed as DeepSeek DSML text instead of a tool call",
		requires: "grammar",
		turns: [
			{
				turn: { text: DSML_LEAK, stopReason: "stop" },
				expect: [{ layer: "promoted", rules: ["grammarRecovery:dsml"], noteMentions: ["dsml", "write"] }],
			},
		],
		checkWorkspace: (workspace) => fileHas(workspace, "from-text.txt", PROMOTED.trim()),
	},
	{
		id: "strict-null",
		title: "read with the nulls strict sampling sends for omitted optionals",
		turns: [
			{
				turn: { toolCalls: [call("read", { path: "notes.md", offset: null, limit: null }, "demo-read-strict")] },
				expect: [{ layer: "valid" }],
			},
		],
	},
];

/** The closing turn: plain text, so pi's loop ends. */
export const FINAL_TURN: ScriptedTurn = { text: "That was every classic mistake. Done.", stopReason: "stop" };
