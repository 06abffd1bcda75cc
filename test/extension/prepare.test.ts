/**
 * A built-in's repairer as the message_end pass uses it: the outcomes,
 * fail-closed and passthrough, and fault containment. Built on the real
 * read/edit definitions through the same repairer the layer uses.
 */

import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { createContained } from "../../src/extension/host/contained.ts";
import type { ContainedErrorEvent, ToolOutcomeEvent } from "../../src/extension/host/types.ts";
import { BUILTIN_DEFINITION_FACTORIES, repairerFor } from "../../src/extension/repair/builtin-repairers.ts";
import { RepairFeedbackHub } from "../../src/extension/repair/feedback.ts";
import { judgeToolCalls, PendingRefusals } from "../../src/extension/repair/message-repair.ts";
import { type RepairDeps, ToolRepairer } from "../../src/extension/repair/prepare.ts";
import { isArgumentsRefused } from "../../src/pi/refused-arguments.ts";
import { recordingContained } from "../support/contained-recorder.ts";
import { repairDeps, silentTelemetry } from "../support/repair-deps.ts";

const savedPassthrough = process.env.PI_TOOL_REPAIR_PASSTHROUGH;
afterEach(() => {
	if (savedPassthrough === undefined) delete process.env.PI_TOOL_REPAIR_PASSTHROUGH;
	else process.env.PI_TOOL_REPAIR_PASSTHROUGH = savedPassthrough;
});

function setup(tool: "read" | "edit" | "write" = "read", overrides: Partial<RepairDeps> = {}) {
	const outcomes: ToolOutcomeEvent[] = [];
	const deps = repairDeps({
		telemetry: silentTelemetry({ toolOutcome: (event) => outcomes.push(event) }),
		...overrides,
	});
	const definition = BUILTIN_DEFINITION_FACTORIES[tool]("/tmp") as ToolDefinition;
	return { repairer: repairerFor(tool, definition, deps), outcomes, deps, settings: deps.settings() };
}

/** One call of pi's own built-in through the message_end pass, as the layer judges it. */
function judge(repairer: ToolRepairer, args: Record<string, unknown>, deps: RepairDeps, id = "c1") {
	const feedback = deps.feedback;
	const message = {
		role: "assistant",
		stopReason: "toolUse",
		content: [{ type: "toolCall", id, name: "read", arguments: args }],
	};
	const result = judgeToolCalls(message, () => ({ repairer, builtin: true }), {
		feedback,
		refusals: new PendingRefusals(),
		contained: deps.contained ?? createContained(() => deps.telemetry),
	});
	return result?.content[0] as { arguments: unknown; argumentsError?: string } | undefined;
}

describe("the valid-path test a repairer keeps", () => {
	it("follows the session's model: a gated row that may change the call turns it off and on again", () => {
		const { repairer, deps } = setup();
		// Anchors around a path are a known GLM slip: the row runs only for that family, so only then may it change the call.
		const anchored = { path: "^/x$" };
		expect(repairer.passesAsSent(anchored)).toBe(true);
		deps.model.id = "glm-4.6";
		expect(repairer.passesAsSent(anchored)).toBe(false);
		deps.model.id = "claude-opus-4-8";
		expect(repairer.passesAsSent(anchored)).toBe(true);
		expect(repairer.passesAsSent({ path: "a.txt" })).toBe(true);
	});
});

describe("outcomes of a built-in call judged at message_end", () => {
	it("leaves a valid call as it is (same block), with no telemetry and no note", () => {
		const { repairer, outcomes, deps } = setup();
		expect(judge(repairer, { path: "a.txt" }, deps)).toBeUndefined();
		expect(outcomes).toEqual([]);
		expect(deps.feedback.info("c1")).toBeUndefined();
	});

	it("writes repaired args back, records value-free telemetry and binds the note to the call's ID", () => {
		const { repairer, outcomes, deps } = setup();
		expect(judge(repairer, { file_path: "secret.txt" }, deps)?.arguments).toEqual({ path: "secret.txt" });
		expect(outcomes).toEqual([
			{
				tool: "read",
				model: undefined,
				outcome: "repaired",
				rules: ["preprocess.exact-alias"],
				profile: "adaptive",
				stages: ["preprocess"],
				owner: "builtin",
			},
		]);
		expect(deps.feedback.info("c1")?.notes).toHaveLength(1);
	});

	it("refuses unrepairable input with the retry message and records it with empty rules", () => {
		const { repairer, outcomes, deps } = setup();
		const block = judge(repairer, { nothing: "useful" }, deps);
		expect(block?.argumentsError).toMatch(/read[\s\S]*Received: \{"nothing":"useful"\}/);
		expect(isArgumentsRefused(block?.arguments)).toBe(true);
		expect(outcomes[0]).toMatchObject({
			outcome: "unrepairable",
			rules: [],
			stages: [],
			issues: "(root)|required|path",
		});
	});

	it("hands unrepairable input to pi unchanged with PI_TOOL_REPAIR_PASSTHROUGH", () => {
		process.env.PI_TOOL_REPAIR_PASSTHROUGH = "1";
		const { repairer, deps } = setup();
		expect(judge(repairer, { nothing: "useful" }, deps)).toBeUndefined();
	});

	it("keys the pipeline config to the current profile and model", () => {
		const { repairer, deps, settings } = setup();
		const first = repairer.config();
		expect(repairer.config()).toBe(first);
		settings.policyProfile = "conservative";
		expect(repairer.config().policy).toBe("conservative");
		deps.model.id = "glm-4.6";
		expect(repairer.config().modelId).toBe("glm-4.6");
	});
});

describe("fault containment", () => {
	it("still runs the repaired args when telemetry and note binding throw", () => {
		const explode = () => {
			throw new Error("disk full");
		};
		const feedback = new RepairFeedbackHub();
		feedback.bind = explode;
		const { repairer, deps } = setup("read", {
			feedback,
			telemetry: {
				toolOutcome: explode,
				toolObservation: explode,
				grammarRecovered: explode,
				grammarStripped: explode,
				grammarObserved: explode,
			},
		});
		expect(judge(repairer, { file_path: "a" }, deps)?.arguments).toEqual({ path: "a" });
	});

	it("leaves the call as pi delivered it when the pipeline itself throws, and reports it", () => {
		const { deps } = setup();
		const reported: ContainedErrorEvent[] = [];
		class ThrowingRepairer extends ToolRepairer {
			override run(): never {
				throw new Error("internal failure");
			}
		}
		const spec = { name: "read", schema: {} as never, preprocessors: [], repairConfig: {}, strictSampling: false };
		const contained = recordingContained(reported);
		expect(judge(new ThrowingRepairer(spec, deps), { file_path: "a" }, { ...deps, contained })).toBeUndefined();
		expect(reported).toEqual([{ label: "judge:read", error: "Error" }]);
	});
});
