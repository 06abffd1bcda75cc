/**
 * The trust boundary of `/core`: no guess ever becomes a call. Each block
 * reproduces one way the pipeline used to run something the model did not
 * ask for, with the real built-in tables and pi's own schemas.
 */
import { createEditToolDefinition } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import {
	EDITS_ALIASES,
	NEW_TEXT_ALIASES,
	OLD_TEXT_ALIASES,
	OWNER_SHIM_APPLIES,
} from "../../src/core/builtin-tables.ts";
import { preprocessInput } from "../../src/core/preprocess.ts";
import { builtin, custom, ruleIds } from "../support/pipeline-helpers.ts";

const GLM = "glm-4.6";

describe("content is content for grammar-token cleanup", () => {
	it("cleans a leaked key around write.content but never the content itself", () => {
		const input = { path: "/a", "<arg_key>content</arg_key>": "<arg_value>body</arg_value>" };
		const result = builtin("write", input, { modelId: GLM });
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "/a", content: "<arg_value>body</arg_value>" });
	});

	it("never alters bash.command or powershell.command", () => {
		for (const tool of ["bash", "powershell"] as const) {
			const input = { command: "cat <arg_value>x</arg_value>" };
			const plain = builtin(tool, input, { modelId: GLM });
			expect(plain.outcome).toBe("valid");
			expect(plain.args).toBe(input);
			const leaked = builtin(tool, { command: "<arg_value>echo hi" }, { modelId: GLM });
			expect(leaked.args).toEqual({ command: "<arg_value>echo hi" });
		}
	});

	it("keeps the content of an aliased content key as it came", () => {
		const result = builtin("write", { path: "/a", text: "<arg_value>body" }, { modelId: GLM });
		expect(result.args).toEqual({ path: "/a", content: "<arg_value>body" });
	});

	it("never alters edit texts, at the root or inside edits", () => {
		const nested = builtin(
			"edit",
			{ path: "/a", edits: [{ "<arg_key>oldText</arg_key>": "<arg_value>a", newText: "b</arg_value>" }] },
			{ modelId: GLM },
		);
		expect(nested.outcome).toBe("repaired");
		expect(nested.args).toEqual({ path: "/a", edits: [{ oldText: "<arg_value>a", newText: "b</arg_value>" }] });
		const flat = builtin("edit", { path: "/a", old_string: "<arg_value>a", new_string: "b" }, { modelId: GLM });
		expect(flat.args).toEqual({ path: "/a", edits: [{ oldText: "<arg_value>a", newText: "b" }] });
	});

	it("still cleans tokens from non-content values", () => {
		const result = builtin("write", { path: "<arg_value>/a</arg_value>", content: "x" }, { modelId: GLM });
		expect(result.args).toEqual({ path: "/a", content: "x" });
		expect(ruleIds(result)).toEqual(["stripGrammarTokenLeak"]);
	});
});

describe("anchor-bleed keeps a `$` that belongs to the value", () => {
	it("keeps Windows admin shares", () => {
		for (const path of ["C$", "\\\\server\\c$", "^\\\\server\\c$", "//server/ADMIN$", "^C$"]) {
			const result = builtin("ls", { path }, { modelId: "kimi-k2-instruct" });
			expect((result.args as { path: string }).path.endsWith("$"), path).toBe(true);
		}
	});

	it("keeps a trailing `$` that no leaked `^` opened", () => {
		const input = { path: "/tmp/build$" };
		expect(builtin("read", input, { modelId: GLM }).args).toBe(input);
	});

	it("still strips a leaked pair of anchors and a lone leading `^`", () => {
		expect(builtin("read", { path: "^/x$" }, { modelId: GLM }).args).toEqual({ path: "/x" });
		expect(builtin("read", { path: "^/x" }, { modelId: GLM }).args).toEqual({ path: "/x" });
	});
});

describe("the string-or-array preprocessor never wraps a list literal", () => {
	const run = (value: string) =>
		preprocessInput({
			input: { paths: value },
			toolName: "probe",
			preprocessors: [{ kind: "string-or-array", selector: "/paths" }],
			allowValidValueTransforms: true,
		});

	it("leaves Python/JS list and tuple literals, whole or cut, as they are", () => {
		for (const text of ["['a', 'b']", '["a", "b"', '("a",)', "('a', 'b')", " [1, 2]", "()"]) {
			const result = run(text);
			expect(result.value, text).toEqual({ paths: text });
			expect(result.changes).toEqual([]);
		}
	});

	it("still wraps a lone string, a parenthesised regex and a markdown link", () => {
		for (const text of ["src/a.ts", "(a|b)", "[a.md](http://a.md)"]) {
			expect(run(text).value, text).toEqual({ paths: [text] });
		}
	});
});

describe("one list-literal predicate for every wrap", () => {
	it("never wraps a list or tuple literal as a root command", () => {
		for (const text of ["['ls', '-la']", '("ls",)', "('ls', '-la')", '["ls", "-la"']) {
			const result = builtin("bash", text);
			expect(result.outcome, text).toBe("unrepairable");
		}
	});

	it("still wraps a subshell or a regex group", () => {
		for (const text of ["(cd /tmp && ls)", '("$dir"/run.sh)', "(a|b)"]) {
			expect(builtin("bash", text).args, text).toEqual({ command: text });
		}
	});

	it("never wraps a tuple literal as a one-element array in the engine", () => {
		const schema = Type.Object({ ids: Type.Array(Type.String()) });
		for (const text of ['("a", "b")', '("it\'s",)', "('a',"]) {
			expect(custom(schema, { ids: text }).outcome, text).toBe("unrepairable");
		}
		expect(custom(schema, { ids: "(a|b)" }).args).toEqual({ ids: ["(a|b)"] });
	});
});

describe("truncation never closes an open array", () => {
	it("refuses a cut edits list instead of applying its first edits", () => {
		const cut = '{"path":"/a","edits":[{"oldText":"a","newText":"b"}';
		const result = builtin("edit", cut);
		expect(result.outcome).toBe("unrepairable");
		expect(result.changes).toEqual([]);
		const two = builtin("edit", `${cut},{"oldText":"c","newText":"d"}`);
		expect(two.outcome).toBe("unrepairable");
	});

	it("refuses a cut list of paths or options", () => {
		expect(builtin("bash", '{"command":"ls","args":["-la"').outcome).toBe("unrepairable");
	});

	it("still closes an object cut after a complete value, a closed list included", () => {
		const result = builtin("edit", '{"edits":[{"oldText":"a","newText":"b"}],"path":"/a"');
		expect(result.outcome).toBe("repaired");
		expect(ruleIds(result)).toEqual(["envelope.complete-truncated-object"]);
	});
});

describe("a JSON literal is not an argument", () => {
	const literals = ["null", "true", "false", "0", "-1.5", "1e3", '"null"', '"true"', '"5"', JSON.stringify('"null"')];

	it("refuses whole-envelope texts that decode to a literal, never wrapping them as the single field", () => {
		for (const tool of ["bash", "read", "grep", "find", "ls"] as const) {
			for (const text of literals) {
				const result = builtin(tool, text);
				expect(result.outcome, `${tool} ${text}`).toBe("unrepairable");
				expect(result.retryMessage, `${tool} ${text}`).toBeDefined();
			}
		}
	});

	it("refuses decoded literals too", () => {
		for (const value of [null, true, false, 0, 5]) expect(builtin("bash", value).outcome).toBe("unrepairable");
	});
});

describe("broken, encoded or framed JSON is never wrapped as the single string field", () => {
	const object = '{"command":"rm -rf /tmp/x"}';
	const framed = [
		`\u200b${object}`,
		`\ufeff${object}`,
		`\u0000${object}`,
		`json ${object}`,
		`json\n${object}`,
		`JSON: ${object}`,
		`(${object})`,
		`'${object}`,
		`\`${object}`,
		`<tool_call>${object}</tool_call>`,
		`<tool_call>\n${object}`,
		// A sentinel-token tag (`<|tool_call|>`) and a zero-width character before a cut object, found by the fuzz campaign.
		"<|tool_call|>\u200b{",
		// Stacked labels before an opening, found by the fuzz campaign.
		"json json [",
		`<｜DSML｜invoke>${object}`,
		`\`\`\`json\n${object}`,
		`\`\`\`json\n{"command":"ls"`,
		`"${object}`,
		'"{\\"command\\":\\"rm -rf /tmp/x',
		JSON.stringify(JSON.stringify(object)).slice(0, -4),
		`\u200b[${object}]`,
		`json [${object}]`,
		`json Arguments:\n${object}`,
		`Here are the arguments for the call: ${object}`,
	];

	it("refuses every prefixed, framed or cut encoding", () => {
		for (const text of framed) {
			const result = builtin("bash", text);
			expect(result.outcome, JSON.stringify(text)).toBe("unrepairable");
			expect(result.changes).toEqual([]);
		}
	});

	it("decodes exactly one enclosing fence or quoting layer around a complete object, and records it", () => {
		const once = [
			`\`\`\`json\n${object}\n\`\`\``,
			`\`\`\`\n${object}\n\`\`\``,
			`~~~json\n${object}\n~~~`,
			`'${object}'`,
			`\`${object}\``,
			`"${object}"`,
		];
		for (const text of once) {
			const result = builtin("bash", text);
			expect(result.outcome, JSON.stringify(text)).toBe("repaired");
			expect(result.args).toEqual({ command: "rm -rf /tmp/x" });
			expect(ruleIds(result)).toEqual(["envelope.unwrap-framed-json"]);
		}
	});

	it("never decodes two layers of framing, or a fence around more than the object", () => {
		for (const text of [
			`'\`\`\`json\n${object}\n\`\`\`'`,
			`''${object}''`,
			`\`\`\`json\n${object}\n\`\`\`\nand more`,
			`\`\`\`json\n${object}\n${object}\n\`\`\``,
			`'${object.slice(0, -1)}'`,
		]) {
			expect(builtin("bash", text).outcome, JSON.stringify(text)).toBe("unrepairable");
		}
	});

	it("still wraps a plain command, a quoted word and a markdown-link path", () => {
		expect(builtin("bash", "ls -la").args).toEqual({ command: "ls -la" });
		expect(builtin("bash", "(cd /tmp && ls)").args).toEqual({ command: "(cd /tmp && ls)" });
		expect(builtin("read", "[notes.md](http://notes.md)").args).toEqual({ path: "notes.md" });
	});
});

describe("no meaning-changing conversion", () => {
	it("refuses a boolean in a content, command, path or edit-text field, before pi would convert it", () => {
		const cases: [Parameters<typeof builtin>[0], unknown][] = [
			["bash", { command: true }],
			["powershell", { command: false }],
			["read", { path: true }],
			["write", { path: "/a", content: false }],
			["write", { path: false, content: "x" }],
			["edit", { path: "/a", edits: [{ oldText: true, newText: "x" }] }],
			["edit", { path: "/a", edits: [{ oldText: "x", newText: false }] }],
		];
		for (const [tool, input] of cases) {
			const result = builtin(tool, input);
			expect(result.outcome, JSON.stringify(input)).toBe("unrepairable");
			expect(result.retryMessage).toMatch(/string/i);
		}
	});

	it("turns only decimal JSON number text into a number", () => {
		// `""` is not here: for an optional field it is an omitted value, dropped with a note (see argument-shapes.test.ts).
		for (const limit of ["0x10", "1e3", " 5 ", "5 ", "+5", "05", "Infinity", "5.", ".5"]) {
			const result = builtin("read", { path: "/a", limit });
			expect(result.outcome, JSON.stringify(limit)).toBe("unrepairable");
		}
	});

	it("leaves the lossless conversions pi makes itself as the original had them", () => {
		const input = { path: "/a", limit: "5", offset: "-0" };
		const result = builtin("read", input);
		expect(result.outcome).toBe("valid");
		expect(result.args).toBe(input);
	});

	it("records a conversion it makes while repairing something else", () => {
		const result = builtin("read", { file_path: "/a", limit: "5" });
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "/a", limit: 5 });
		expect(ruleIds(result)).toEqual(["preprocess.exact-alias", "convertScalarToSchemaType"]);
		const engine = builtin("read", { path: "/a", limit: "5", offset: null });
		expect(ruleIds(engine)).toEqual(["dropNullOrUndefinedField", "convertScalarToSchemaType"]);
	});

	it("never turns null into anything", () => {
		expect(builtin("read", { path: null }).outcome).toBe("unrepairable");
		expect(builtin("edit", { path: "/a", edits: [{ oldText: null, newText: "x" }] }).outcome).toBe("unrepairable");
	});
});

describe("notes do not multiply", () => {
	const edits = (count: number) =>
		Array.from({ length: count }, (_, index) => ({ old_string: `a${index}`, new_string: `b${index}` }));

	it("reports identical changes once, with a count", () => {
		const result = builtin("edit", { path: "/a", edits: edits(100) });
		expect(result.outcome).toBe("repaired");
		expect(ruleIds(result)).toEqual(["preprocess.exact-alias", "preprocess.exact-alias"]);
		expect(result.changes[0]!.note).toContain("old_string");
		expect(result.changes[0]!.note).toContain("100");
		expect(result.changes[1]!.note).toContain("new_string");
	});

	it("keeps the notes small whatever the input size", () => {
		const varied = Array.from({ length: 240 }, (_, index) => ({
			[OLD_TEXT_ALIASES[index % OLD_TEXT_ALIASES.length]!]: `a${index}`,
			[NEW_TEXT_ALIASES[index % NEW_TEXT_ALIASES.length]!]: `b${index}`,
		}));
		const result = builtin("edit", { path: "/a", edits: varied });
		expect(result.outcome).toBe("repaired");
		expect(ruleIds(result)).toEqual(["preprocess.exact-alias"]);
		expect(result.changes[0]!.note).toContain("479 similar changes");
		const name = "n".repeat(60_000);
		const linked = builtin("read", { path: `/x/[${name}](http://${name})` });
		expect(linked.outcome).toBe("repaired");
		expect(linked.changes[0]!.note.length).toBeLessThanOrEqual(1001);
	});
});

describe("limits hold for every input", () => {
	it("collects many changes without overflowing the stack", () => {
		const many = Array.from({ length: 150_000 }, () => ({ old_string: "a", new_string: "b" }));
		const result = builtin("edit", { path: "/a", edits: many }, { limits: { maxNodes: 1e7, maxNestingDepth: 64 } });
		expect(result.outcome).toBe("repaired");
		expect(result.changes.length).toBe(2);
	});

	it("repairs a plain object whatever the bytes of its strings: the bounds are on values and depth", () => {
		const big = { path: "/a", edits: [{ old_string: "x".repeat(300_000), new_string: "y" }] };
		const result = builtin("edit", big);
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "/a", edits: [{ oldText: "x".repeat(300_000), newText: "y" }] });
	});

	it("refuses a plain object nested deeper than the bound, never crashing", () => {
		let deep: unknown = "x";
		for (let level = 0; level < 20_000; level++) deep = { a: deep };
		const input = { file_path: "/a", deep };
		const result = builtin("read", input);
		expect(result.outcome).toBe("unrepairable");
		expect(result.retryMessage).toContain("too complex to repair");
	});

	it("still accepts a valid call of any size", () => {
		const input = { path: "/a", content: "x".repeat(1_000_000) };
		const result = builtin("write", input);
		expect(result.outcome).toBe("valid");
		expect(result.args).toBe(input);
	});
});

describe("token cleanup inside a stringified edits array, canonical or aliased", () => {
	const piEdit = createEditToolDefinition("/tmp");
	const withPiShim = {
		modelId: GLM,
		ownerPrepareArguments: (args: unknown) => piEdit.prepareArguments?.(args) ?? args,
		ownerPrepareApplies: OWNER_SHIM_APPLIES.edit,
	};
	const leakedEdits = JSON.stringify([{ "<arg_key>oldText</arg_key>": "<arg_value>a", newText: "b</arg_value>" }]);

	for (const key of ["edits", ...EDITS_ALIASES]) {
		for (const [label, extras] of [
			["the tables alone", { modelId: GLM }],
			["pi's edit shim", withPiShim],
		] as const) {
			it(`repairs the leaked keys under "${key}" with ${label}, keeps the edit texts, and the result is valid`, () => {
				const first = builtin("edit", { path: "/a", [key]: leakedEdits }, extras);
				expect(first.outcome).toBe("repaired");
				expect(first.args).toEqual({ path: "/a", edits: [{ oldText: "<arg_value>a", newText: "b</arg_value>" }] });
				const second = builtin("edit", first.args, extras);
				expect(second.outcome).toBe("valid");
				expect(second.args).toBe(first.args);
			});
		}
	}

	it("still refuses when the cleaned keys are not the edit's keys", () => {
		const edits = JSON.stringify([{ "<arg_key>oldTxt</arg_key>": "a", newText: "b" }]);
		expect(builtin("edit", { path: "/a", changes: edits }, { modelId: GLM }).outcome).toBe("unrepairable");
	});

	it("leaves the tokens alone for a model that does not leak them", () => {
		const result = builtin("edit", { path: "/a", changes: leakedEdits }, { modelId: "claude-opus-4-8" });
		expect(result.outcome).toBe("unrepairable");
	});
});
