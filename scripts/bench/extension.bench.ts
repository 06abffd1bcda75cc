/**
 * Extension overhead benchmark: what the `message_end` judgement of one call
 * to each of pi's eight built-ins costs on valid input, the call every
 * session makes most.
 *
 * For each tool, in the same run:
 * - core: `runRepairPipeline` alone with the built-in repairer's own config
 *   (the /core fast path);
 * - message pass: `judgeToolCalls` over a message holding that one call (the
 *   pipeline plus the extension's resolution of the tool and bookkeeping);
 * - pi: what pi itself does per call before `execute` (prepareArguments when
 *   the definition has one, then `validateToolArguments`), which the layer no
 *   longer wraps.
 * Batch timing (see `batchTimes`): a per-call timer read costs more than a
 * valid call and would hide its cost. Target: the message pass (which resolves
 * the message's tools once) costs well under pi's own prepare+validate.
 * Run: `npm run bench -- extension`.
 */
import { validateToolArguments } from "@earendil-works/pi-ai";
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { BUILTIN_TOOL_NAMES, type BuiltinToolName } from "../../src/core/builtin-tables.ts";
import { runRepairPipeline } from "../../src/core/pipeline.ts";
import { createContained } from "../../src/extension/host/contained.ts";
import { BUILTIN_DEFINITION_FACTORIES, BuiltinRepairers } from "../../src/extension/repair/builtin-repairers.ts";
import { CallTargets, judgeToolCalls, PendingRefusals } from "../../src/extension/repair/message-repair.ts";
import { repairDeps } from "../../test/support/repair-deps.ts";
import { batchTimes, formatRate, printTable } from "./harness.ts";

type AnyDefinition = ToolDefinition<never, unknown, unknown>;

const VALID_INPUT: Record<BuiltinToolName, Record<string, unknown>> = {
	read: { path: "/etc/hosts", offset: 1, limit: 20 },
	bash: { command: "ls -la", timeout: 30 },
	powershell: { command: "Get-ChildItem", timeout: 30 },
	edit: { path: "src/index.ts", edits: [{ oldText: "alpha", newText: "beta" }] },
	write: { path: "notes.md", content: "# Notes\n\nSome text.\n" },
	grep: { pattern: "TODO", path: "src", glob: "*.ts", ignoreCase: true, literal: false, context: 2, limit: 50 },
	find: { pattern: "*.ts", path: "src", limit: 100 },
	ls: { path: ".", limit: 200 },
};

const deps = repairDeps({ modelId: "claude-opus-4-8" });
const builtins = new BuiltinRepairers(deps);
const cwd = process.cwd();
// pi's own tool list as `pi.getAllTools()` reports it: every built-in is pi's.
const tools = BUILTIN_TOOL_NAMES.map((name) => ({
	name,
	description: name,
	parameters: BUILTIN_DEFINITION_FACTORIES[name](cwd).parameters,
	exposure: "direct" as const,
	sourceInfo: { path: `builtin:${name}`, source: "builtin", scope: "temporary" as const, origin: "top-level" as const },
}));
const targets = new CallTargets(
	{
		allTools: () => tools,
		activeTools: () => BUILTIN_TOOL_NAMES,
		builtinRepairer: (name) => builtins.repairer(name, cwd),
		piShimFor: () => undefined,
		configuredAliases: () => [],
	},
	deps,
);
const passDeps = {
	feedback: deps.feedback,
	refusals: new PendingRefusals(),
	contained: createContained(() => deps.telemetry),
};

function piPreparesAndValidates(definition: AnyDefinition, input: unknown): () => unknown {
	const call = { type: "toolCall" as const, id: "bench", name: definition.name, arguments: input as never };
	// As pi's loop does it: the transcript's arguments object goes to prepareArguments as is.
	return () => {
		const prepared = definition.prepareArguments ? definition.prepareArguments(input) : input;
		return validateToolArguments(definition, { ...call, arguments: prepared as never });
	};
}

/** Calls per second of each function, in batch timing (many calls per CPU-time read, alternating, fastest batch). */
function bestOf(fns: readonly (() => unknown)[]): number[] {
	return batchTimes(fns).map((ms) => 1000 / ms);
}

const rows: string[][] = [];
for (const tool of BUILTIN_TOOL_NAMES) {
	const input = VALID_INPUT[tool];
	const original = BUILTIN_DEFINITION_FACTORIES[tool](cwd) as unknown as AnyDefinition;
	const repairer = builtins.repairer(tool, cwd);
	if (repairer === undefined) throw new Error(`${tool} has no repairer`);
	const message = {
		role: "assistant",
		stopReason: "toolUse",
		content: [{ type: "toolCall", id: "b", name: tool, arguments: input }],
	};
	if (judgeToolCalls(message, targets.forMessage(), passDeps) !== undefined)
		throw new Error(`${tool}: valid input changed`);
	const config = repairer.config();

	const [core = 0, viaPass = 0, pi = 0] = bestOf([
		() => runRepairPipeline({ input, config }),
		() => judgeToolCalls(message, targets.forMessage(), passDeps),
		piPreparesAndValidates(original, input),
	]);
	rows.push([tool, formatRate(core), formatRate(viaPass), `${(core / viaPass).toFixed(2)}×`, formatRate(pi)]);
}

printTable(
	"Extension overhead: the message_end judgement of one valid call",
	["tool", "core", "message pass", "pass/core", "pi prepare+validate"],
	rows,
);
console.log(
	"\nTarget: the message pass well under pi's own prepare+validate (it resolves the tools once per message).",
);
