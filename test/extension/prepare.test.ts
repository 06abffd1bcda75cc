/**
 * The wrapped prepareArguments: the
 * outcomes, fail-closed and passthrough, and fault containment. Built on the
 * real read/edit definitions through the same repairer the overrides use.
 */

import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { BUILTIN_DEFINITION_FACTORIES, repairerFor } from "../../src/extension/builtin-overrides.ts";
import { RepeatFailureTracker } from "../../src/extension/escalation.ts";
import { RepairFeedbackHub } from "../../src/extension/feedback.ts";
import { ModelTracker } from "../../src/extension/model-tracker.ts";
import { type RepairDeps, ToolRepairer } from "../../src/extension/prepare.ts";
import { defaultRepairSettings } from "../../src/extension/settings.ts";
import type { ToolOutcomeEvent } from "../../src/extension/types.ts";
import { markArgumentsRefused } from "../../src/pi/refused-arguments.ts";

const savedPassthrough = process.env.PI_TOOL_REPAIR_PASSTHROUGH;
afterEach(() => {
	if (savedPassthrough === undefined) delete process.env.PI_TOOL_REPAIR_PASSTHROUGH;
	else process.env.PI_TOOL_REPAIR_PASSTHROUGH = savedPassthrough;
});

function setup(tool: "read" | "edit" | "write" = "read", overrides: Partial<RepairDeps> = {}) {
	const outcomes: ToolOutcomeEvent[] = [];
	const settings = defaultRepairSettings();
	const deps: RepairDeps = {
		settings: () => settings,
		model: new ModelTracker(),
		telemetry: {
			toolOutcome: (event) => outcomes.push(event),
			toolObservation() {},
			grammarRecovered() {},
			grammarStripped() {},
			grammarObserved() {},
		},
		feedback: new RepairFeedbackHub(),
		failures: new RepeatFailureTracker(),
		...overrides,
	};
	const definition = BUILTIN_DEFINITION_FACTORIES[tool]("/tmp") as ToolDefinition;
	return { repairer: repairerFor(tool, definition, deps), outcomes, deps, settings };
}

describe("outcomes of the wrapped prepareArguments", () => {
	it("returns valid input as the same object, with no telemetry and nothing pending", () => {
		const { repairer, outcomes, deps } = setup();
		const input = { path: "a.txt" };
		expect(repairer.prepare(input)).toBe(input);
		expect(outcomes).toEqual([]);
		expect(deps.feedback.lifecycle.pendingCount).toBe(0);
	});

	it("returns repaired args, records value-free telemetry and queues the feedback", () => {
		const { repairer, outcomes, deps } = setup();
		expect(repairer.prepare({ file_path: "secret.txt" })).toEqual({ path: "secret.txt" });
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
		expect(deps.feedback.lifecycle.pendingCount).toBe(1);
	});

	it("throws the retry message for unrepairable input and records it with empty rules", () => {
		const { repairer, outcomes } = setup();
		expect(() => repairer.prepare({ nothing: "useful" })).toThrow(/read[\s\S]*Received: \{"nothing":"useful"\}/);
		expect(outcomes[0]).toMatchObject({
			outcome: "unrepairable",
			rules: [],
			stages: [],
			issues: "(root)|required|path",
		});
	});

	it("hands unrepairable input to pi unchanged with PI_TOOL_REPAIR_PASSTHROUGH", () => {
		process.env.PI_TOOL_REPAIR_PASSTHROUGH = "1";
		const { repairer } = setup();
		const input = { nothing: "useful" };
		expect(repairer.prepare(input)).toBe(input);
	});

	it("lets pi report a malformed call the rescue could not repair (its own message carries the text)", () => {
		const { repairer, outcomes } = setup();
		const args = {};
		markArgumentsRefused(args);
		expect(repairer.prepare(args)).toBe(args);
		expect(outcomes).toEqual([]);
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
	it("still returns the repaired args when telemetry and the feedback queue throw", () => {
		const explode = () => {
			throw new Error("disk full");
		};
		const feedback = new RepairFeedbackHub();
		feedback.pending = explode;
		const { repairer } = setup("read", {
			feedback,
			telemetry: {
				toolOutcome: explode,
				toolObservation: explode,
				grammarRecovered: explode,
				grammarStripped: explode,
				grammarObserved: explode,
			},
		});
		expect(repairer.prepare({ file_path: "a" })).toEqual({ path: "a" });
	});

	it("proceeds as pi alone would when the pipeline itself throws: the raw input, through the owner's shim", () => {
		const { deps } = setup();
		class ThrowingRepairer extends ToolRepairer {
			override run(): never {
				throw new Error("internal failure");
			}
		}
		const spec = { name: "read", schema: {} as never, preprocessors: [], repairConfig: {}, strictSampling: false };
		const input = { file_path: "a" };
		expect(new ThrowingRepairer(spec, deps).prepare(input)).toBe(input);
		const shimmed = new ThrowingRepairer({ ...spec, ownerPrepare: () => ({ path: "from the shim" }) }, deps);
		expect(shimmed.prepare(input)).toEqual({ path: "from the shim" });
	});
});
