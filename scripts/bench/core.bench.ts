/**
 * Core pipeline benchmark, in batch timing (many calls per timer read, CPU
 * time, alternating with the baseline; see `batchTimes`): every ratio is
 * against a compiled TypeBox `Check` of the same value in the same run.
 *
 * Valid calls use the configuration the extension really builds: pi's own
 * definitions (schema, strict sampling, the `edit` shim), the built-in
 * tables and a model id, once with a model no gate matches and once with a
 * GLM id (every model gate open). A tool owner's config with a custom
 * structural preprocessor that declares its applicability predicate is
 * measured the same way.
 *
 * Targets: a valid call at most 20× a compiled Check (aim 5×), for built-ins
 * and for the owner config; a valid 1 MB write at most 1.5× a valid 1 KB
 * write; repair paths linear.
 * Run: `npm run bench -- core`.
 */
import { Type } from "typebox";
import { Compile } from "typebox/compile";
import { BUILTIN_TOOL_NAMES, type BuiltinToolName } from "../../src/core/builtin-tables.ts";
import { runRepairPipeline } from "../../src/core/pipeline.ts";
import type { RepairPipelineConfig, StructuralPreprocessor, TSchema } from "../../src/core/types.ts";
import { BUILTIN_DEFINITION_FACTORIES, repairerFor } from "../../src/extension/repair/builtin-repairers.ts";
import { repairDeps } from "../../test/support/repair-deps.ts";
import { batchTimes, printTable, scalingExponent } from "./harness.ts";

const PLAIN_MODEL = "claude-opus-4-8";
const GLM_MODEL = "glm-5.1";

/** The pipeline config the extension builds for `tool` under `modelId`. */
function extensionConfig(tool: BuiltinToolName, modelId: string): RepairPipelineConfig {
	return repairerFor(tool, BUILTIN_DEFINITION_FACTORIES[tool]("/tmp"), repairDeps({ modelId })).config();
}

const CONFIGS = new Map<string, RepairPipelineConfig>();
function configFor(tool: BuiltinToolName, modelId = PLAIN_MODEL): RepairPipelineConfig {
	const key = `${tool} ${modelId}`;
	let config = CONFIGS.get(key);
	if (config === undefined) {
		config = extensionConfig(tool, modelId);
		CONFIGS.set(key, config);
	}
	return config;
}

const checkers = new WeakMap<TSchema, ReturnType<typeof Compile>>();
function checkOf(schema: TSchema, value: unknown): () => unknown {
	let validator = checkers.get(schema);
	if (validator === undefined) {
		validator = Compile(schema);
		checkers.set(schema, validator);
	}
	const compiled = validator;
	return () => compiled.Check(value);
}

interface Case {
	name: string;
	config: RepairPipelineConfig;
	input: unknown;
	expect: string;
}

function outcomeOf(c: Case): string {
	return runRepairPipeline({ input: c.input, config: c.config }).outcome;
}

const ratio = (a: number, b: number) => `${(a / b).toFixed(1)}×`;
const micros = (ms: number) => `${(ms * 1000).toFixed(3)} µs`;

/** One table row: outcome, µs per call of the pipeline and of the compiled Check, and their ratio. */
function row(c: Case): string[] {
	const outcome = outcomeOf(c);
	if (outcome !== c.expect) throw new Error(`${c.name}: expected ${c.expect}, got ${outcome}`);
	const [pipeline = 0, check = 1] = batchTimes([
		() => runRepairPipeline({ input: c.input, config: c.config }),
		checkOf(c.config.schema, c.input),
	]);
	return [c.name, outcome, micros(pipeline), micros(check), ratio(pipeline, check)];
}

const header = ["case", "outcome", "pipeline", "compiled Check", "ratio"];

const VALID_INPUT: Record<BuiltinToolName, Record<string, unknown>> = {
	read: { path: "/etc/hosts", offset: 1, limit: 20 },
	bash: { command: "ls -la", timeout: 30 },
	powershell: { command: "Get-ChildItem", timeout: 30 },
	edit: { path: "/src/a.ts", edits: [{ oldText: "const a = 1;", newText: "const a = 2;" }] },
	write: { path: "/tmp/a.txt", content: "hello\n" },
	grep: { pattern: "^import", path: "src", glob: "*.ts", ignoreCase: true, context: 2, limit: 50 },
	find: { pattern: "*.ts", path: "src", limit: 100 },
	ls: { path: "/tmp", limit: 200 },
};

const validCases: Case[] = [PLAIN_MODEL, GLM_MODEL].flatMap((modelId) =>
	BUILTIN_TOOL_NAMES.map((tool) => ({
		name: `${tool} valid, ${modelId}`,
		config: configFor(tool, modelId),
		input: VALID_INPUT[tool],
		expect: "valid",
	})),
);

// A tool owner's config: aliases, a model-gated token row, and a structural reshaping that says when it applies.
const deploySchema = Type.Object({
	target: Type.String(),
	steps: Type.Array(Type.String()),
	dryRun: Type.Optional(Type.Boolean()),
});
const foldSingleStep: StructuralPreprocessor = {
	kind: "structural",
	selector: "",
	ruleId: "deploy.fold-single-step",
	applies: (value) => typeof value === "object" && value !== null && Object.hasOwn(value, "step"),
	apply: (value) => {
		if (typeof value !== "object" || value === null || !Object.hasOwn(value, "step")) return undefined;
		const { step, ...rest } = value as Record<string, unknown>;
		return { value: { ...rest, steps: [step] }, note: "The single step was moved into steps." };
	},
};
function ownerConfig(modelId: string): RepairPipelineConfig {
	return {
		toolName: "deploy",
		schema: deploySchema,
		policy: "adaptive",
		modelId,
		strictSampling: true,
		preprocessors: [
			{ kind: "alias", selector: "/target", aliases: ["environment", "env"], accepts: "string" },
			{ kind: "grammar-tokens", selector: "", modelFamilies: [/glm/i] },
			foldSingleStep,
		],
		onObservation() {},
	};
}
const ownerInput = { target: "staging", steps: ["build", "test", "ship"], dryRun: false };
const ownerCases: Case[] = [PLAIN_MODEL, GLM_MODEL].map((modelId) => ({
	name: `owner deploy valid, ${modelId}`,
	config: ownerConfig(modelId),
	input: ownerInput,
	expect: "valid",
}));
if (outcomeOf({ ...ownerCases[0]!, input: { target: "staging", step: "build" }, expect: "" }) !== "repaired") {
	throw new Error("the owner's structural preprocessor did not apply");
}

// Every validator and pipeline path runs first: a compiled Check measured while it is the only one the JIT
// has seen looks faster than it does in a process that validates eight tools.
batchTimes(
	[...validCases, ...ownerCases].flatMap((c) => [
		() => runRepairPipeline({ input: c.input, config: c.config }),
		checkOf(c.config.schema, c.input),
	]),
	1,
	5,
);

printTable(
	"Valid calls, extension config (target ≤ 20× compiled Check, aim 5×)",
	header,
	[...validCases, ...ownerCases].map(row),
);

const malformedCases: Case[] = [
	{ name: "alias (file_path)", config: configFor("read"), input: { file_path: "/etc/hosts" }, expect: "repaired" },
	{
		name: "stringified array",
		config: configFor("edit"),
		input: { path: "/a", edits: '[{"oldText":"a","newText":"b"}]' },
		expect: "repaired",
	},
	{
		name: "flat edit fold",
		config: configFor("edit"),
		input: { file_path: "/a", old_string: "a", new_string: "b" },
		expect: "repaired",
	},
	{ name: "truncated object", config: configFor("read"), input: '{"path":"/tmp/a"', expect: "repaired" },
	{ name: "root string", config: configFor("bash"), input: "ls -la", expect: "repaired" },
	{ name: "stringified root object", config: configFor("bash"), input: '{"command":"ls"}', expect: "repaired" },
	{ name: "markdown link path", config: configFor("read"), input: { path: "[a.md](http://a.md)" }, expect: "repaired" },
	{
		name: "nested edit aliases",
		config: configFor("edit"),
		input: { path: "/a", edits: [{ old_string: "a", new_string: "b" }] },
		expect: "repaired",
	},
	{
		name: "grammar token key, GLM",
		config: configFor("read", GLM_MODEL),
		input: { "<arg_key>path</arg_key>": "/a" },
		expect: "repaired",
	},
	{ name: "strict null optional", config: configFor("read"), input: { path: "/a", offset: null }, expect: "valid" },
];
printTable("Malformed families", header, malformedCases.map(row));

const unrepairableCases: Case[] = [
	{ name: "missing required", config: configFor("read"), input: { nothing: "useful" }, expect: "unrepairable" },
	{ name: "null content", config: configFor("write"), input: { path: "/a", content: null }, expect: "unrepairable" },
	{
		name: "truncated in string",
		config: configFor("bash"),
		input: '{"command":"rm -rf /tmp/scra',
		expect: "unrepairable",
	},
	{
		name: "python list literal",
		config: configFor("edit"),
		input: { path: "/a", edits: "[{'oldText': 'a'}]" },
		expect: "unrepairable",
	},
];
printTable("Unrepairable inputs", header, unrepairableCases.map(row));

const sizes = [1024, 10 * 1024, 100 * 1024, 1024 * 1024];
const label = (bytes: number) => (bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MB` : `${bytes / 1024} KB`);
for (const modelId of [PLAIN_MODEL, GLM_MODEL]) {
	const config = configFor("write", modelId);
	const inputs = sizes.map((bytes) => ({ path: "/tmp/big.txt", content: `${"x".repeat(bytes - 1)}\n` }));
	const times = batchTimes(inputs.map((input) => () => runRepairPipeline({ input, config })));
	const checks = batchTimes(inputs.map((input) => checkOf(config.schema, input)));
	const base = times[0] ?? 1;
	printTable(
		`Valid write by content size, ${modelId} (target 1 MB ≤ 1.5× 1 KB)`,
		["content", "pipeline", "vs 1 KB", "vs compiled Check"],
		sizes.map((bytes, i) => [
			label(bytes),
			micros(times[i] ?? 0),
			ratio(times[i] ?? 0, base),
			ratio(times[i] ?? 0, checks[i] ?? 1),
		]),
	);
}

const editRows = [10, 100, 1000].flatMap((count) => {
	const valid = {
		path: "/a",
		edits: Array.from({ length: count }, (_, i) => ({ oldText: `old ${i}`, newText: `new ${i}` })),
	};
	const aliased = {
		path: "/a",
		edits: Array.from({ length: count }, (_, i) => ({ old_string: `old ${i}`, new_string: `new ${i}` })),
	};
	return [
		{ name: `edit ${count} edits valid`, config: configFor("edit"), input: valid, expect: "valid" },
		{ name: `edit ${count} edits valid, GLM`, config: configFor("edit", GLM_MODEL), input: valid, expect: "valid" },
		{ name: `edit ${count} edits aliased`, config: configFor("edit"), input: aliased, expect: "repaired" },
	];
});
printTable("edit with many edits", header, editRows.map(row));

// Scaling of the repair paths: batch-timed calls at growing sizes, the exponent per step.
const steps = [1_000, 10_000, 100_000];
interface Family {
	name: string;
	tool: BuiltinToolName;
	make: (n: number) => unknown;
	expect: string;
}
const families: Family[] = [
	{
		name: "repaired: stringified edits",
		tool: "edit",
		make: (n) => ({ path: "/a", edits: JSON.stringify([{ oldText: "a".repeat(n), newText: "b".repeat(n) }]) }),
		expect: "repaired",
	},
	{
		name: "repaired: aliased write content",
		tool: "write",
		make: (n) => ({ file_path: "/a", content: "c".repeat(n * 10) }),
		expect: "repaired",
	},
	{
		name: "repaired: edits with n/100 aliased items",
		tool: "edit",
		make: (n) => ({
			path: "/a",
			edits: Array.from({ length: n / 100 }, (_, i) => ({ old_text: `o${i}`, new_text: `n${i}` })),
		}),
		expect: "repaired",
	},
	{
		name: "repaired: truncated root text",
		tool: "write",
		make: (n) => `{"path":"/a","content":"${"t".repeat(n)}"`,
		expect: "repaired",
	},
	{
		name: "unrepairable: null content, big path",
		tool: "write",
		make: (n) => ({ path: "p".repeat(n * 10), content: null }),
		expect: "unrepairable",
	},
	{
		name: "unrepairable: broken root text",
		tool: "bash",
		make: (n) => `{"command":"${"z".repeat(n)}`,
		expect: "unrepairable",
	},
];
const scalingRows = families.map((family) => {
	const config = configFor(family.tool);
	const inputs = steps.map((n) => family.make(n));
	const outcome = runRepairPipeline({ input: inputs[0], config }).outcome;
	if (outcome !== family.expect) throw new Error(`${family.name}: expected ${family.expect}, got ${outcome}`);
	const times = batchTimes(
		inputs.map((input) => () => runRepairPipeline({ input, config })),
		5,
	);
	const cells = [family.name, ...times.map((t) => `${t.toFixed(4)} ms`)];
	for (let i = 1; i < steps.length; i++) {
		cells.push(scalingExponent(steps[i - 1] ?? 1, times[i - 1] ?? 1, steps[i] ?? 1, times[i] ?? 1).toFixed(2));
	}
	return cells;
});
printTable(
	"Repair paths at growing sizes (exponent ≈ 1 is linear)",
	["family", ...steps.map((n) => `n=${n}`), "exp 1k→10k", "exp 10k→100k"],
	scalingRows,
);
