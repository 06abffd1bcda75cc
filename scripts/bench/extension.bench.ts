/**
 * Extension overhead benchmark: what the wrapped `prepareArguments` of each
 * of pi's eight built-ins costs on valid input, the call every session makes
 * most.
 *
 * For each tool, in the same run:
 * - core: `runRepairPipeline` alone with the override's own config (the /core
 *   fast path);
 * - wrapped: the override's `prepareArguments` as pi calls it (the pipeline
 *   plus the extension's bookkeeping);
 * - pi unwrapped / pi wrapped: what pi does per call before `execute`
 *   (prepareArguments when the definition has one, then
 *   `validateToolArguments`) with pi's own definition and with ours.
 * Batch timing (see `batchTimes`): a per-call timer read costs more than a
 * valid call and would hide its cost. Target: wrapped / core at most 2×.
 * Run: `npm run bench -- extension`.
 */
import { validateToolArguments } from "@earendil-works/pi-ai";
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { BUILTIN_TOOL_NAMES, type BuiltinToolName } from "../../src/core/builtin-tables.ts";
import { runRepairPipeline } from "../../src/core/pipeline.ts";
import { BUILTIN_DEFINITION_FACTORIES, BuiltinOverrides } from "../../src/extension/builtin-overrides.ts";
import { RepeatFailureTracker } from "../../src/extension/escalation.ts";
import { RepairFeedbackHub } from "../../src/extension/feedback.ts";
import { ModelTracker } from "../../src/extension/model-tracker.ts";
import type { RepairDeps } from "../../src/extension/prepare.ts";
import { defaultRepairSettings } from "../../src/extension/settings.ts";
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

const settings = defaultRepairSettings();
const model = new ModelTracker();
model.id = "claude-opus-4-8";
const deps: RepairDeps = {
	settings: () => settings,
	model,
	telemetry: {
		toolOutcome() {},
		toolObservation() {},
		grammarRecovered() {},
		grammarStripped() {},
		grammarObserved() {},
	},
	feedback: new RepairFeedbackHub(),
	failures: new RepeatFailureTracker(),
};
const registered = new Map<string, AnyDefinition>();
const overrides = new BuiltinOverrides(
	{ registerTool: (definition) => void registered.set(definition.name, definition as unknown as AnyDefinition) },
	deps,
);
overrides.register(process.cwd());

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
	const original = BUILTIN_DEFINITION_FACTORIES[tool]("/tmp") as unknown as AnyDefinition;
	const wrapped = registered.get(tool);
	const repairer = overrides.repairer(tool);
	if (wrapped?.prepareArguments === undefined || repairer === undefined) throw new Error(`${tool} is not wrapped`);
	const wrappedPrepare = wrapped.prepareArguments;
	if (wrappedPrepare(input) !== input) throw new Error(`${tool}: valid input did not come back as the same object`);
	const config = repairer.config();

	const [core = 0, viaOverride = 0] = bestOf([() => runRepairPipeline({ input, config }), () => wrappedPrepare(input)]);
	const [piUnwrapped = 0, piWrapped = 0] = bestOf([
		piPreparesAndValidates(original, input),
		piPreparesAndValidates(wrapped, input),
	]);
	rows.push([
		tool,
		formatRate(core),
		formatRate(viaOverride),
		`${(core / viaOverride).toFixed(2)}×`,
		formatRate(piUnwrapped),
		formatRate(piWrapped),
		`${(piUnwrapped / piWrapped).toFixed(2)}×`,
	]);
}

printTable(
	"Extension overhead: wrapped prepareArguments on valid input",
	["tool", "core", "wrapped", "wrapped/core", "pi unwrapped", "pi wrapped", "pi wrapped/unwrapped"],
	rows,
);
console.log("\nTarget: wrapped/core at most 2× (the wrapper adds bookkeeping only, no extra pass over the input).");
