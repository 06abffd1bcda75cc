/**
 * Plain Node ESM consumer of the packed tarball, run by `scripts/test-package.ts`
 * from a temporary project where `pi-repair-layer` was installed from the
 * tarball. It imports every public subpath by its package name and makes one
 * real call through each, so a broken `exports` map, a missing file or a stray
 * source-only import shows up as a failure here. Exits non-zero on the first
 * failed check.
 */
import assert from "node:assert/strict";
import { Type } from "typebox";

const results = [];
async function check(name, body) {
	try {
		await body();
		results.push(`ok   ${name}`);
	} catch (error) {
		results.push(`FAIL ${name}: ${error instanceof Error ? error.message : String(error)}`);
	}
}

await check("default export of the package root is the extension factory", async () => {
	const root = await import("pi-repair-layer");
	assert.equal(typeof root.default, "function");
});

await check("/core repairs an alias and fails closed on garbage", async () => {
	const { runRepairPipeline } = await import("pi-repair-layer/core");
	const schema = Type.Object({ path: Type.String() });
	const config = {
		toolName: "read_notes",
		schema,
		preprocessors: [{ kind: "alias", selector: "/path", aliases: ["file_path"] }],
	};
	const repaired = runRepairPipeline({ input: { file_path: "notes.md" }, config });
	assert.equal(repaired.outcome, "repaired");
	assert.deepEqual(repaired.args, { path: "notes.md" });
	assert.deepEqual(
		repaired.changes.map((change) => change.ruleId),
		["preprocess.exact-alias"],
	);
	const refused = runRepairPipeline({ input: { nothing: 1 }, config });
	assert.equal(refused.outcome, "unrepairable");
	assert.match(refused.retryMessage ?? "", /read_notes/);
});

await check("/pi adapts a tool definition and throws UnrepairableToolInputError", async () => {
	const { adaptToolDefinition, UnrepairableToolInputError } = await import("pi-repair-layer/pi");
	const definition = {
		name: "greet",
		label: "Greet",
		description: "Greets someone.",
		parameters: Type.Object({ name: Type.String() }),
		execute: async () => ({ content: [{ type: "text", text: "hi" }], details: undefined }),
	};
	const adapted = adaptToolDefinition(definition, { engineConfig: { fieldAliases: { name: ["who"] } } });
	assert.notEqual(adapted, definition);
	assert.equal(adapted.execute, definition.execute);
	assert.deepEqual(adapted.prepareArguments({ who: "Ada" }), { name: "Ada" });
	assert.throws(() => adapted.prepareArguments({ nobody: true }), UnrepairableToolInputError);
});

await check("/grammar parses a leaked Qwen call", async () => {
	const { GRAMMAR_NAMES, parseToolGrammarLeaks } = await import("pi-repair-layer/grammar");
	assert.ok(GRAMMAR_NAMES.includes("harmony"));
	const calls = parseToolGrammarLeaks(
		"<tool_call>\n<function=read>\n<parameter=path>notes.md</parameter>\n</function>\n</tool_call>",
	);
	assert.deepEqual(calls, [{ name: "read", arguments: { path: "notes.md" }, grammar: "qwen" }]);
});

await check("files outside the exports map stay private", async () => {
	await assert.rejects(import("pi-repair-layer/dist/core/index.js"), { code: "ERR_PACKAGE_PATH_NOT_EXPORTED" });
});

console.log(results.join("\n"));
if (results.some((line) => line.startsWith("FAIL"))) process.exit(1);
