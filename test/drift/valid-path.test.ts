/**
 * The valid path's predicates against what they predict. Each may answer
 * "may change" too often (the full run then decides), never too rarely: a
 * `false` must mean the skipped work would have changed nothing. Checked
 * against pi's real `edit` shim, the pipeline with and without the shim
 * predicate, the strict-sampling walk and the token cleanup.
 */
import { createEditToolDefinition } from "@earendil-works/pi-coding-agent";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OWNER_SHIM_APPLIES, PIPELINE_PREPROCESSORS, REPAIR_CONFIGS } from "../../src/core/builtin-tables.ts";
import { cloneJson, jsonEqual } from "../../src/core/clone.ts";
import { runRepairPipeline } from "../../src/core/pipeline.ts";
import { mayHoldTokenLeak, stripTokenLeak } from "../../src/core/preprocess/token-cleanup.ts";
import { mayHoldOmittedNull, withoutOmittedNulls } from "../../src/core/strict-sampling.ts";
import type { RepairPipelineConfig } from "../../src/core/types.ts";
import { anyInput, hostileJson, modelId, validArgs } from "../support/arbitraries.ts";

const edit = createEditToolDefinition("/tmp");
const piShim = (input: unknown) => (edit.prepareArguments as (value: unknown) => unknown)(input);
const applies = OWNER_SHIM_APPLIES.edit as (input: unknown) => boolean;

const editLike = fc.oneof(
	anyInput("edit"),
	validArgs("edit"),
	fc.record(
		{ path: fc.string(), edits: fc.oneof(fc.string(), hostileJson), oldText: fc.string(), newText: fc.string() },
		{ requiredKeys: ["path"] },
	),
	hostileJson,
);

describe("the valid path's predicates", () => {
	it("pi's edit shim changes nothing where its predicate says it does not apply", () => {
		fc.assert(
			fc.property(editLike, (input) => {
				if (applies(input)) return;
				let prepared: unknown;
				try {
					prepared = piShim(cloneJson(input));
				} catch {
					return; // a value the copy refuses never reaches the shim
				}
				expect(jsonEqual(prepared, input)).toBe(true);
			}),
			{ numRuns: 1000 },
		);
	});

	it("the pipeline gives the same result with and without the shim predicate", () => {
		const config = (withPredicate: boolean, model: string | undefined): RepairPipelineConfig => ({
			toolName: "edit",
			schema: edit.parameters,
			preprocessors: PIPELINE_PREPROCESSORS.edit,
			engineConfig: REPAIR_CONFIGS.edit,
			strictSampling: true,
			ownerPrepareArguments: piShim,
			...(withPredicate ? { ownerPrepareApplies: applies } : {}),
			...(model === undefined ? {} : { modelId: model }),
		});
		fc.assert(
			fc.property(editLike, modelId, (input, model) => {
				const fast = runRepairPipeline({ input, config: config(true, model) });
				const full = runRepairPipeline({ input, config: config(false, model) });
				expect(fast).toEqual(full);
			}),
			{ numRuns: 500 },
		);
	});

	it("strict sampling's walk changes nothing where the null test finds none", () => {
		fc.assert(
			fc.property(fc.oneof(validArgs("read"), validArgs("edit"), hostileJson), (value) => {
				if (mayHoldOmittedNull(value)) return;
				expect(withoutOmittedNulls(edit.parameters, value)).toBe(value);
			}),
			{ numRuns: 1000 },
		);
	});

	it("token cleanup changes nothing the token test passes over", () => {
		const token = fc.constantFrom("<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>", "<", ">", " ", "");
		const text = fc.tuple(token, fc.string(), token).map(([a, b, c]) => `${a}${b}${c}`);
		fc.assert(
			fc.property(text, fc.boolean(), (value, isKey) => {
				if (stripTokenLeak(value, isKey) !== value) expect(mayHoldTokenLeak(value)).toBe(true);
			}),
			{ numRuns: 2000 },
		);
	});
});
