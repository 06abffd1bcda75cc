/**
 * The eight overrides of the built-ins pi still owns: pi's real
 * definitions, spread, with only prepareArguments and renderResult replaced.
 * Registration counting uses a recording `registerTool` (pi offers no way to
 * change a live session's cwd without replacing the whole runtime, which
 * re-runs the factory); what pi does with the registrations is checked
 * against the real host in the last case.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { BUILTIN_TOOL_NAMES } from "../../src/core/builtin-tables.ts";
import {
	BUILTIN_DEFINITION_FACTORIES,
	BuiltinOverrides,
	isBuiltinToolName,
} from "../../src/extension/builtin-overrides.ts";
import { RepeatFailureTracker } from "../../src/extension/escalation.ts";
import { RepairFeedbackHub } from "../../src/extension/feedback.ts";
import { ModelTracker } from "../../src/extension/model-tracker.ts";
import type { RepairDeps } from "../../src/extension/prepare.ts";
import { defaultRepairSettings } from "../../src/extension/settings.ts";
import { type PiSessionHarness, startPiSession } from "../helpers/pi-session.ts";

function setup() {
	const settings = defaultRepairSettings();
	const deps: RepairDeps = {
		settings: () => settings,
		model: new ModelTracker(),
		telemetry: {
			toolOutcome() {},
			toolObservation() {},
			grammarRecovered() {},
			grammarStripped() {},
			grammarObserved() {},
		},
		feedback: new RepairFeedbackHub(),
		failures: new RepeatFailureTracker(),
	};
	const registered: ToolDefinition[] = [];
	const overrides = new BuiltinOverrides(
		{ registerTool: (definition) => void registered.push(definition as ToolDefinition) },
		deps,
	);
	return { overrides, registered, deps };
}

describe("registering the overrides", () => {
	it("registers all eight built-ins, in the fixed order, under their own names", () => {
		const { overrides, registered } = setup();
		overrides.register("/work/a");
		expect(registered.map((d) => d.name)).toEqual([...BUILTIN_TOOL_NAMES]);
	});

	it("is idempotent per cwd and re-registers all eight for a new cwd", () => {
		const { overrides, registered } = setup();
		overrides.register("/work/a");
		overrides.register("/work/a");
		expect(registered).toHaveLength(8);
		overrides.register("/work/b");
		expect(registered).toHaveLength(16);
		expect(overrides.cwd).toBe("/work/b");
	});

	it("spreads pi's definition and replaces only prepareArguments and renderResult", () => {
		const { overrides, registered } = setup();
		overrides.register("/tmp");
		for (const override of registered) {
			const original = BUILTIN_DEFINITION_FACTORIES[override.name as "read"]("/tmp") as ToolDefinition;
			for (const key of Object.keys(original)) {
				if (
					key === "prepareArguments" ||
					key === "renderResult" ||
					typeof original[key as keyof ToolDefinition] === "function"
				)
					continue;
				expect(override[key as keyof ToolDefinition], `${override.name}.${key}`).toEqual(
					original[key as keyof ToolDefinition],
				);
			}
			expect(typeof override.execute).toBe("function");
			expect(typeof override.prepareArguments).toBe("function");
			expect(typeof override.renderResult).toBe("function");
			expect(override.constrainedSampling).toEqual(original.constrainedSampling);
		}
	});

	it("chains pi's own edit shim: flat oldText/newText are folded by it and the call is repaired", () => {
		const { overrides, registered } = setup();
		overrides.register("/tmp");
		const edit = registered.find((d) => d.name === "edit");
		expect(edit?.prepareArguments?.({ path: "a", oldText: "x", newText: "y" })).toEqual({
			path: "a",
			edits: [{ oldText: "x", newText: "y" }],
		});
	});

	it("knows exactly the eight built-in names", () => {
		expect(BUILTIN_TOOL_NAMES.every(isBuiltinToolName)).toBe(true);
		expect(isBuiltinToolName("codemode")).toBe(false);
	});
});

describe("in the real host", () => {
	let run: PiSessionHarness | undefined;
	afterEach(async () => {
		await run?.dispose();
		run = undefined;
	});

	it("replaces all eight built-ins after session_start", async () => {
		run = await startPiSession();
		const tools = run.session.getAllTools().filter((tool) => isBuiltinToolName(tool.name));
		expect(tools.map((tool) => tool.name).sort()).toEqual([...BUILTIN_TOOL_NAMES].sort());
		for (const tool of tools) expect(tool.sourceInfo.source, tool.name).not.toBe("builtin");
	});

	it("does not change which tools are active", async () => {
		run = await startPiSession({ tools: ["read", "bash", "edit", "write"] });
		expect(run.session.getActiveToolNames().sort()).toEqual(["bash", "edit", "read", "write"]);
		for (const tool of run.session.getAllTools()) expect(tool.sourceInfo.source, tool.name).not.toBe("builtin");
	});
});
