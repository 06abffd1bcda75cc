/**
 * The message_end rescue of malformed argument text (pi since 1.3 refuses it whatever prepareArguments returns), on
 * messages shaped exactly as pi-ai finishes them (`parseToolCallArguments`).
 */
import { parseToolCallArguments } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { PIPELINE_PREPROCESSORS, REPAIR_CONFIGS } from "../../src/core/builtin-tables.ts";
import { runRepairPipeline } from "../../src/core/pipeline.ts";
import type { RepairPipelineResult } from "../../src/core/types.ts";
import { type RescueDeps, rescueInput, rescueMalformedArguments } from "../../src/extension/repair/argument-rescue.ts";
import { BUILTIN_DEFINITION_FACTORIES } from "../../src/extension/repair/builtin-repairers.ts";

function call(id: string, name: string, text: string) {
	return { type: "toolCall" as const, id, name, ...parseToolCallArguments(text) };
}

function message(content: unknown[], stopReason = "toolUse") {
	return { role: "assistant", content, stopReason };
}

function deps(policy: "adaptive" | "conservative" = "adaptive") {
	const attempts: { id: string; outcome: string }[] = [];
	const unrescued: object[] = [];
	const d: RescueDeps = {
		isWrapped: (name) => name === "write" || name === "bash",
		repair: (name, input, overrides) =>
			runRepairPipeline({
				input,
				config: {
					toolName: name,
					schema: BUILTIN_DEFINITION_FACTORIES[name as "write"]("/tmp").parameters,
					policy,
					preprocessors: PIPELINE_PREPROCESSORS[name as "write"],
					engineConfig: REPAIR_CONFIGS[name as "write"],
					...(overrides === undefined ? {} : { policyOverrides: overrides }),
				},
			}),
		onAttempt: ({ toolCallId, result }: { toolCallId: string; result: RepairPipelineResult }) =>
			attempts.push({ id: toolCallId, outcome: result.outcome }),
		onUnrescued: (args) => unrescued.push(args),
	};
	return { d, attempts, unrescued };
}

describe("rescue of malformed argument text", () => {
	it("repairs a stringified root object, writes the arguments back and clears the error", () => {
		const { d, attempts } = deps();
		const original = message([
			{ type: "text", text: "writing" },
			call("w1", "write", JSON.stringify(JSON.stringify({ path: "a", content: "b" }))),
		]);
		const rescued = rescueMalformedArguments(original, d);
		expect(rescued?.content[1]).toEqual({
			type: "toolCall",
			id: "w1",
			name: "write",
			arguments: { path: "a", content: "b" },
		});
		expect(rescued?.content[0]).toBe(original.content[0]);
		expect(attempts).toEqual([{ id: "w1", outcome: "repaired" }]);
		// The message pi delivered is never mutated.
		expect(original.content[1]).toHaveProperty("argumentsError");
	});

	it("repairs a singleton array and an object truncated after a complete value", () => {
		const { d } = deps();
		const rescued = rescueMalformedArguments(
			message([call("a", "write", '[{"path":"a","content":"b"}]'), call("t", "write", '{"path":"t","content":"c"')]),
			d,
		);
		expect(rescued?.content).toEqual([
			{ type: "toolCall", id: "a", name: "write", arguments: { path: "a", content: "b" } },
			{ type: "toolCall", id: "t", name: "write", arguments: { path: "t", content: "c" } },
		]);
	});

	it("wraps a bare command text as the bash command", () => {
		const { d } = deps();
		const rescued = rescueMalformedArguments(message([call("b", "bash", "echo plain")]), d);
		expect(rescued?.content[0]).toMatchObject({ arguments: { command: "echo plain" } });
	});

	it("never completes a string that was cut off, and reports the call as unrescued", () => {
		const { d, attempts, unrescued } = deps();
		const block = call("c", "bash", '{"command":"rm -rf /tmp/scra');
		expect(rescueMalformedArguments(message([block]), d)).toBeUndefined();
		expect(attempts).toEqual([{ id: "c", outcome: "unrepairable" }]);
		expect(unrescued).toEqual([block.arguments]);
		expect(unrescued[0]).toBe(block.arguments);
	});

	it("does not complete truncated objects under the conservative profile", () => {
		const { d } = deps("conservative");
		expect(rescueMalformedArguments(message([call("t", "write", '{"path":"t","content":"c"')]), d)).toBeUndefined();
	});

	it.each(["length", "error", "aborted"])("leaves every call of a message with stopReason %s alone", (stopReason) => {
		const { d, attempts } = deps();
		const m = message([call("w", "write", JSON.stringify([{ path: "a", content: "b" }]))], stopReason);
		expect(rescueMalformedArguments(m, d)).toBeUndefined();
		expect(attempts).toEqual([]);
	});

	it("ignores calls to tools it does not wrap, well-formed calls, and non-assistant messages", () => {
		const { d, attempts } = deps();
		expect(rescueMalformedArguments(message([call("x", "custom_tool", "[1")]), d)).toBeUndefined();
		expect(rescueMalformedArguments(message([call("ok", "write", '{"path":"a","content":"b"}')]), d)).toBeUndefined();
		expect(rescueMalformedArguments({ role: "user", content: [call("w", "write", "[")] }, d)).toBeUndefined();
		expect(attempts).toEqual([]);
	});

	it("leaves the call as pi delivered it when the pipeline failed (its boundary answers undefined)", () => {
		const { d } = deps();
		const failing: RescueDeps = { ...d, repair: () => undefined };
		expect(
			rescueMalformedArguments(message([call("w", "write", '[{"path":"a","content":"b"}]')]), failing),
		).toBeUndefined();
	});
});

describe("rescueInput", () => {
	it("hands the pipeline the parsed JSON value when the text parses, else the text", () => {
		expect(rescueInput('"{\\"a\\":1}"')).toBe('{"a":1}');
		expect(rescueInput("[1,2]")).toEqual([1, 2]);
		expect(rescueInput('{"a":')).toBe('{"a":');
		expect(rescueInput("echo hi")).toBe("echo hi");
	});
});

describe("a message that reached the model's output limit", () => {
	const model = { id: "m-1", maxTokens: 100 };
	function atLimit(content: unknown[], output = 100, modelId = "m-1") {
		return { role: "assistant", content, stopReason: "toolUse", model: modelId, usage: { output } };
	}

	it("asks the pipeline for no completion through a per-call policy override, never by reading rule IDs", () => {
		const { d } = deps();
		const asked: unknown[] = [];
		const recording: RescueDeps = {
			...d,
			model,
			repair: (name, input, overrides) => {
				asked.push(overrides);
				return d.repair(name, input, overrides);
			},
		};
		rescueMalformedArguments(atLimit([call("t", "write", '{"path":"t","content":"c"')]), recording);
		rescueMalformedArguments(message([call("u", "write", '{"path":"t","content":"c"')]), recording);
		expect(asked).toEqual([{ allowTruncatedEnvelopeCompletion: false }, undefined]);
	});

	it("never completes a truncated call even when the provider said toolUse", () => {
		const { d, attempts } = deps();
		const block = call("t", "write", '{"path":"t","content":"c"');
		const rescued = rescueMalformedArguments(atLimit([block]), { ...d, model });
		expect(attempts).toEqual([{ id: "t", outcome: "unrepairable" }]);
		const out = rescued?.content[0] as { arguments: unknown; argumentsError: string };
		expect(out.arguments).toBe(block.arguments);
		expect(out.argumentsError).toContain("output limit");
		expect(out.argumentsError).toContain(block.argumentsError);
	});

	it("tells the model its call was cut at the output limit when nothing could be rescued", () => {
		const { d, unrescued } = deps();
		const block = call("c", "bash", '{"command":"rm -rf /tmp/scra');
		const rescued = rescueMalformedArguments(atLimit([block], 250), { ...d, model });
		expect(rescued?.content[0]).toHaveProperty("argumentsError");
		expect((rescued!.content[0] as { argumentsError: string }).argumentsError).toMatch(
			/cut off at the model's output limit/,
		);
		expect(unrescued).toEqual([block.arguments]);
	});

	it("still rescues a call that was complete, and judges by the limit of the model that wrote the message", () => {
		const { d } = deps();
		const whole = call("w", "write", JSON.stringify([{ path: "a", content: "b" }]));
		expect(rescueMalformedArguments(atLimit([whole]), { ...d, model })?.content[0]).toMatchObject({
			arguments: { path: "a", content: "b" },
		});
		const cut = call("t", "write", '{"path":"t","content":"c"');
		expect(rescueMalformedArguments(atLimit([cut], 99), { ...d, model })?.content[0]).toMatchObject({
			arguments: { path: "t", content: "c" },
		});
		expect(rescueMalformedArguments(atLimit([cut], 500, "other"), { ...d, model })?.content[0]).toMatchObject({
			arguments: { path: "t", content: "c" },
		});
	});
});
