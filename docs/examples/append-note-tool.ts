/**
 * A custom pi tool that repairs its own arguments and tells the model what it
 * fixed: the worked example of docs/tool-owner-integration.md.
 *
 * `adaptToolDefinition` wraps the tool's `prepareArguments`, so a call such as
 * `{"file": "log.md", "note": "hi", "tags": "[\"a\"]"}` is repaired to
 * `{path, text, tags: ["a"]}` before pi validates it. The adapter's
 * `onOutcome` queues the notes of a repaired call in a `RepairLifecycle`;
 * `execute` claims them by call ID and prepends them to its result with
 * `attachRepairNotes`, so the model learns the right shape. Garbage is refused
 * with a retry message and `execute` never runs.
 *
 * Load it into pi with `pi -e ./append-note-tool.ts` (after installing
 * pi-repair-layer next to it); its tests live in test/docs/examples.test.ts.
 */
import { appendFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { ExtensionAPI, ToolDefinition } from "@earendil-works/pi-coding-agent";
import { attachRepairNotes, type Preprocessor, RepairLifecycle } from "pi-repair-layer/core";
import { adaptToolDefinition } from "pi-repair-layer/pi";
import { Type } from "typebox";

const parameters = Type.Object({
	path: Type.String({ description: "File to append to, relative to the working directory" }),
	text: Type.String({ description: "The note" }),
	tags: Type.Optional(Type.Array(Type.String(), { description: "Tags written before the note" })),
});

// Only exact aliases you know your models send, plus path cleanup where a path lives.
const preprocessors: Preprocessor[] = [
	{ kind: "alias", selector: "/path", aliases: ["file_path", "file"], accepts: "string" },
	{ kind: "alias", selector: "/text", aliases: ["note", "content"], accepts: "string" },
	{ kind: "filesystem-path", selector: "/path" },
];

export function createAppendNoteTool(): ToolDefinition<typeof parameters> {
	const lifecycle = new RepairLifecycle();
	const tool: ToolDefinition<typeof parameters> = {
		name: "append_note",
		label: "Append note",
		description: "Appends one line to a notes file.",
		parameters,
		async execute(toolCallId, params, _signal, _onUpdate, ctx) {
			// Repairs are queued under (tool, arguments); the call ID binds them to this call.
			lifecycle.correlate("append_note", params, toolCallId);
			const feedback = lifecycle.take(toolCallId);
			const tags = params.tags?.length ? `[${params.tags.join(", ")}] ` : "";
			await appendFile(resolve(ctx.cwd, params.path), `${tags}${params.text}\n`);
			const content = [{ type: "text" as const, text: `Appended a note to ${params.path}.` }];
			return { content: attachRepairNotes(content, feedback?.notes ?? []), details: undefined };
		},
	};
	return adaptToolDefinition(tool, {
		preprocessors,
		onOutcome(result) {
			if (result.outcome !== "repaired") return;
			lifecycle.enqueue("append_note", result.args, {
				rules: [...new Set(result.changes.map((change) => change.ruleId))],
				notes: result.changes.map((change) => change.note),
				outcome: "repaired",
			});
		},
	});
}

export default function appendNoteExtension(pi: ExtensionAPI): void {
	pi.registerTool(createAppendNoteTool());
}
