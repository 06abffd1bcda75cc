import { afterEach, describe, expect, it, vi } from "vitest";
import type { RepairFeedback } from "../../src/core/types.ts";
import type { LeakTextEvent, RepairSettings, TelemetryRecorder } from "../../src/extension/host/types.ts";
import {
	createGrammarLeakHandler,
	type GrammarLeakHandlerDeps,
	grammarRecoveryNote,
	splitCallNote,
} from "../../src/extension/leaks/grammar-leaks.ts";
import { FAMILY_STEPS } from "../../src/grammar/families/index.ts";
import { dsmlBlock, splitCallMessage } from "../fixtures/split-calls.ts";

const glmRead = "<tool_call>read\n<arg_key>path</arg_key>\n<arg_value>notes.md</arg_value>\n</tool_call>";

interface Recorded {
	kind: string;
	event: unknown;
}

function setup(overrides: Partial<RepairSettings> = {}, deps: Partial<GrammarLeakHandlerDeps> = {}) {
	const settings: RepairSettings = {
		showIndicator: true,
		showNotes: false,
		grammarRecovery: "recover",
		grammarAllowedTools: [],
		policyProfile: "adaptive",
		unknownGrammarText: "preserve",
		repairToolNames: false,
		askOnSilentStop: true,
		...overrides,
	};
	const records: Recorded[] = [];
	const telemetry: TelemetryRecorder = {
		toolOutcome: (event) => records.push({ kind: "toolOutcome", event }),
		toolObservation: (event) => records.push({ kind: "toolObservation", event }),
		grammarRecovered: (event) => records.push({ kind: "recovered", event }),
		grammarStripped: (event) => records.push({ kind: "stripped", event }),
		grammarObserved: (event) => records.push({ kind: "observed", event }),
	};
	const promoted: Array<{ callId: string; toolName: string; feedback: RepairFeedback }> = [];
	const handler = createGrammarLeakHandler({
		settings: () => settings,
		modelId: () => "glm-4.6",
		activeTools: () => ["read", "bash"],
		toolSchemas: () => new Map(),
		telemetry,
		onPromoted: (callId, toolName, feedback) => promoted.push({ callId, toolName, feedback }),
		now: () => 0,
		...deps,
	});
	return { handler, records, promoted };
}

const assistant = (text: string, stopReason = "stop") => ({
	role: "assistant",
	content: [{ type: "text", text: `Let me read that file.\n${text}` }],
	stopReason,
});

describe("the message_end grammar handler promotes, strips or observes leaked calls and reports each", () => {
	it("promotes a leak, reports it per call and hands the feedback to onPromoted", () => {
		const { handler, records, promoted } = setup();
		const out = handler(assistant(glmRead));
		expect(out?.message.stopReason).toBe("toolUse");
		expect(out?.message.content.at(-1)).toMatchObject({
			type: "toolCall",
			name: "read",
			arguments: { path: "notes.md" },
		});
		expect(promoted).toEqual([
			{
				callId: "tool_repair_glm_0_0",
				toolName: "read",
				feedback: {
					rules: ["grammarRecovery:glm"],
					notes: [grammarRecoveryNote("glm", "read")],
					stages: ["grammar"],
					profile: "adaptive",
					model: "glm-4.6",
					outcome: "recovered",
				},
			},
		]);
		expect(records).toEqual([
			{ kind: "recovered", event: { tool: "read", model: "glm-4.6", grammar: "glm", profile: "adaptive" } },
		]);
	});

	it("writes a note that names the grammar and the tool and advises native tool calls", () => {
		const note = grammarRecoveryNote("glm", "read");
		expect(note).toContain("glm");
		expect(note).toContain("read");
		expect(note).toMatch(/native tool-calling/);
	});

	it("does nothing and records nothing when grammarRecovery is off", () => {
		const { handler, records } = setup({ grammarRecovery: "off" });
		expect(handler(assistant(glmRead))).toBeUndefined();
		expect(records).toEqual([]);
	});

	it("ignores non-assistant messages and models that do not leak grammar", () => {
		expect(setup().handler({ ...assistant(glmRead), role: "user" })).toBeUndefined();
		const other = setup({}, { modelId: () => "claude-opus-4-8" });
		expect(other.handler(assistant(glmRead))).toBeUndefined();
		expect(other.records).toEqual([]);
	});

	it("strips without promoting on stopReason length and records one stripped event", () => {
		const { handler, records, promoted } = setup();
		const out = handler(assistant(glmRead, "length"));
		expect(out?.message.content).toEqual([{ type: "text", text: "Let me read that file." }]);
		expect(promoted).toEqual([]);
		expect(records).toEqual([
			{ kind: "stripped", event: { model: "glm-4.6", grammars: ["glm"], profile: "adaptive" } },
		]);
	});

	it("records observed, and changes nothing, in observe mode", () => {
		const { handler, records } = setup({ grammarRecovery: "observe" });
		expect(handler(assistant(glmRead))).toBeUndefined();
		expect(records).toEqual([
			{ kind: "observed", event: { model: "glm-4.6", grammars: ["glm"], profile: "adaptive" } },
		]);
	});

	it("records observed when the only detection is an unknown tool kept by the preserve policy", () => {
		const { handler, records } = setup({ grammarRecovery: "strip" }, { activeTools: () => ["bash"] });
		expect(handler(assistant(glmRead))).toBeUndefined();
		expect(records.map((r) => r.kind)).toEqual(["observed"]);
	});

	it("lets a non-empty grammarAllowedTools replace the active tools", () => {
		const { handler, promoted } = setup({ grammarAllowedTools: ["read"] }, { activeTools: () => [] });
		handler(assistant(glmRead));
		expect(promoted.map((p) => p.toolName)).toEqual(["read"]);
	});

	it("allows nothing when pi lists no active tools and no allow-list is set", () => {
		const { handler, promoted } = setup({}, { activeTools: () => [] });
		expect(handler(assistant(glmRead))).toBeUndefined();
		expect(promoted).toEqual([]);
	});

	it("types values from the tool schemas it is given", () => {
		const schemas = new Map([["read", { type: "object", properties: { path: { type: "string" } } }]]);
		const { handler } = setup({}, { toolSchemas: () => schemas });
		const leak = "<tool_call>read\n<arg_key>path</arg_key>\n<arg_value>2024</arg_value>\n</tool_call>";
		expect(handler(assistant(leak))?.message.content.at(-1)).toMatchObject({ arguments: { path: "2024" } });
	});

	it("leaves failures to the extension's one contained boundary instead of swallowing them", () => {
		const broken = setup(
			{},
			{
				settings: () => {
					throw new Error("boom");
				},
			},
		);
		expect(() => broken.handler(assistant(glmRead))).toThrow("boom");
		expect(setup().handler(null)).toBeUndefined();
		expect(setup().handler("text")).toBeUndefined();
	});

	it("hands stripped and observed leaks to onLeakText with families, setting and count, never the text", () => {
		const leaks: LeakTextEvent[] = [];
		const stripped = setup({ grammarRecovery: "strip" }, { onLeakText: (leak) => void leaks.push(leak) });
		stripped.handler(assistant(`${glmRead}\n${glmRead.replace("notes.md", "other.md")}`));
		const observed = setup({ grammarRecovery: "observe" }, { onLeakText: (leak) => void leaks.push(leak) });
		observed.handler(assistant(glmRead));
		const promoted = setup({ grammarRecovery: "recover" }, { onLeakText: (leak) => void leaks.push(leak) });
		promoted.handler(assistant(glmRead));
		expect(leaks).toEqual([
			{ outcome: "stripped", grammars: ["glm"], count: 2, mode: "strip" },
			{ outcome: "observed", grammars: ["glm"], count: 1, mode: "observe" },
		]);
		expect(JSON.stringify(leaks)).not.toContain("notes.md");
	});

	it("keeps values out of telemetry", () => {
		const { handler, records } = setup();
		handler(assistant(glmRead));
		expect(JSON.stringify(records)).not.toContain("notes.md");
	});
});

describe("strip removes markup, never the assistant's prose", () => {
	const bareRead = '{"name": "read", "arguments": {"path": "notes.md"}}';
	const pythonicRead = 'read(path="notes.md")';
	const fencedRead = `~~~\n${glmRead}\n~~~`;

	it.each([
		["bare JSON on its own line", bareRead, ["observed"]],
		["a name(arg=…) line", pythonicRead, ["observed"]],
		["bare JSON in a sentence, which is not a leak at all", `The body ${bareRead} is what it sends.`, []],
		["a leak quoted in a tilde fence, which is not a leak at all", fencedRead, []],
	])("leaves %s in place under the strip setting", (_form, text, kinds) => {
		const { handler, records, promoted } = setup({ grammarRecovery: "strip" });
		expect(handler(assistant(text))).toBeUndefined();
		expect(promoted).toEqual([]);
		expect(records.map((r) => r.kind)).toEqual(kinds);
	});

	it("still strips sentinel-framed markup under the strip setting", () => {
		const { handler, records } = setup({ grammarRecovery: "strip" });
		const out = handler(assistant(`${glmRead}\n${pythonicRead}`));
		expect(out?.message.content).toEqual([{ type: "text", text: `Let me read that file.\n\n${pythonicRead}` }]);
		expect(records.map((r) => r.kind)).toEqual(["stripped"]);
	});

	it("unknownGrammarText strip removes an unknown tool's framed markup but not its unframed text", () => {
		const framed = "<tool_call>frob\n<arg_key>level</arg_key>\n<arg_value>max</arg_value>\n</tool_call>";
		const unframed = 'frob(level="max")';
		const { handler } = setup({ unknownGrammarText: "strip" });
		expect(handler(assistant(`${framed}\n${unframed}`))?.message.content).toEqual([
			{ type: "text", text: `Let me read that file.\n\n${unframed}` },
		]);
		expect(handler(assistant(unframed))).toBeUndefined();
	});

	it("records the owner kind of the tool a leak was promoted to, so stats count it with its owner", () => {
		const { handler, records } = setup({}, { ownerOf: (name) => (name === "read" ? "builtin" : undefined) });
		handler(assistant(glmRead));
		expect(records).toEqual([
			{
				kind: "recovered",
				event: { tool: "read", model: "glm-4.6", grammar: "glm", profile: "adaptive", owner: "builtin" },
			},
		]);
	});

	it("promotes a repeated leak once in recover mode", () => {
		const { handler, promoted } = setup();
		const out = handler(assistant(`${glmRead}\n${glmRead}`));
		expect(promoted.map((p) => p.toolName)).toEqual(["read"]);
		expect(out?.message.content.filter((p) => p.type === "toolCall")).toHaveLength(1);
	});
});

describe("a grammar error contained in recovery is reported", () => {
	afterEach(() => {
		vi.restoreAllMocks();
	});

	it("counts it in telemetry with the label and the error's class name only, and leaves the message alone", () => {
		for (const step of FAMILY_STEPS) {
			vi.spyOn(step, "parse").mockImplementation(() => {
				throw new RangeError("notes.md");
			});
		}
		vi.spyOn(process.stderr, "write").mockImplementation(() => true);
		const contained: unknown[] = [];
		const others: string[] = [];
		const telemetry: TelemetryRecorder = {
			toolOutcome: () => others.push("toolOutcome"),
			toolObservation: () => others.push("toolObservation"),
			grammarRecovered: () => others.push("recovered"),
			grammarStripped: () => others.push("stripped"),
			grammarObserved: () => others.push("observed"),
			containedError: (event) => contained.push(event),
		};
		const { handler } = setup({}, { telemetry });
		expect(handler(assistant(glmRead))).toBeUndefined();
		expect(contained).toEqual([{ label: "grammar:recover", error: "RangeError" }]);
		expect(others).toEqual([]);
	});
});

describe("bookkeeping never decides a promotion", () => {
	it("a throwing onPromoted hook or telemetry recorder is contained and reported; the call still runs", () => {
		const contained: unknown[] = [];
		const { handler } = setup(
			{},
			{
				onPromoted: () => {
					throw new Error("hook failed");
				},
			},
		);
		const out = handler(assistant(glmRead));
		expect(out?.message.stopReason).toBe("toolUse");
		expect(out?.message.content.at(-1)).toMatchObject({
			type: "toolCall",
			name: "read",
			arguments: { path: "notes.md" },
		});

		const telemetry: TelemetryRecorder = {
			toolOutcome: () => undefined,
			toolObservation: () => undefined,
			grammarRecovered: () => {
				throw new TypeError("disk full");
			},
			grammarStripped: () => undefined,
			grammarObserved: () => undefined,
			containedError: (event) => contained.push(event),
		};
		const again = setup({}, { telemetry });
		const run = again.handler(assistant(glmRead));
		expect(run?.message.content.at(-1)).toMatchObject({ type: "toolCall", name: "read" });
		expect(again.promoted).toHaveLength(1);
		expect(contained).toEqual([{ label: "grammar:telemetry", error: "TypeError" }]);
	});
});

describe("a split call is merged into its native call before any leak handling (cline#13348)", () => {
	const bash = {
		type: "object",
		properties: { command: { type: "string" }, timeout: { type: "number" } },
		required: ["command"],
	};
	const deps = { modelId: () => "deepseek-v4-flash", toolSchemas: () => new Map<string, unknown>([["bash", bash]]) };

	it("keeps the native ID, binds a note and records the merge under its own rule", () => {
		const { handler, records, promoted } = setup({}, deps);
		const out = handler(splitCallMessage(`Listing.\n${dsmlBlock("bash", { command: "ls" })}`, "bash"));
		expect(out?.message.content).toEqual([
			{ type: "text", text: "Listing." },
			{ type: "toolCall", id: "call_native_1", name: "bash", arguments: { command: "ls" } },
		]);
		expect(promoted).toEqual([
			{
				callId: "call_native_1",
				toolName: "bash",
				feedback: {
					rules: ["mergeSplitCall"],
					notes: [splitCallNote("dsml", "bash")],
					stages: ["grammar"],
					profile: "adaptive",
					model: "deepseek-v4-flash",
					outcome: "recovered",
				},
			},
		]);
		expect(records).toEqual([
			{
				kind: "recovered",
				event: { tool: "bash", model: "deepseek-v4-flash", grammar: "dsml", profile: "adaptive", split: true },
			},
		]);
	});

	it("merges nothing under strip or observe, or when the leak names another tool", () => {
		const message = splitCallMessage(dsmlBlock("bash", { command: "ls" }), "bash");
		for (const mode of ["strip", "observe"] as const) {
			const { handler, promoted } = setup({ grammarRecovery: mode }, deps);
			const out = handler(message);
			expect(out?.message.content.at(-1) ?? message.content.at(-1)).toMatchObject({ arguments: {} });
			expect(promoted).toEqual([]);
		}
		const other = setup({}, deps);
		const out = other.handler(splitCallMessage(dsmlBlock("read", { path: "a" }), "bash"));
		expect(out?.message.content.at(-1)).toMatchObject({ id: "call_native_1", arguments: {} });
		expect(other.promoted).toEqual([]);
	});
});
