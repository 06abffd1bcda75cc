/**
 * Tripwire: our final check and pi's own validator must agree. Every input
 * the extension lets through (outcome `valid` or `repaired`) must pass pi's
 * `validateToolArguments` for the real built-in definition, and a repaired
 * value must come out of pi's coercion unchanged: pi then runs exactly what
 * the repair produced. Inputs come from the shared fuzz arbitraries (classic
 * mistakes, hostile JSON, encoded and truncated envelopes), run through the
 * same repairer the overrides use, with the model and profile varied.
 *
 * PI_REPAIR_FUZZ_SEED / PI_REPAIR_FUZZ_CASES choose the run; a failure prints
 * the seed and the shrunk input.
 */
import { validateToolArguments } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BUILTIN_TOOL_NAMES, type BuiltinToolName } from "../../src/core/builtin-tables.ts";
import type { RepairPolicyProfile } from "../../src/core/types.ts";
import { BUILTIN_DEFINITION_FACTORIES, repairerFor } from "../../src/extension/repair/builtin-repairers.ts";
import { anyInput, modelId, policyProfile } from "../support/arbitraries.ts";
import { repairDeps } from "../support/repair-deps.ts";

const seed = process.env.PI_REPAIR_FUZZ_SEED ? Number(process.env.PI_REPAIR_FUZZ_SEED) : 0x5eedc0de;
const numRuns = process.env.PI_REPAIR_FUZZ_CASES ? Number(process.env.PI_REPAIR_FUZZ_CASES) : 150;

function harness(tool: BuiltinToolName) {
	const deps = repairDeps();
	const definition = BUILTIN_DEFINITION_FACTORIES[tool]("/tmp");
	const repairer = repairerFor(tool, definition, deps);
	return {
		definition,
		run(input: unknown, profile: RepairPolicyProfile, id: string | undefined) {
			deps.settings().policyProfile = profile;
			deps.model.id = id;
			return repairer.run(input);
		},
	};
}

describe("our final check agrees with pi's validateToolArguments", () => {
	it.each(BUILTIN_TOOL_NAMES)("on every result the %s override lets through", (tool) => {
		const { definition, run } = harness(tool);
		fc.assert(
			fc.property(anyInput(tool), policyProfile, modelId, (input, profile, id) => {
				const result = run(input, profile, id);
				if (result.outcome === "unrepairable") return;
				const call = { type: "toolCall" as const, id: "drift", name: tool, arguments: result.args as never };
				const accepted = validateToolArguments(definition, call);
				if (result.outcome === "repaired") expect(accepted).toEqual(result.args);
			}),
			{ seed, numRuns, verbose: 1 },
		);
	});
});
