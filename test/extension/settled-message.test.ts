/**
 * A settled message is one the names, grammar-leak and call stages of the
 * message_end pass leave as it is, so the pass skips them for it (most
 * replies: valid calls and plain prose). The claim is checked here against
 * those stages themselves, on messages mixing valid, repairable and
 * unrepairable calls, unknown and inactive tools, malformed argument text,
 * and prose or reasoning with and without leaked markup.
 */
import { parseToolCallArguments } from "@earendil-works/pi-ai";
import type { ToolInfo } from "@earendil-works/pi-coding-agent";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultRepairSettings } from "../../src/extension/files/settings.ts";
import { createContained } from "../../src/extension/host/contained.ts";
import { createGrammarLeakHandler } from "../../src/extension/leaks/grammar-leaks.ts";
import { BUILTIN_DEFINITION_FACTORIES, BuiltinRepairers } from "../../src/extension/repair/builtin-repairers.ts";
import { RepairFeedbackHub } from "../../src/extension/repair/feedback.ts";
import {
	CallTargets,
	judgeToolCalls,
	PendingRefusals,
	settledMessage,
} from "../../src/extension/repair/message-repair.ts";
import { renameLeakedToolNames } from "../../src/extension/repair/tool-names.ts";
import { mayHoldLeak } from "../../src/grammar/recover.ts";
import { TODO_SCHEMA } from "../fixtures/composing-extension.ts";
import { repairDeps } from "../support/repair-deps.ts";

const CWD = "/work/settled";
const ACTIVE = ["read", "bash", "edit", "todo"];

function tool(name: string, parameters: unknown, path: string, source: string): ToolInfo {
	return {
		name,
		description: name,
		parameters: parameters as never,
		exposure: "direct",
		sourceInfo: { path, source, scope: "temporary", origin: "top-level" },
	};
}

function setup() {
	const feedback = new RepairFeedbackHub();
	const deps = repairDeps({ feedback, modelId: "glm-4.6" });
	const builtins = new BuiltinRepairers(deps);
	const tools = [
		...(["read", "bash", "edit", "write"] as const).map((name) =>
			tool(name, BUILTIN_DEFINITION_FACTORIES[name](CWD).parameters, `builtin:${name}`, "builtin"),
		),
		tool("todo", TODO_SCHEMA, "/ext/todo.ts", "local"),
	];
	const targets = new CallTargets(
		{
			allTools: () => tools,
			activeTools: () => ACTIVE,
			builtinRepairer: (name) => builtins.repairer(name, CWD),
			piShimFor: (name, schema) => builtins.piShimFor(name, schema, CWD),
			configuredAliases: () => [],
		},
		deps,
	);
	const refusals = new PendingRefusals();
	const grammarRecords: string[] = [];
	const settings = defaultRepairSettings();
	const grammar = createGrammarLeakHandler({
		settings: () => settings,
		modelId: () => "glm-4.6",
		activeTools: () => ACTIVE,
		toolSchemas: () => new Map(tools.map((info) => [info.name, info.parameters])),
		telemetry: {
			toolOutcome() {},
			toolObservation() {},
			grammarRecovered: () => grammarRecords.push("recovered"),
			grammarStripped: () => grammarRecords.push("stripped"),
			grammarObserved: () => grammarRecords.push("observed"),
		},
		onPromoted: () => grammarRecords.push("promoted"),
		onLeakText: () => grammarRecords.push("leak-text"),
		now: () => 0,
	});
	const schemaOf = (name: string) => tools.find((info) => info.name === name)?.parameters;
	const contained = createContained(() => deps.telemetry);
	return { targets, refusals, feedback, grammar, grammarRecords, schemaOf, contained };
}

const call = (id: string, name: string, args: Record<string, unknown>) => ({
	type: "toolCall",
	id,
	name,
	arguments: args,
});

/** Blocks a reply can hold; `settles` says whether a message of such blocks alone may be settled. */
const BLOCKS: Array<{ block: (id: string) => unknown; settles: boolean }> = [
	{ block: (id) => call(id, "read", { path: "a.md" }), settles: true },
	{ block: (id) => call(id, "read", { path: "a.md", offset: 2, limit: 10 }), settles: true },
	{ block: (id) => call(id, "bash", { command: "ls -la" }), settles: true },
	{ block: (id) => call(id, "edit", { path: "a.md", edits: [{ oldText: "a", newText: "b" }] }), settles: true },
	{ block: (id) => call(id, "todo", { todos: [{ text: "x", done: false }] }), settles: true },
	{ block: () => ({ type: "text", text: "Let me look at the file, then run the tests." }), settles: true },
	{ block: () => ({ type: "thinking", thinking: "The user wants the notes read first." }), settles: true },
	{ block: (id) => call(id, "read", { file_path: "a.md" }), settles: false },
	{ block: (id) => call(id, "read", { path: "a.md", offset: "2" }), settles: false },
	{ block: (id) => call(id, "read", { path: "a.md", limit: null }), settles: false },
	{ block: (id) => call(id, "edit", { path: "a.md", oldText: "a", newText: "b" }), settles: false },
	{ block: (id) => call(id, "todo", { todos: '[{"text": "x"}]' }), settles: false },
	{ block: (id) => call(id, "raed", { path: "a.md" }), settles: false },
	{ block: (id) => call(id, "Read", { path: "a.md" }), settles: false },
	{ block: (id) => call(id, "write", { path: "a.md", content: "x" }), settles: false },
	{
		block: (id) => ({ type: "toolCall", id, name: "read", ...parseToolCallArguments('{"path": "a.md",') }),
		settles: false,
	},
	{
		block: () => ({
			type: "text",
			text: "<tool_call>read\n<arg_key>path</arg_key>\n<arg_value>notes.md</arg_value>\n</tool_call>",
		}),
		settles: false,
	},
	{
		block: () => ({ type: "text", text: '<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>' }),
		settles: false,
	},
	{ block: () => ({ type: "thinking", thinking: "I will call read(path='a.md') now." }), settles: false },
];

describe("a settled message", () => {
	it("is one of valid calls to active tools and prose without markup; any other block unsettles it", () => {
		const { targets } = setup();
		const settling = BLOCKS.filter((entry) => entry.settles).map((entry, index) => entry.block(`s${index}`));
		expect(
			settledMessage(
				{ role: "assistant", content: settling, stopReason: "toolUse" },
				targets.forMessage(),
				mayHoldLeak,
			),
		).toBe(true);
		for (const [index, entry] of BLOCKS.entries()) {
			if (entry.settles) continue;
			const message = { role: "assistant", content: [...settling, entry.block(`u${index}`)], stopReason: "toolUse" };
			expect(settledMessage(message, targets.forMessage(), mayHoldLeak), JSON.stringify(entry.block("x"))).toBe(false);
		}
		expect(settledMessage({ role: "toolResult", content: [] }, targets.forMessage(), mayHoldLeak)).toBe(false);
	});

	it("is left as it is by the name, grammar-leak and call stages, which bind, hold and record nothing (property)", () => {
		let settled = 0;
		let unsettled = 0;
		fc.assert(
			fc.property(
				fc.array(fc.nat({ max: BLOCKS.length - 1 }), { maxLength: 5 }),
				fc.constantFrom("toolUse", "stop", "length"),
				(picks, stopReason) => {
					const run = setup();
					const content = picks.map((pick, index) => BLOCKS[pick]?.block(`c${index}`));
					const message = { role: "assistant", content, stopReason };
					if (!settledMessage(message, run.targets.forMessage(), mayHoldLeak)) {
						unsettled++;
						return;
					}
					settled++;
					expect(renameLeakedToolNames(message, ACTIVE, run.schemaOf)).toBeUndefined();
					expect(run.grammar(message)).toBeUndefined();
					const judged = judgeToolCalls(message, run.targets.forMessage(), {
						feedback: run.feedback,
						refusals: run.refusals,
						contained: run.contained,
					});
					expect(judged).toBeUndefined();
					expect(run.feedback.holding).toBe(false);
					expect(run.feedback.repairCount).toBe(0);
					expect(run.refusals.holding).toBe(false);
					expect(run.grammarRecords).toEqual([]);
				},
			),
			{ numRuns: 400 },
		);
		// Both sides are reached, so the property says something about each.
		expect(settled).toBeGreaterThan(40);
		expect(unsettled).toBeGreaterThan(40);
	});

	it("is judged on the arguments as sent: a getter is never run to decide it", () => {
		const { targets } = setup();
		let reads = 0;
		const args = {};
		Object.defineProperty(args, "path", {
			enumerable: true,
			get: () => {
				reads++;
				return "a.md";
			},
		});
		const message = { role: "assistant", content: [call("g", "read", args)], stopReason: "toolUse" };
		expect(settledMessage(message, targets.forMessage(), mayHoldLeak)).toBe(false);
		expect(reads).toBe(0);
	});
});
