/**
 * What a wrap never does: a root string becomes a tool's single field only
 * when it is plain text the model meant as that field, and a string becomes a
 * one-item list only when it is one item. Structured data written as text
 * (a JSON string literal, a `key: value` line, leaked call markup, a list,
 * an object or a Java-style brace list under any layers of JSON quoting) is
 * refused instead: wrapping it would run the whole text as one argument.
 */
import fc from "fast-check";
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { readsAsStructuredData } from "../../src/core/list-literal.ts";
import { preprocessInput } from "../../src/core/preprocess.ts";
import { builtin, custom, ruleIds } from "../support/pipeline-helpers.ts";

// The project's seeding convention: one seed for every property, replayable from the environment.
const SEED = Number(process.env.PI_REPAIR_FUZZ_SEED ?? 0x5eedc0de);
const GLM = "glm-4.6";

/** `text` under `layers` layers of JSON string quoting. */
function quoted(text: string, layers: number): string {
	let out = text;
	for (let layer = 0; layer < layers; layer++) out = JSON.stringify(out);
	return out;
}

describe("a root string is wrapped as the single field only when it is plain text", () => {
	it("never wraps a JSON string literal with its quotes as a path or command", () => {
		for (const tool of ["read", "ls", "bash", "grep", "find"] as const) {
			for (const text of [quoted("/etc/hosts", 1), quoted("/etc/hosts", 2), quoted("ls -la", 1), ' "notes.md" ']) {
				const result = builtin(tool, text);
				expect(result.outcome, `${tool} ${text}`).toBe("unrepairable");
				expect(result.changes).toEqual([]);
			}
		}
	});

	it("never wraps a `field: value` line as the field", () => {
		for (const [tool, text] of [
			["bash", "command: touch X"],
			["bash", "cmd: touch X"],
			["bash", "  command:touch X"],
			["read", "path: /etc/hosts"],
			["read", "file_path: /etc/hosts"],
			["grep", "pattern: TODO"],
		] as const) {
			expect(builtin(tool, text).outcome, `${tool} ${text}`).toBe("unrepairable");
		}
	});

	it("never wraps leaked call markup, a lone DSML tag included, as a command", () => {
		for (const text of [
			'<｜DSML｜invoke name="bash">',
			'<｜DSML｜parameter name="command" string="true">touch X</｜DSML｜parameter>',
			"<tool_call>",
			"<tool_call>touch X</tool_call>",
			"<|tool_call|>touch X",
			"<parameter=command>touch X",
			"<arg_value>touch X</arg_value>",
			"touch X <|im_end|>",
		]) {
			const result = builtin("bash", text);
			expect(result.outcome, text).toBe("unrepairable");
			expect(result.changes).toEqual([]);
		}
	});

	it("still wraps a plain command, a redirect, a pattern with a colon and a path", () => {
		expect(builtin("bash", "ls -la").args).toEqual({ command: "ls -la" });
		expect(builtin("bash", "< in.txt sort > out.txt").args).toEqual({ command: "< in.txt sort > out.txt" });
		expect(builtin("bash", "echo 'a: b'").args).toEqual({ command: "echo 'a: b'" });
		expect(builtin("grep", "TODO: fix").args).toEqual({ pattern: "TODO: fix" });
		expect(builtin("read", "/etc/hosts").args).toEqual({ path: "/etc/hosts" });
	});
});

describe("structured data written as text is never a one-item list", () => {
	const tags = Type.Object({ tags: Type.Array(Type.String()) });
	const structured = [
		"['a', 'b']",
		"\"['a', 'b']\"",
		quoted("['a', 'b']", 2),
		quoted('["a", "b"]', 1),
		quoted('["a", "b"]', 3),
		'{"-v", "--no-strict"}',
		"{'-v', '--no-strict'}",
		quoted('{"-v", "--no-strict"}', 1),
		"{1, 2}",
		'{"a": 1}',
		quoted('{"a": 1}', 2),
		"{}",
		"'['a']'",
	];

	it("the engine refuses to wrap each of them", () => {
		for (const text of structured) {
			const result = custom(tags, { tags: text });
			expect(result.outcome, text).toBe("unrepairable");
			expect(result.changes, text).toEqual([]);
		}
	});

	it("the string-or-array preprocessor leaves each of them as it is", () => {
		for (const text of structured) {
			const result = preprocessInput({
				input: { tags: text },
				toolName: "probe",
				preprocessors: [{ kind: "string-or-array", selector: "/tags" }],
				allowValidValueTransforms: true,
			});
			expect(result.value, text).toEqual({ tags: text });
			expect(result.changes).toEqual([]);
		}
	});

	it("still wraps one item: a word, a brace glob, a regex group, a quoted phrase inside text", () => {
		for (const text of ["a", "{src,test}/**/*.ts", "*.{ts,tsx}", "(a|b)", 'say "hi"', "[a.md](http://a.md)"]) {
			const result = custom(tags, { tags: text });
			expect(result.outcome, text).toBe("repaired");
			expect(ruleIds(result), text).toEqual(["wrapBareStringAsArray"]);
		}
	});

	it("holds under any number of JSON quoting layers (property)", () => {
		const item = fc.string({ unit: fc.constantFrom("a", "b", "-", " ", "'", "\\", "é"), maxLength: 6 });
		const literal = fc.oneof(
			fc.array(item, { maxLength: 4 }).map((items) => JSON.stringify(items)),
			fc.array(item, { maxLength: 4 }).map((items) => `[${items.map((entry) => `'${entry}'`).join(", ")}]`),
			fc.array(item, { maxLength: 4 }).map((items) => `{${items.map((entry) => JSON.stringify(entry)).join(", ")}}`),
			fc.dictionary(item, item, { maxKeys: 3 }).map((record) => JSON.stringify(record)),
		);
		fc.assert(
			fc.property(literal, fc.nat({ max: 5 }), fc.constantFrom("", " ", "\n"), (text, layers, pad) => {
				const sent = `${pad}${quoted(text, layers)}${pad}`;
				expect(readsAsStructuredData(sent)).toBe(true);
				const result = custom(tags, { tags: sent });
				expect(result.outcome === "repaired" && ruleIds(result).includes("wrapBareStringAsArray")).toBe(false);
			}),
			{ seed: SEED, numRuns: 300 },
		);
	});
});

describe("grammar-token cleanup never rewrites a grep or find pattern", () => {
	it("keeps a pattern's every character, also under a leaked key or an alias", () => {
		for (const tool of ["grep", "find"] as const) {
			for (const pattern of ["<arg_value>foo</arg_value>", "<div>", "*.html</arg_value>", "<arg_key>x"]) {
				expect(builtin(tool, { pattern }, { modelId: GLM }).args, `${tool} ${pattern}`).toEqual({ pattern });
				const leakedKey = builtin(tool, { "<arg_key>pattern</arg_key>": pattern }, { modelId: GLM });
				expect(leakedKey.args, `${tool} ${pattern}`).toEqual({ pattern });
				expect(ruleIds(leakedKey)).toEqual(["stripGrammarTokenLeak"]);
				expect(builtin(tool, { query: pattern }, { modelId: GLM }).args).toEqual({ pattern });
			}
		}
	});

	it("keeps grep's glob too, and still cleans its path", () => {
		const result = builtin(
			"grep",
			{ pattern: "a", glob: "<arg_value>*.ts", path: "<arg_value>src</arg_value>" },
			{
				modelId: GLM,
			},
		);
		expect(result.args).toEqual({ pattern: "a", glob: "<arg_value>*.ts", path: "src" });
	});
});
