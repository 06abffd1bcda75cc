/**
 * Leaks from any model id: families with unambiguous sentinels are looked for
 * whatever the model id, the ambiguous ones only for known leaking families
 * and for the model ids the `leakModels` setting names.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RepairSettings, TelemetryRecorder } from "../../src/extension/host/types.ts";
import { createGrammarLeakHandler } from "../../src/extension/leaks/grammar-leaks.ts";
import { loadLeakModels, parseLeakModels } from "../../src/extension/leaks/leak-models.ts";
import { dsmlWrite } from "../helpers/dsml.ts";

/** One leaked `read {path: "a.md"}` per unambiguous family, as each family's model prints it. */
const UNAMBIGUOUS_LEAKS: ReadonlyArray<[string, string]> = [
	["dsml", dsmlWrite("a.md", "hello")],
	[
		"kimi",
		'<|tool_calls_section_begin|><|tool_call_begin|>functions.read:0<|tool_call_argument_begin|>{"path": "a.md"}<|tool_call_end|><|tool_calls_section_end|>',
	],
	[
		"kimi-xtml",
		'<|open|>tools<|sep|><|open|>call tool="read" index="1"<|sep|><|open|>argument key="path" type="string"<|sep|>a.md<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>',
	],
	[
		"harmony",
		'<|start|>assistant<|channel|>commentary to=functions.read <|constrain|>json<|message|>{"path":"a.md"}<|call|>',
	],
	["gemma", '<|tool_call>call:read{path:<|"|>a.md<|"|>}<tool_call|>'],
	[
		"invoke",
		'<minimax:tool_call>\n<invoke name="read">\n<parameter name="path">a.md</parameter>\n</invoke>\n</minimax:tool_call>',
	],
];

/** Markup that could be an ordinary answer from a model that does not use it. */
const AMBIGUOUS_LEAKS: ReadonlyArray<[string, string]> = [
	["qwen <tool_call> JSON", '<tool_call>\n{"name": "read", "arguments": {"path": "a.md"}}\n</tool_call>'],
	["a name(arg=…) line", 'read(path="a.md")'],
	["bare JSON", '{"name": "read", "arguments": {"path": "a.md"}}'],
	["glm", "<tool_call>read\n<arg_key>path</arg_key>\n<arg_value>a.md</arg_value>\n</tool_call>"],
	[
		"qwen3-coder function XML (seed-oss)",
		"<seed:tool_call>\n<function=read>\n<parameter=path>a.md</parameter>\n</function>\n</seed:tool_call>",
	],
];

const noTelemetry: TelemetryRecorder = {
	toolOutcome: () => undefined,
	toolObservation: () => undefined,
	grammarRecovered: () => undefined,
	grammarStripped: () => undefined,
	grammarObserved: () => undefined,
};

function handlerFor(modelId: string, leakModels?: string[], mode: RepairSettings["grammarRecovery"] = "recover") {
	const settings: RepairSettings = {
		showIndicator: true,
		showNotes: false,
		grammarRecovery: mode,
		grammarAllowedTools: [],
		policyProfile: "recover",
		unknownGrammarText: "preserve",
		repairToolNames: false,
		askOnSilentStop: true,
	};
	return createGrammarLeakHandler({
		settings: () => settings,
		modelId: () => modelId,
		activeTools: () => ["read", "write", "bash"],
		toolSchemas: () => new Map(),
		...(leakModels === undefined ? {} : { leakModels: () => leakModels }),
		telemetry: noTelemetry,
		onPromoted: () => undefined,
		now: () => 0,
	});
}

const reply = (text: string) => ({
	role: "assistant",
	content: [{ type: "text", text: `Reading it now.\n${text}` }],
	stopReason: "stop",
});

const promotedNames = (out: ReturnType<ReturnType<typeof handlerFor>>) =>
	(out?.message.content ?? []).flatMap((part) => (part.type === "toolCall" ? [part.name] : []));

describe("leaks with unambiguous sentinels are found for every model id", () => {
	it.each(["local-model", "coder:30b", "seed-oss-36b", "my-gateway/renamed", "claude-opus-4-8"])(
		"promotes each unambiguous family's leak from %s",
		(model) => {
			for (const [family, text] of UNAMBIGUOUS_LEAKS) {
				const out = handlerFor(model)(reply(text));
				expect(promotedNames(out), family).toEqual([family === "dsml" ? "write" : "read"]);
			}
		},
	);

	it("strips them from an unknown model under the strip setting", () => {
		for (const [family, text] of UNAMBIGUOUS_LEAKS) {
			const out = handlerFor("local-model", undefined, "strip")(reply(text));
			expect(out?.message.content, family).toEqual([{ type: "text", text: "Reading it now." }]);
		}
	});
});

describe("ambiguous grammars from an unknown model id stay untouched", () => {
	it.each(AMBIGUOUS_LEAKS)("leaves %s from local-model as the answer", (_label, text) => {
		expect(handlerFor("local-model")(reply(text))).toBeUndefined();
		expect(handlerFor("local-model", [])(reply(text))).toBeUndefined();
		// A pattern that does not occur in the id opts nothing in.
		expect(handlerFor("local-model", ["qwen", "remote"])(reply(text))).toBeUndefined();
	});

	it.each(AMBIGUOUS_LEAKS)("promotes %s for a model id named in leakModels", (_label, text) => {
		expect(promotedNames(handlerFor("seed-oss-36b", ["SEED-OSS"])(reply(text)))).toEqual(["read"]);
		expect(promotedNames(handlerFor("coder:30b", ["coder"])(reply(text)))).toEqual(["read"]);
	});

	it.each(AMBIGUOUS_LEAKS)("still promotes %s for a known leaking family without any setting", (_label, text) => {
		expect(promotedNames(handlerFor("qwen3-coder-30b")(reply(text)))).toEqual(["read"]);
	});
});

describe("the leakModels setting", () => {
	let root: string | undefined;
	afterEach(() => {
		if (root !== undefined) rmSync(root, { recursive: true, force: true });
		root = undefined;
	});
	const fileWith = (body: unknown) => {
		root = mkdtempSync(join(tmpdir(), "leak-models-"));
		const path = join(root, "settings.json");
		writeFileSync(path, JSON.stringify(body));
		return path;
	};

	it("reads a list of model-id texts, trimmed", () => {
		expect(loadLeakModels(fileWith({ leakModels: [" seed-oss ", "coder"] }))).toEqual({
			patterns: ["seed-oss", "coder"],
		});
	});

	it("is empty, without a warning, when the key or the file is absent", () => {
		expect(loadLeakModels(fileWith({ showNotes: true }))).toEqual({ patterns: [] });
		expect(loadLeakModels(join(tmpdir(), "no-such-dir-leak-models", "settings.json"))).toEqual({ patterns: [] });
	});

	it.each([
		["a string", "seed-oss"],
		["a number in the list", ["seed-oss", 3]],
		["an empty text", [""]],
		["a blank text", ["  "]],
		["a very long text", ["x".repeat(129)]],
		["too many patterns", Array.from({ length: 65 }, (_, i) => `m${i}`)],
	])("drops %s with one warning that quotes no value", (_label, value) => {
		const loaded = loadLeakModels(fileWith({ leakModels: value }));
		expect(loaded.patterns).toEqual([]);
		expect(loaded.warning).toContain("invalid leakModels");
		expect(loaded.warning).not.toContain("seed-oss");
		expect(parseLeakModels(value)).toBeUndefined();
	});
});
