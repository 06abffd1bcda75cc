/**
 * The message_end pass over calls of tools the layer does not own, on
 * messages shaped as pi-ai finishes them: valid calls untouched (same block,
 * same arguments object), repairs written back with one note bound to the
 * call ID, fail-open where pi would refuse anyway, refusal where pi's coercion
 * would let a changed value through.
 */
import { parseToolCallArguments } from "@earendil-works/pi-ai";
import type { ToolInfo } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { aliasesFor, parseToolAliases } from "../../src/extension/files/composition-settings.ts";
import { createContained } from "../../src/extension/host/contained.ts";
import type { ContainedErrorEvent, ToolOutcomeEvent } from "../../src/extension/host/types.ts";
import { rescueMalformedArguments } from "../../src/extension/repair/argument-rescue.ts";
import { RepairFeedbackHub } from "../../src/extension/repair/feedback.ts";
import {
	CallTargets,
	judgeToolCalls,
	losslessCoercion,
	PendingRefusals,
	piCoercion,
	rescueDepsFor,
	type ToolSource,
} from "../../src/extension/repair/message-repair.ts";
import type { ToolRepairer } from "../../src/extension/repair/prepare.ts";
import { isArgumentsRefused } from "../../src/pi/refused-arguments.ts";
import { LOOKUP_SCHEMA, TODO_SCHEMA } from "../fixtures/composing-extension.ts";
import { recordingContained } from "../support/contained-recorder.ts";
import { repairDeps, silentTelemetry } from "../support/repair-deps.ts";

function info(name: string, parameters: unknown, path = "/ext/composing.ts"): ToolInfo {
	return {
		name,
		description: name,
		parameters: parameters as never,
		exposure: "direct",
		sourceInfo: { path, source: "local", scope: "temporary", origin: "top-level" },
	};
}

function setup(options: { aliases?: unknown; active?: string[] } = {}) {
	const outcomes: ToolOutcomeEvent[] = [];
	const feedback = new RepairFeedbackHub();
	const deps = repairDeps({ feedback, telemetry: silentTelemetry({ toolOutcome: (event) => outcomes.push(event) }) });
	const tools = [info("todo", TODO_SCHEMA), info("lookup", LOOKUP_SCHEMA, "builtin:mcp")];
	const aliases = { toolAliases: parseToolAliases(options.aliases ?? {}) ?? new Map(), codemodeRepair: false };
	let listed = 0;
	const source: ToolSource = {
		allTools: () => {
			listed++;
			return tools;
		},
		activeTools: () => options.active ?? ["todo", "lookup"],
		builtinRepairer: () => undefined,
		piShimFor: () => undefined,
		configuredAliases: (name) => aliasesFor(aliases, name),
	};
	const targets = new CallTargets(source, deps);
	const refusals = new PendingRefusals();
	const pass = (message: ReturnType<typeof assistant>) =>
		judgeToolCalls(message, targets.forMessage(), {
			feedback,
			refusals,
			contained: createContained(() => deps.telemetry),
		});
	return { pass, outcomes, feedback, refusals, listed: () => listed };
}

function call(id: string, name: string, args: Record<string, unknown>) {
	return { type: "toolCall" as const, id, name, arguments: args };
}

function raw(id: string, name: string, text: string) {
	return { type: "toolCall" as const, id, name, ...parseToolCallArguments(text) };
}

function assistant(content: unknown[], stopReason = "toolUse") {
	return { role: "assistant", content, stopReason };
}

describe("the message_end pass for other owners' tools", () => {
	it("leaves a message of valid calls alone and asks pi for its tools once", () => {
		const { pass, outcomes, listed } = setup();
		const message = assistant([
			call("a", "todo", { todos: [{ text: "x" }] }),
			call("b", "lookup", { query: "q" }),
			call("c", "todo", { todos: [] }),
		]);
		expect(pass(message)).toBeUndefined();
		expect(outcomes).toEqual([]);
		expect(listed()).toBe(1);
	});

	it("writes a repair back, keeps other blocks by identity and binds one note to the call", () => {
		const { pass, feedback, outcomes } = setup();
		const untouched = call("ok", "lookup", { query: "q" });
		const message = assistant([untouched, call("t", "todo", { todos: JSON.stringify([{ text: "x" }]) })]);
		const result = pass(message);
		expect(result?.content[0]).toBe(untouched);
		expect(result?.content[1]).toEqual(call("t", "todo", { todos: [{ text: "x" }] }));
		expect(message.content[1]).toEqual(call("t", "todo", { todos: JSON.stringify([{ text: "x" }]) }));
		expect(feedback.lifecycle.peek("t")?.notes).toHaveLength(1);
		expect(outcomes).toMatchObject([{ tool: "todo", outcome: "repaired", owner: "extension" }]);
	});

	it("rescues malformed text of any active tool, and counts an MCP tool as such", () => {
		const { pass, outcomes } = setup();
		const result = pass(assistant([raw("m", "lookup", JSON.stringify(JSON.stringify({ query: "q" })))]));
		expect(result?.content[0]).toEqual(call("m", "lookup", { query: "q" }));
		expect(outcomes).toMatchObject([{ tool: "lookup", outcome: "repaired", owner: "mcp" }]);
	});

	it("marks malformed text it cannot rescue, so pi's own message (with the text) stands", () => {
		const { pass } = setup();
		const block = raw("g", "todo", "add milk");
		expect(pass(assistant([block]))).toBeUndefined();
		expect(isArgumentsRefused(block.arguments)).toBe(true);
		expect(JSON.stringify(block.arguments)).toBe("{}");
	});

	it("fails open where pi refuses anyway", () => {
		const { pass } = setup();
		const block = call("x", "lookup", { query: "q", verbose: true });
		expect(pass(assistant([block]))).toBeUndefined();
		expect(isArgumentsRefused(block.arguments)).toBe(false);
	});

	it.each([
		["null into a required string", { query: null }, { query: "null" }],
		["a list literal pi would wrap as one item", { query: "q", keys: "['a', 'b']" }, undefined],
	])(
		"refuses %s at tool_call, where pi would let it through and the owner's shim changed nothing",
		(_label, args, ran) => {
			const { pass, refusals } = setup();
			const block = call("r", "lookup", args);
			// The verdict waits for tool_call: the owner's own shim runs after message_end and may handle the call.
			expect(pass(assistant([block]))).toBeUndefined();
			const coerced = piCoercion("lookup", LOOKUP_SCHEMA, args);
			// pi 1.3 refuses a string where its plain JSON Schema wants an array, so there the call is
			// left to pi's own message; later releases wrap it as one item, and the layer must refuse first.
			if (coerced === undefined) {
				expect(refusals.verdict("r", args)).toBeUndefined();
				return;
			}
			// pi 1.3 coerces null into "" where later releases make it "null": meaning changes either way.
			if (ran !== undefined) expect([ran, { query: "" }]).toContainEqual(coerced.value);
			expect(refusals.verdict("r", coerced.value)).toContain("call it again");
			expect(refusals.verdict("r", coerced.value)).toBeUndefined();
		},
	);

	it("lets the call run when the owner's shim changed it before pi ran it", () => {
		const { pass, refusals } = setup();
		pass(assistant([call("r", "lookup", { query: null })]));
		expect(refusals.verdict("r", { query: "from the shim" })).toBeUndefined();
	});

	it("runs what pi's coercion runs losslessly, as sent: a number taken into a one-item list", () => {
		const { pass, refusals, outcomes } = setup();
		const ids = { type: "object", properties: { ids: { type: "array", items: { type: "number" } } } };
		// Where pi takes the number into a list (pi 1.3 refuses it itself), that is a lossless coercion.
		const coerced = piCoercion("t", ids, { ids: 42 });
		if (coerced !== undefined) expect(losslessCoercion({ ids: 42 }, coerced.value)).toBe(true);
		const block = call("n", "lookup", { query: "q", limit: "7" });
		expect(pass(assistant([block]))).toBeUndefined();
		expect(refusals.verdict("n", { query: "q", limit: 7 })).toBeUndefined();
		expect(outcomes).toEqual([]);
	});

	it.each([
		["null into text", { a: null }, { a: "null" }, false],
		["a boolean into text", { a: true }, { a: "true" }, false],
		["text into a one-item list", { a: "['x']" }, { a: ["['x']"] }, false],
		["a number into a one-item list", { a: 42 }, { a: [42] }, true],
		["decimal text into a number", { a: "-0.5" }, { a: -0.5 }, true],
		["other number text into a number", { a: "1e3" }, { a: 1000 }, false],
		["a dropped key", { a: 1, b: 2 }, { a: 1 }, false],
	])("judges %s lossless: %s", (_label, sent, coerced, lossless) => {
		expect(losslessCoercion(sent, coerced)).toBe(lossless);
	});

	it("applies aliases only where the owner configured them", () => {
		const without = setup();
		expect(without.pass(assistant([call("a", "lookup", { q: "x" })]))).toBeUndefined();
		const withAliases = setup({ aliases: { lookup: { query: ["q"] } } });
		const result = withAliases.pass(assistant([call("a", "lookup", { q: "x" })]));
		expect(result?.content[0]).toEqual(call("a", "lookup", { query: "x" }));
	});

	it("never touches calls of inactive or unknown tools, nor messages whose calls never run", () => {
		const { pass } = setup({ active: ["lookup"] });
		expect(pass(assistant([call("t", "todo", { todos: "[]" })]))).toBeUndefined();
		expect(pass(assistant([call("u", "nope", { a: 1 })]))).toBeUndefined();
		for (const stop of ["length", "error", "aborted"]) {
			expect(pass(assistant([call("l", "lookup", { query: null })], stop))).toBeUndefined();
		}
	});
});

describe("the rescue's boundary", () => {
	it("reports a failing pipeline and leaves the call as pi delivered it", () => {
		const reported: ContainedErrorEvent[] = [];
		const contained = recordingContained(reported);
		const failing = {
			run: () => {
				throw new TypeError("boom");
			},
		} as unknown as ToolRepairer;
		const rescue = rescueDepsFor(
			() => ({ repairer: failing, builtin: false }),
			new RepairFeedbackHub(),
			undefined,
			contained,
		);
		const message = {
			role: "assistant",
			stopReason: "toolUse",
			content: [{ type: "toolCall", id: "c1", name: "todo", ...parseToolCallArguments('["a"]') }],
		};
		expect(rescueMalformedArguments(message, rescue)).toBeUndefined();
		expect(reported).toEqual([{ label: "rescue:todo", error: "TypeError" }]);
	});
});
