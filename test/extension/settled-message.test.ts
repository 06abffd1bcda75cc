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

function setup(active: readonly string[] = ACTIVE) {
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
			activeTools: () => active,
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

describe("a reply settled against the latest read of pi's lists", () => {
	const reply = (...names: string[]) => ({
		role: "assistant",
		content: names.map((name, index) =>
			BLOCKS.find((entry) => entry.settles && isCallOf(entry, name))?.block(`l${index}`),
		),
		stopReason: "toolUse",
	});
	const isCallOf = (entry: (typeof BLOCKS)[number], name: string) =>
		(entry.block("x") as { name?: string }).name === name;

	it("settles nothing before pi's lists were read", () => {
		const { targets } = setup();
		expect(settledMessage(reply("read", "bash"), targets.asLastRead(), mayHoldLeak)).toBe(false);
	});

	it("settles only calls of the tools that read resolved, to the very targets it resolved", () => {
		const { targets } = setup();
		const fresh = targets.forMessage();
		expect(settledMessage(reply("read", "bash"), fresh, mayHoldLeak)).toBe(true);
		const recorded = targets.asLastRead();
		expect(recorded("read")).toBe(fresh("read"));
		expect(settledMessage(reply("read", "bash"), recorded, mayHoldLeak)).toBe(true);
		expect(settledMessage(reply("bash", "read", "bash"), recorded, mayHoldLeak)).toBe(true);
		// A tool the read never resolved sends the reply to a new read.
		expect(settledMessage(reply("read", "todo"), recorded, mayHoldLeak)).toBe(false);
		// A recorded tool still judges what it is sent: a call that does not pass as sent is not settled by the record.
		const repairable = BLOCKS.find((entry) => !entry.settles && isCallOf(entry, "read"))?.block("r");
		expect(
			settledMessage({ role: "assistant", content: [repairable], stopReason: "toolUse" }, recorded, mayHoldLeak),
		).toBe(false);
	});

	it("keeps each name's latest read, and drops a name a later read finds inactive", () => {
		const active = [...ACTIVE];
		const { targets } = setup(active);
		const first = targets.forMessage();
		first("read");
		const next = targets.forMessage();
		next("todo");
		expect(targets.asLastRead()("todo")).toBe(next("todo"));
		expect(targets.asLastRead()("read")).toBe(first("read"));
		active.splice(active.indexOf("read"), 1);
		expect(targets.forMessage()("read")).toBeUndefined();
		expect(targets.asLastRead()("read")).toBeUndefined();
		expect(targets.asLastRead()("todo")).toBe(next("todo"));
	});

	it("records neither nested calls' tools nor a name no active tool has", () => {
		const { targets } = setup();
		targets.forMessage("all")("write");
		expect(targets.asLastRead()("write")).toBeUndefined();
		const fresh = targets.forMessage();
		expect(fresh("write")).toBeUndefined();
		expect(fresh("raed")).toBeUndefined();
		expect(targets.asLastRead()("write")).toBeUndefined();
		expect(targets.asLastRead()("raed")).toBeUndefined();
	});

	it("is forgotten on request, so the next reply reads the lists again", () => {
		const { targets } = setup();
		targets.forMessage()("read");
		targets.forget();
		expect(targets.asLastRead()("read")).toBeUndefined();
	});

	it("settles a reply only when the tools as they are now settle it too, while they are unchanged (property)", () => {
		let settled = 0;
		fc.assert(
			fc.property(
				fc.array(fc.nat({ max: BLOCKS.length - 1 }), { maxLength: 4 }),
				fc.array(fc.nat({ max: BLOCKS.length - 1 }), { maxLength: 4 }),
				(first, second) => {
					const { targets } = setup();
					const message = (picks: number[], prefix: string) => ({
						role: "assistant",
						content: picks.map((pick, index) => BLOCKS[pick]?.block(`${prefix}${index}`)),
						stopReason: "toolUse",
					});
					settledMessage(message(first, "a"), targets.forMessage(), mayHoldLeak);
					const later = message(second, "b");
					if (!settledMessage(later, targets.asLastRead(), mayHoldLeak)) return;
					settled++;
					expect(settledMessage(later, targets.forMessage(), mayHoldLeak)).toBe(true);
				},
			),
			{ numRuns: 300 },
		);
		expect(settled).toBeGreaterThan(20);
	});
});
