/**
 * Composition with another extension, through pi's real agent loop
 * in-process, in both load orders: a sandboxed `bash` override, a TypeBox
 * todo tool and an MCP-style plain-JSON-Schema tool (test/fixtures/
 * composing-extension.ts). The sandbox must stay in effect for valid,
 * aliased and rescued calls; other owners' calls are repaired against their
 * own schema and noted; garbage is refused with a message the model can act
 * on; valid calls change nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEditToolDefinition, type ExtensionAPI, type InlineExtension } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { afterEach, describe, expect, it } from "vitest";
import { piCoercion } from "../../src/extension/repair/message-repair.ts";
import repairExtension from "../../src/index.ts";
import composingExtension, { SANDBOX_PREFIX } from "../fixtures/composing-extension.ts";
import type { ScriptedToolCall } from "../fixtures/scripted-provider.ts";
import { ALL_BUILTIN_TOOLS, type PiSessionHarness, startPiSession } from "../helpers/pi-session.ts";

const NOTE = "<repair_note>";
const TOOLS = [...ALL_BUILTIN_TOOLS, "todo", "lookup", "open_note"];

function countNotes(text: string): number {
	return text.split(NOTE).length - 1;
}

/**
 * `pick`, whose `ids` is a list of numbers, and an `edit` built on pi's own
 * definition (schema and shim) that answers with the arguments it received.
 */
function pickExtension(pi: ExtensionAPI): void {
	pi.registerTool({
		name: "pick",
		label: "Pick",
		description: "Pick items by id",
		parameters: Type.Object({ ids: Type.Array(Type.Number()) }),
		execute: (_id, params) =>
			Promise.resolve({
				content: [{ type: "text", text: `pick received ${JSON.stringify(params)}` }],
				details: undefined,
			}),
	});
	const edit = createEditToolDefinition(process.cwd());
	pi.registerTool({
		...edit,
		execute: (_id, params) =>
			Promise.resolve({
				content: [{ type: "text", text: `edit received ${JSON.stringify(params)}` }],
				details: undefined,
			}),
	});
}

const ORDERS: [string, InlineExtension[]][] = [
	["the layer loaded first", [repairExtension, composingExtension]],
	["the layer loaded second", [composingExtension, repairExtension]],
];

describe.each(ORDERS)("composition with %s", (_label, extensions) => {
	let run: PiSessionHarness | undefined;
	let root: string | undefined;
	afterEach(async () => {
		await run?.dispose();
		run = undefined;
		if (root !== undefined) rmSync(root, { recursive: true, force: true });
		root = undefined;
	});

	async function play(calls: ScriptedToolCall[], env: Record<string, string | undefined> = {}) {
		root = mkdtempSync(join(tmpdir(), "pi-repair-compose-"));
		writeFileSync(join(root, "settings.json"), JSON.stringify({ toolAliases: { bash: { command: ["cmd"] } } }));
		run = await startPiSession({ extensions: [...extensions, pickExtension], tools: [...TOOLS, "pick"], root, env });
		await run.play([{ toolCalls: calls }, { type: "echo" }]);
		return run;
	}

	it("never replaces the sandboxed bash: valid, aliased and rescued calls all reach the sandbox", async () => {
		const r = await play([
			{ id: "valid", name: "bash", arguments: { command: "echo one" } },
			{ id: "aliased", name: "bash", arguments: { cmd: "echo two" } },
			{ id: "rescued", name: "bash", rawArguments: JSON.stringify(JSON.stringify({ command: "echo three" })) },
		]);
		expect(r.resultText("valid")).toBe(`${SANDBOX_PREFIX}echo one`);
		expect(r.resultText("aliased")).toContain(`${SANDBOX_PREFIX}echo two`);
		expect(countNotes(r.resultText("aliased"))).toBe(1);
		expect(r.resultText("rescued")).toContain(`${SANDBOX_PREFIX}echo three`);
		expect(countNotes(r.resultText("rescued"))).toBe(1);
		const bash = r.session.getAllTools().find((tool) => tool.name === "bash");
		expect(bash?.description).toContain("(sandboxed)");
	});

	it.each([
		["its session_start", "1"],
		["resources_discover", "resources_discover"],
		["before_agent_start", "before_agent_start"],
	])("also leaves a sandbox registered late (in %s) in place and repairs its calls", async (_event, when) => {
		const r = await play(
			[
				{ id: "late", name: "bash", arguments: { command: "echo late" } },
				{ id: "late-alias", name: "bash", arguments: { cmd: "echo aliased" } },
			],
			{ PI_FIXTURE_LATE_BASH: when },
		);
		expect(r.resultText("late")).toBe(`${SANDBOX_PREFIX}echo late`);
		expect(r.resultText("late-alias")).toContain(`${SANDBOX_PREFIX}echo aliased`);
		expect(countNotes(r.resultText("late-alias"))).toBe(1);
		const bash = r.session.getAllTools().find((tool) => tool.name === "bash");
		expect(bash?.description).toContain("(sandboxed)");
	});

	it("registers no tool of its own, and still repairs the built-ins pi owns with their tables", async () => {
		const r = await play([{ id: "r", name: "read", arguments: { file_path: "missing-but-aliased.txt" } }]);
		expect(r.resultText("r")).toContain(NOTE);
		expect(r.resultText("r")).toContain("file_path");
		const builtins = r.session.getAllTools().filter((tool) => tool.sourceInfo.source === "builtin");
		expect(builtins.map((tool) => tool.name).sort()).toEqual(
			ALL_BUILTIN_TOOLS.filter((name) => name !== "bash" && name !== "edit").sort(),
		);
	});

	it("runs what pi's coercion runs losslessly (a number as a one-item list), and a foreign edit on pi's shim", async () => {
		const r = await play([
			{ id: "ids", name: "pick", arguments: { ids: 42 } },
			{ id: "edit", name: "edit", arguments: { path: "a.txt", edits: { oldText: "x", newText: "y" } } },
		]);
		expect(r.toolResult("ids")?.isError).toBe(false);
		expect(r.resultText("ids")).toBe('pick received {"ids":[42]}');
		expect(r.toolResult("edit")?.isError).toBe(false);
		expect(r.resultText("edit")).toContain('"edits":[{"oldText":"x","newText":"y"}]');
	});

	it("repairs a stringified todos array, a null optional and a stringified root object, each with one note", async () => {
		const r = await play([
			{ id: "list", name: "todo", arguments: { todos: JSON.stringify([{ text: "a" }]) } },
			{ id: "null", name: "todo", arguments: { todos: [{ text: "b" }], note: null } },
			{ id: "root", name: "todo", rawArguments: JSON.stringify(JSON.stringify({ todos: [{ text: "c" }] })) },
			{ id: "mcp", name: "lookup", arguments: { query: "x", keys: JSON.stringify(["k"]) } },
		]);
		for (const id of ["list", "null", "root", "mcp"]) {
			expect(r.toolResult(id)?.isError, id).toBe(false);
			expect(countNotes(r.resultText(id)), id).toBe(1);
		}
		expect(r.resultText("list")).toContain('todo received {"todos":[{"text":"a"}]}');
		expect(r.resultText("null")).toContain('todo received {"todos":[{"text":"b"}]}');
		expect(r.resultText("root")).toContain('todo received {"todos":[{"text":"c"}]}');
		expect(r.resultText("mcp")).toContain('lookup received {"query":"x","keys":["k"]}');
	});

	it("refuses garbage with a message the model can act on, and never tells it it sent {}", async () => {
		const r = await play([
			{ id: "garbage", name: "todo", rawArguments: "add milk to the list" },
			{ id: "null-required", name: "lookup", arguments: { query: null } },
			{ id: "list-literal", name: "lookup", arguments: { query: "x", keys: "['a', 'b']" } },
			{ id: "extra", name: "lookup", arguments: { query: "x", verbose: true } },
		]);
		for (const id of ["garbage", "null-required", "list-literal", "extra"]) {
			expect(r.toolResult(id)?.isError, id).toBe(true);
		}
		// pi's own message, quoting what the model really sent.
		expect(r.resultText("garbage")).toContain("add milk to the list");
		// pi would have run these with "null" and ["['a', 'b']"]: the layer refuses them instead.
		expect(r.resultText("null-required")).toContain("call it again");
		// pi 1.3 refuses a string where its plain JSON Schema wants an array itself; later releases wrap it.
		const piWrapsString =
			piCoercion("probe", { type: "object", properties: { keys: { type: "array" } } }, { keys: "x" }) !== undefined;
		expect(r.resultText("list-literal")).toContain(piWrapsString ? "call it again" : "keys: must be array");
		expect(r.resultText("null-required")).not.toContain("lookup received");
		// Fail open: pi's own validation names the unknown property.
		expect(r.resultText("extra")).toContain("verbose");
	});

	it("keeps an adapted tool's errors accurate: rescued when repairable, else pi's message with the text", async () => {
		const r = await play([
			{ id: "alias", name: "open_note", arguments: { file_path: "a.md" } },
			{ id: "rescued", name: "open_note", rawArguments: JSON.stringify(JSON.stringify({ path: "b.md" })) },
			{ id: "broken", name: "open_note", rawArguments: '{"path": "c.md' },
		]);
		expect(r.resultText("alias")).toContain('open_note received {"path":"a.md"}');
		expect(r.resultText("rescued")).toContain('open_note received {"path":"b.md"}');
		expect(countNotes(r.resultText("rescued"))).toBe(1);
		expect(r.toolResult("broken")?.isError).toBe(true);
		expect(r.resultText("broken")).toContain('{"path": "c.md');
		expect(r.resultText("broken")).not.toContain("Received: {}");
	});

	it("changes nothing for valid calls: no note, the arguments as sent", async () => {
		const r = await play([
			{ id: "todo", name: "todo", arguments: { todos: [{ text: "a", done: true }] } },
			{ id: "lookup", name: "lookup", arguments: { query: "q", limit: 3 } },
		]);
		expect(r.resultText("todo")).toBe('todo received {"todos":[{"text":"a","done":true}]}');
		expect(r.resultText("lookup")).toBe('lookup received {"query":"q","limit":3}');
	});

	it("counts other owners' repairs in telemetry by owner kind, value-free", async () => {
		const r = await play([{ id: "list", name: "todo", arguments: { todos: JSON.stringify([{ text: "secret" }]) } }]);
		const records = r.telemetry().filter((record) => record.tool === "todo");
		expect(records).toHaveLength(1);
		expect(records[0]).toMatchObject({ outcome: "repaired", owner: "extension" });
		expect(JSON.stringify(r.telemetry())).not.toContain("secret");
	});
});

describe("codemode's nested calls of other owners' tools (codemodeRepair)", () => {
	let run: PiSessionHarness | undefined;
	let root: string | undefined;
	afterEach(async () => {
		await run?.dispose();
		run = undefined;
		if (root !== undefined) rmSync(root, { recursive: true, force: true });
		root = undefined;
	});

	const code = [
		'const listed = await tools.todo({ todos: JSON.stringify([{ text: "nested" }]) }).then(String, (e) => "failed: " + e.message);',
		'const refused = await tools.lookup({ query: null }).then(String, (e) => "failed: " + e.message);',
		'return "listed=" + listed + "\\nrefused=" + refused;',
	].join("\n");

	async function playWith(settings: Record<string, unknown>) {
		root = mkdtempSync(join(tmpdir(), "pi-repair-compose-"));
		writeFileSync(join(root, "settings.json"), JSON.stringify(settings));
		const factories: InlineExtension[] = [repairExtension, composingExtension];
		run = await startPiSession({ extensions: factories, codemode: true, tools: [...TOOLS, "codemode"], root });
		await run.play([{ toolCalls: [{ id: "cm", name: "codemode", arguments: { code } }] }, { type: "echo" }]);
		return run.resultText("cm");
	}

	it("repairs them when the setting is on, notes the parent once per repair and refuses what pi would coerce", async () => {
		const text = await playWith({ codemodeRepair: true });
		expect(text).toContain("Script completed");
		expect(text).toContain('listed=todo received {"todos":[{"text":"nested"}]}');
		expect(text).toMatch(/refused=failed: .*call it again/s);
		expect(text).not.toContain("lookup received");
		expect(countNotes(text)).toBe(1);
	});

	it("never replaces another extension's codemode, loaded after the layer, and leaves its nested calls alone", async () => {
		root = mkdtempSync(join(tmpdir(), "pi-repair-compose-"));
		writeFileSync(join(root, "settings.json"), JSON.stringify({ codemodeRepair: true }));
		const otherCodemode = (pi: ExtensionAPI) =>
			pi.registerTool({
				name: "codemode",
				label: "Other codemode",
				description: "Another extension's codemode",
				parameters: Type.Object({ code: Type.String() }),
				execute: () =>
					Promise.resolve({ content: [{ type: "text", text: "the other codemode ran" }], details: undefined }),
			});
		run = await startPiSession({
			extensions: [repairExtension, composingExtension, otherCodemode],
			tools: [...TOOLS, "codemode"],
			root,
		});
		await run.play([{ toolCalls: [{ id: "cm", name: "codemode", arguments: { code } }] }, { type: "echo" }]);
		expect(run.resultText("cm")).toBe("the other codemode ran");
		const codemodeTool = run.session.getAllTools().find((tool) => tool.name === "codemode");
		expect(codemodeTool?.description).toBe("Another extension's codemode");
	});

	it("leaves them to pi when the setting is off (the default)", async () => {
		const text = await playWith({});
		expect(text).toContain("listed=failed:");
		expect(countNotes(text)).toBe(0);
	});
});
