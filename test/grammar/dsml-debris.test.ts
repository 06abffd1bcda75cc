import { describe, expect, it } from "vitest";
import { recoverGrammarLeaks } from "../../src/grammar/index.ts";
import type { GrammarRecoveryOptions, MinimalAssistantMessage } from "../../src/grammar/types.ts";

const BAR = "\uff5c";
const compact = (tool: string, body: string) =>
	`<${BAR}${BAR}DSML${BAR}${BAR}r=${tool}>\n${body}\n<${BAR}${BAR}DSML${BAR}${BAR}m>`;
const collapsed = (tool: string, value: string) => `<${BAR}DSML${BAR}${tool}>${value}</${BAR}DSML${BAR}${tool}>`;

const oneString = (field: string) => ({
	type: "object",
	properties: { [field]: { type: "string" } },
	required: [field],
});
const schemas = new Map<string, unknown>([
	["execute_bash", oneString("command")],
	["read_file", oneString("path")],
	[
		"bash",
		{ type: "object", properties: { command: { type: "string" }, timeout: { type: "number" } }, required: ["command"] },
	],
	["count", { type: "object", properties: { n: { type: "integer" } } }],
]);

function message(text: string): MinimalAssistantMessage {
	return { role: "assistant", content: [{ type: "text", text }], stopReason: "stop" };
}

// The caller names the built-ins debris may become; these one-field stand-ins play that part.
const BUILTINS = new Set(["execute_bash", "read_file", "bash", "count"]);

function recover(text: string, overrides: Partial<GrammarRecoveryOptions> = {}) {
	return recoverGrammarLeaks(message(text), {
		mode: "recover",
		knownTools: new Set(["execute_bash", "read_file", "bash", "count"]),
		toolSchemas: schemas,
		debrisTools: BUILTINS,
		now: () => 0,
		...overrides,
	});
}

const textOf = (result: ReturnType<typeof recover>) => (result.message.content[0] as { text: string }).text;

describe("collapsed DSML debris runs only when the tool's one string field is the only place its value can go", () => {
	it("promotes the compact r=NAME form when the tool has a single string field named like its parameter", () => {
		const result = recover(`Running it.\n${compact("execute_bash", "<parameter=command>ls -la</parameter>")}`);
		expect(result.promoted).toBe(true);
		expect(result.recoveredCalls).toEqual([
			{ name: "execute_bash", arguments: { command: "ls -la" }, grammar: "dsml" },
		]);
		expect(textOf(result)).toBe("Running it.");
	});

	it("promotes a collapsed tool-name tag whose one-line value has no parameter name", () => {
		const result = recover(`Reading.\n${collapsed("read_file", "notes/today.md")}`);
		expect(result.recoveredCalls).toEqual([
			{ name: "read_file", arguments: { path: "notes/today.md" }, grammar: "dsml" },
		]);
	});

	// DeepSeek V4.1 collapses bash's call to its one required field (seen in pi sessions); timeout is optional.
	it("promotes bash debris: its one required field is the string command and timeout is optional", () => {
		const result = recover(`Running it.\n${compact("bash", "<parameter=command>ls</parameter>")}`);
		expect(result.promoted).toBe(true);
		expect(result.recoveredCalls).toEqual([{ name: "bash", arguments: { command: "ls" }, grammar: "dsml" }]);
		expect(textOf(result)).toBe("Running it.");
		expect(recover(collapsed("bash", "git status")).recoveredCalls).toEqual([
			{ name: "bash", arguments: { command: "git status" }, grammar: "dsml" },
		]);
	});

	it("only strips the tags when the value could belong to another field", () => {
		const near = new Map<string, unknown>([
			// Two required fields: the value could be either.
			[
				"run",
				{
					type: "object",
					properties: { command: { type: "string" }, cwd: { type: "string" } },
					required: ["command", "cwd"],
				},
			],
			// Two fields, none required: no field is the one the value must fill.
			["shell", { type: "object", properties: { command: { type: "string" }, timeout: { type: "number" } } }],
			// The one required field is not a string.
			[
				"wait",
				{
					type: "object",
					properties: { seconds: { type: "number" }, note: { type: "string" } },
					required: ["seconds"],
				},
			],
		]);
		const options = { knownTools: new Set(near.keys()), toolSchemas: near, debrisTools: new Set(near.keys()) };
		for (const tool of near.keys()) {
			const result = recover(`Running it.\n${compact(tool, "<parameter=command>ls</parameter>")}`, options);
			expect(result.promoted, tool).toBe(false);
			expect(textOf(result), tool).toBe("Running it.\n\n<parameter=command>ls</parameter>");
			expect(recover(collapsed(tool, "5"), options).promoted, tool).toBe(false);
		}
		// The parameter written is bash's optional field, not its required one.
		expect(recover(compact("bash", "<parameter=timeout>ls</parameter>")).promoted).toBe(false);
	});

	it("never promotes bash debris that is not pi's active built-in, or that is not the model's own call", () => {
		const debris = collapsed("bash", "rm -rf build");
		expect(recover(debris, { debrisTools: new Set(["read"]) }).promoted).toBe(false);
		expect(recover(debris, { knownTools: new Set(["read"]) }).promoted).toBe(false);
		expect(recover(`\`\`\`\n${debris}\n\`\`\``).promoted).toBe(false);
		expect(recover(`<think>${debris}</think>\nDone.`).promoted).toBe(false);
		expect(recover(`I will not run ${debris} because it deletes files.`).promoted).toBe(false);
		expect(recover(debris, { echoSources: [`The log said: ${debris}`] }).promoted).toBe(false);
	});

	it("only strips the tags when the one field is not a string", () => {
		const result = recover(collapsed("count", "5"));
		expect(result.promoted).toBe(false);
		expect(textOf(result)).toBe("5");
	});

	it("only strips the tags when the parameter name is not the tool's field", () => {
		const result = recover(compact("execute_bash", "<parameter=cmd>ls</parameter>"));
		expect(result.promoted).toBe(false);
		expect(textOf(result)).toBe("<parameter=cmd>ls</parameter>");
	});

	it("runs nothing for a tool that is not known, or whose schema is not known", () => {
		const unknown = recover(compact("deploy", "<parameter=command>ls</parameter>"));
		expect(unknown.promoted).toBe(false);
		const noSchema = recover(compact("execute_bash", "<parameter=command>ls</parameter>"), {
			toolSchemas: new Map(),
		});
		expect(noSchema.promoted).toBe(false);
		expect(textOf(noSchema)).toBe("<parameter=command>ls</parameter>");
	});

	it("runs nothing when the value is quoted code or the debris is in reasoning", () => {
		expect(recover(collapsed("read_file", "`notes/today.md`")).promoted).toBe(false);
		expect(recover(`\`\`\`\n${collapsed("read_file", "notes/today.md")}\n\`\`\``).changed).toBe(false);
		const reasoning = recover(`<think>${collapsed("read_file", "notes/today.md")}</think>\nDone.`);
		expect(reasoning.promoted).toBe(false);
		expect(reasoning.changed).toBe(false);
	});

	it("runs nothing for debris that names no tool, only a parameter", () => {
		const openerLess = [
			`<${BAR}DSML${BAR} parameter name="command" string="true">rm -rf build</${BAR}DSML${BAR} parameter>`,
			`</${BAR}DSML${BAR} invoke>`,
		].join("\n");
		const result = recover(openerLess, { knownTools: new Set(["execute_bash"]) });
		expect(result.promoted).toBe(false);
		expect(textOf(result)).toBe("rm -rf build");
	});

	it("runs nothing for a value spread over several lines or holding markup", () => {
		expect(recover(collapsed("read_file", "a.md\nb.md")).promoted).toBe(false);
		expect(recover(collapsed("read_file", "<b>a.md</b>")).promoted).toBe(false);
	});
});

describe("text never becomes code", () => {
	it("promotes debris only into a tool the caller names as one of pi's built-ins", () => {
		const text = `Reading.\n${collapsed("read_file", "notes/today.md")}`;
		// Without a list, only pi's built-in names qualify; read_file is an extension's tool.
		expect(recover(text, { debrisTools: undefined }).promoted).toBe(false);
		expect(recover(text, { debrisTools: new Set(["read"]) }).promoted).toBe(false);
	});

	it("never promotes debris or a whole leak into codemode or a tool that takes a script", () => {
		const scriptSchemas = new Map<string, unknown>([
			["codemode", oneString("code")],
			["run_python", oneString("script")],
		]);
		const options = {
			knownTools: new Set(["codemode", "run_python"]),
			toolSchemas: scriptSchemas,
			debrisTools: new Set(["codemode", "run_python"]),
		};
		expect(recover(collapsed("codemode", "await tools.bash({command: 'id'})"), options).promoted).toBe(false);
		expect(recover(collapsed("run_python", "import os"), options).promoted).toBe(false);
		const whole = `<tool_call>\n<function=codemode>\n<parameter=code>\nawait tools.bash({command: "id"})\n</parameter>\n</function>\n</tool_call>`;
		expect(recover(whole, options).promoted).toBe(false);
		const unschemed = recover(whole, { ...options, toolSchemas: new Map() });
		expect(unschemed.promoted).toBe(false);
	});
});
