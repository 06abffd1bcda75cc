/**
 * Properties of runRepairPipeline over generated tool calls for every
 * built-in table.
 */

import { createEditToolDefinition } from "@earendil-works/pi-coding-agent";
import fc from "fast-check";
import { Compile } from "typebox/compile";
import { describe, expect, it } from "vitest";
import {
	type BuiltinToolName,
	EDITS_ALIASES,
	OWNER_SHIM_APPLIES,
	PIPELINE_PREPROCESSORS,
} from "../../src/core/builtin-tables.ts";
import { passesAsSent, runRepairPipeline } from "../../src/core/pipeline.ts";
import { compilePreprocessPlan, planMayChange, preprocessInput } from "../../src/core/preprocess.ts";
import { anyInput, builtinToolName, malformedArgs, modelId, policyProfile, validArgs } from "../support/arbitraries.ts";
import { BUILTIN_SCHEMAS } from "../support/builtin-schemas.ts";
import { builtin, builtinConfig, deepFreeze, ruleIds } from "../support/pipeline-helpers.ts";

const compiled = Object.fromEntries(
	Object.entries(BUILTIN_SCHEMAS).map(([tool, schema]) => [tool, Compile(schema)]),
) as Record<BuiltinToolName, ReturnType<typeof Compile>>;

const toolAndInput = builtinToolName.chain((tool) => fc.tuple(fc.constant(tool), anyInput(tool)));
const RUNS = { numRuns: 300 };

const piEdit = createEditToolDefinition("/tmp");
/** pi's own `edit` argument shim, as the extension configures it. */
const PI_EDIT_SHIM = {
	ownerPrepareArguments: (args: unknown) => piEdit.prepareArguments?.(args) ?? args,
	ownerPrepareApplies: OWNER_SHIM_APPLIES.edit,
};

describe("pipeline properties", () => {
	it("returns valid input by reference, untouched, with no changes (without a gated model)", () => {
		const arbitrary = builtinToolName.chain((tool) => fc.tuple(fc.constant(tool), validArgs(tool), policyProfile));
		fc.assert(
			fc.property(arbitrary, ([tool, input, policy]) => {
				const result = builtin(tool, input, { policy });
				expect(result.outcome).toBe("valid");
				expect(result.args).toBe(input);
				expect(result.changes).toEqual([]);
			}),
			RUNS,
		);
	});

	it("answers passesAsSent only where the pipeline answers valid with the input itself", () => {
		let passed = 0;
		fc.assert(
			fc.property(toolAndInput, modelId, policyProfile, ([tool, input], model, policy) => {
				const config = builtinConfig(tool, { modelId: model, policy });
				if (!passesAsSent(input, config)) return;
				passed++;
				const result = runRepairPipeline({ input, config });
				expect(result.outcome).toBe("valid");
				expect(result.args).toBe(input);
			}),
			RUNS,
		);
		expect(passed).toBeGreaterThan(20);
	});

	it("answers passesAsSent for every valid call (without a gated model), so a reply of them is settled", () => {
		const arbitrary = builtinToolName.chain((tool) => fc.tuple(fc.constant(tool), validArgs(tool), policyProfile));
		fc.assert(
			fc.property(arbitrary, ([tool, input, policy]) => {
				expect(passesAsSent(input, builtinConfig(tool, { policy }))).toBe(true);
			}),
			RUNS,
		);
	});

	it("only ever reports repaired arguments that pass the compiled schema check", () => {
		fc.assert(
			fc.property(toolAndInput, modelId, policyProfile, ([tool, input], model, policy) => {
				const result = builtin(tool, input, { modelId: model, policy });
				if (result.outcome === "repaired") {
					expect(compiled[tool].Check(result.args)).toBe(true);
					expect(result.changes.length).toBeGreaterThan(0);
					for (const change of result.changes) {
						expect(change.ruleId).not.toBe("");
						expect(change.note).not.toBe("");
					}
				}
			}),
			RUNS,
		);
	});

	it("returns the original reference, no changes and a retry message when unrepairable", () => {
		fc.assert(
			fc.property(toolAndInput, modelId, ([tool, input], model) => {
				const result = builtin(tool, input, { modelId: model });
				if (result.outcome === "unrepairable") {
					expect(result.args).toBe(input);
					expect(result.changes).toEqual([]);
					expect(result.retryMessage?.split("\n")[0]).toContain(tool);
				}
			}),
			RUNS,
		);
	});

	it("never mutates a deep-frozen input", () => {
		fc.assert(
			fc.property(toolAndInput, modelId, ([tool, input], model) => {
				const snapshot = structuredClone(input);
				deepFreeze(input);
				builtin(tool, input, { modelId: model });
				expect(input).toEqual(snapshot);
			}),
			RUNS,
		);
	});

	it("never completes a call whose text ends inside a string", () => {
		const cut = fc
			.tuple(builtinToolName, fc.string({ minLength: 1, maxLength: 20 }), fc.nat())
			.map(([tool, value, at]) => {
				const key =
					tool === "bash" || tool === "powershell"
						? "command"
						: tool === "grep" || tool === "find"
							? "pattern"
							: "path";
				const open = `{"${key}":${JSON.stringify(value)}`;
				// Cut strictly inside the string literal: after its opening quote, before its closing one.
				const start = open.indexOf(":") + 2;
				const end = open.length - 1;
				return [tool, open.slice(0, start + (at % Math.max(1, end - start)))] as const;
			});
		fc.assert(
			fc.property(cut, ([tool, text]) => {
				const result = builtin(tool, text);
				expect(result.changes.map((c) => c.ruleId)).not.toContain("envelope.complete-truncated-object");
			}),
			RUNS,
		);
	});

	it("is idempotent: repairing a repaired result is valid with that same reference", () => {
		const arbitrary = builtinToolName.chain((tool) => fc.tuple(fc.constant(tool), malformedArgs(tool)));
		fc.assert(
			fc.property(arbitrary, modelId, ([tool, input], model) => {
				const first = builtin(tool, input, { modelId: model });
				if (first.outcome !== "repaired") return;
				const second = builtin(tool, first.args, { modelId: model });
				// Keys the tool does not declare stay as sent, so the note naming them comes again, and nothing else.
				if (ruleIds(first).includes("reportUndeclaredKeys")) {
					expect(ruleIds(second)).toEqual(["reportUndeclaredKeys"]);
					expect(second.args).toEqual(first.args);
					return;
				}
				expect(second.outcome).toBe("valid");
				expect(second.args).toBe(first.args);
			}),
			RUNS,
		);
	});

	it("is idempotent when grammar tokens leaked into the keys of a stringified, possibly aliased edits array", () => {
		const leak = (key: string, pick: number) =>
			pick % 3 === 0 ? key : pick % 3 === 1 ? `<arg_key>${key}</arg_key>` : `<arg_key> ${key}`;
		const arbitrary = fc.tuple(
			validArgs("edit"),
			fc.constantFrom("edits", ...EDITS_ALIASES),
			fc.array(fc.nat(), { minLength: 2, maxLength: 2 }),
			fc.boolean(),
		);
		fc.assert(
			fc.property(arbitrary, ([args, key, [oldPick = 0, newPick = 0], shim]) => {
				const edits = (args.edits as { oldText: string; newText: string }[]).map((edit) => ({
					[leak("oldText", oldPick)]: edit.oldText,
					[leak("newText", newPick)]: edit.newText,
				}));
				const { edits: _edits, ...rest } = args;
				const extras = shim ? { modelId: "glm-4.6", ...PI_EDIT_SHIM } : { modelId: "glm-4.6" };
				const first = builtin("edit", { ...rest, [key]: JSON.stringify(edits) }, extras);
				expect(first.outcome).toBe("repaired");
				// Token cleanup touches keys only: every edit text arrives byte for byte.
				expect((first.args as { edits: unknown }).edits).toEqual(args.edits);
				const second = builtin("edit", first.args, extras);
				expect(second.outcome).toBe("valid");
				expect(second.args).toBe(first.args);
			}),
			RUNS,
		);
	});

	it("is deterministic for JSON-domain input", () => {
		fc.assert(
			fc.property(toolAndInput, modelId, ([tool, input], model) => {
				expect(builtin(tool, input, { modelId: model })).toEqual(builtin(tool, input, { modelId: model }));
			}),
			RUNS,
		);
	});

	it("never pollutes prototypes", () => {
		fc.assert(
			fc.property(toolAndInput, modelId, ([tool, input], model) => {
				const result = builtin(tool, input, { modelId: model });
				expect(Object.keys(Object.prototype)).toEqual([]);
				expect(({} as Record<string, unknown>).polluted).toBeUndefined();
				if (result.outcome === "repaired" && typeof result.args === "object" && result.args !== null) {
					expect([Object.prototype, null]).toContain(Object.getPrototypeOf(result.args));
				}
			}),
			RUNS,
		);
	});

	it("skips preprocessing only when running it would change, record and observe nothing", () => {
		fc.assert(
			fc.property(toolAndInput, modelId, fc.boolean(), ([tool, input], model, allow) => {
				const preprocessors = PIPELINE_PREPROCESSORS[tool];
				if (planMayChange(compilePreprocessPlan(preprocessors, model), input)) return;
				const result = preprocessInput({
					input,
					toolName: tool,
					preprocessors,
					...(model === undefined ? {} : { modelId: model }),
					allowValidValueTransforms: allow,
				});
				expect(result.value).toBe(input);
				expect(result.changes).toEqual([]);
				expect(result.observations).toEqual([]);
			}),
			{ numRuns: 1000 },
		);
	});
});
