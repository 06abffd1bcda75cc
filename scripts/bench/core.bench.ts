/**
 * Core pipeline benchmark: ops/s per case and the ratio against a compiled
 * TypeBox `Check` of the same value, so figures stay comparable across
 * machines. Covers every built-in's valid call, each malformed family,
 * unrepairable input, valid `write` calls from 1 KB to 1 MB, `edit` with
 * many edits, and the scaling exponent of the repair paths as input grows.
 *
 * Targets: a valid call at most 20× a compiled Check (aim 5×); a valid 1 MB
 * write at most 3× a valid 1 KB write; repair paths close to linear.
 * Run: `npm run bench -- core`.
 */
import { Compile } from "typebox/compile";
import { type BuiltinToolName, PIPELINE_PREPROCESSORS, REPAIR_CONFIGS } from "../../src/core/builtin-tables.ts";
import { runRepairPipeline } from "../../src/core/pipeline.ts";
import type { TSchema } from "../../src/core/types.ts";
import { BUILTIN_SCHEMAS } from "../../test/support/builtin-schemas.ts";
import { formatRate, measure, printTable, scalingExponent, timeOnce } from "./harness.ts";

function run(tool: BuiltinToolName, input: unknown): unknown {
	return runRepairPipeline({
		input,
		config: {
			toolName: tool,
			schema: BUILTIN_SCHEMAS[tool],
			preprocessors: PIPELINE_PREPROCESSORS[tool],
			legacyConfig: REPAIR_CONFIGS[tool],
		},
	});
}

const checkers = new Map<TSchema, ReturnType<typeof Compile>>();
function baselineFor(schema: TSchema, value: unknown): () => unknown {
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
	tool: BuiltinToolName;
	input: unknown;
	expect: string;
}

function row(c: Case): string[] {
	const outcome = (run(c.tool, c.input) as { outcome: string }).outcome;
	if (outcome !== c.expect) throw new Error(`${c.name}: expected ${c.expect}, got ${outcome}`);
	const pipeline = measure(c.name, () => run(c.tool, c.input));
	const check = measure(`${c.name} check`, baselineFor(BUILTIN_SCHEMAS[c.tool], c.input));
	return [
		c.name,
		outcome,
		formatRate(pipeline.opsPerSecond),
		formatRate(check.opsPerSecond),
		`${(check.opsPerSecond / pipeline.opsPerSecond).toFixed(1)}×`,
	];
}

const header = ["case", "outcome", "pipeline", "compiled Check", "ratio"];

/** Runs every case for a while first, so compilation and JIT warm-up do not land on the first row measured. */
function warmUp(cases: readonly Case[]): void {
	for (const c of cases) measure(`${c.name} warm-up`, () => run(c.tool, c.input), 40);
}

const validCases: Case[] = [
	{ name: "read valid", tool: "read", input: { path: "/etc/hosts", offset: 1, limit: 20 }, expect: "valid" },
	{ name: "bash valid", tool: "bash", input: { command: "ls -la", timeout: 30 }, expect: "valid" },
	{ name: "powershell valid", tool: "powershell", input: { command: "Get-ChildItem" }, expect: "valid" },
	{
		name: "edit valid",
		tool: "edit",
		input: { path: "/src/a.ts", edits: [{ oldText: "const a = 1;", newText: "const a = 2;" }] },
		expect: "valid",
	},
	{ name: "write valid", tool: "write", input: { path: "/tmp/a.txt", content: "hello\n" }, expect: "valid" },
	{ name: "grep valid", tool: "grep", input: { pattern: "^import", path: "src", ignoreCase: true }, expect: "valid" },
	{ name: "find valid", tool: "find", input: { pattern: "*.ts", path: "src" }, expect: "valid" },
	{ name: "ls valid", tool: "ls", input: { path: "/tmp" }, expect: "valid" },
];
warmUp(validCases);
printTable("Valid calls (target ≤ 20× compiled Check, aim 5×)", header, validCases.map(row));

const malformedCases: Case[] = [
	{ name: "alias (file_path)", tool: "read", input: { file_path: "/etc/hosts" }, expect: "repaired" },
	{ name: "null optional", tool: "read", input: { path: "/a", offset: null }, expect: "repaired" },
	{
		name: "stringified array",
		tool: "edit",
		input: { path: "/a", edits: '[{"oldText":"a","newText":"b"}]' },
		expect: "repaired",
	},
	{
		name: "flat edit fold",
		tool: "edit",
		input: { file_path: "/a", old_string: "a", new_string: "b" },
		expect: "repaired",
	},
	{ name: "truncated object", tool: "read", input: '{"path":"/tmp/a"', expect: "repaired" },
	{ name: "root string", tool: "bash", input: "ls -la", expect: "repaired" },
	{ name: "stringified root object", tool: "bash", input: '{"command":"ls"}', expect: "repaired" },
	{ name: "markdown link path", tool: "read", input: { path: "[a.md](http://a.md)" }, expect: "repaired" },
	{
		name: "nested edit aliases",
		tool: "edit",
		input: { path: "/a", edits: [{ old_string: "a", new_string: "b" }] },
		expect: "repaired",
	},
];
warmUp(malformedCases);
printTable("Malformed families", header, malformedCases.map(row));

const unrepairableCases: Case[] = [
	{ name: "missing required", tool: "read", input: { nothing: "useful" }, expect: "unrepairable" },
	{ name: "null content", tool: "write", input: { path: "/a", content: null }, expect: "unrepairable" },
	{ name: "truncated in string", tool: "bash", input: '{"command":"rm -rf /tmp/scra', expect: "unrepairable" },
	{
		name: "python list literal",
		tool: "edit",
		input: { path: "/a", edits: "[{'oldText': 'a'}]" },
		expect: "unrepairable",
	},
];
printTable("Unrepairable inputs", header, unrepairableCases.map(row));

const sizes = [1024, 10 * 1024, 100 * 1024, 1024 * 1024];
const label = (bytes: number) => (bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MB` : `${bytes / 1024} KB`);
const writeRates = sizes.map((bytes) => {
	const input = { path: "/tmp/big.txt", content: `${"x".repeat(bytes - 1)}\n` };
	return {
		bytes,
		m: measure(label(bytes), () => run("write", input)),
		check: measure("check", baselineFor(BUILTIN_SCHEMAS.write, input)),
	};
});
const base = writeRates[0]?.m.msPerOp ?? 1;
printTable(
	"Valid write by content size (target 1 MB ≤ 3× 1 KB)",
	["content", "pipeline", "ms/op", "vs 1 KB", "vs compiled Check"],
	writeRates.map(({ bytes, m, check }) => [
		label(bytes),
		formatRate(m.opsPerSecond),
		m.msPerOp.toFixed(4),
		`${(m.msPerOp / base).toFixed(2)}×`,
		`${(check.opsPerSecond / m.opsPerSecond).toFixed(1)}×`,
	]),
);

const editCounts = [10, 100, 1000];
const editRows = editCounts.flatMap((count) => {
	const valid = {
		path: "/a",
		edits: Array.from({ length: count }, (_, i) => ({ oldText: `old ${i}`, newText: `new ${i}` })),
	};
	const aliased = {
		path: "/a",
		edits: Array.from({ length: count }, (_, i) => ({ old_string: `old ${i}`, new_string: `new ${i}` })),
	};
	return [
		{ name: `edit ${count} edits valid`, tool: "edit" as const, input: valid, expect: "valid" },
		{ name: `edit ${count} edits aliased`, tool: "edit" as const, input: aliased, expect: "repaired" },
	];
});
printTable("edit with many edits", header, editRows.map(row));

// Scaling of the repair paths: time one call at growing sizes, print the exponent per step.
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
	const inputs = steps.map((n) => family.make(n));
	const outcome = (run(family.tool, inputs[0]) as { outcome: string }).outcome;
	if (outcome !== family.expect) throw new Error(`${family.name}: expected ${family.expect}, got ${outcome}`);
	for (const input of inputs) timeOnce(() => run(family.tool, input), 3);
	const times = inputs.map((input) => timeOnce(() => run(family.tool, input), 9));
	const cells = [family.name, ...times.map((t) => `${t.toFixed(3)} ms`)];
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
