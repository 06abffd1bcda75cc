/**
 * The tool-owner adapter (`pi-repair-layer/pi`): wraps one pi tool definition
 * so its arguments go through the repair pipeline before pi validates them.
 *
 * The wrapper is the definition's `prepareArguments` hook, the one place pi
 * lets a tool reshape raw model arguments. Everything else (schema, execute,
 * renderers, prompt metadata) is carried over by reference. A tool that already
 * had its own `prepareArguments` keeps it: the pipeline runs it as the owner
 * shim, after envelope recovery and before the schema-guided repairs.
 *
 * Only the `ToolDefinition` type comes from pi, so this module loads wherever
 * the core does.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import type { TSchema } from "typebox";
import { runRepairPipeline } from "../core/pipeline.ts";
import type { RepairPipelineConfig, RepairPipelineResult } from "../core/types.ts";
import { isArgumentsRefused } from "./refused-arguments.ts";

/** Used as the error message when the pipeline gave no retry message. */
const UNREPAIRABLE_FALLBACK_MESSAGE =
	"The tool input could not be repaired safely, so the tool did not run. Check the arguments against the tool's schema and call it again.";

/** Thrown by an adapted `prepareArguments` when the input is unrepairable (unless passthrough is chosen). */
export class UnrepairableToolInputError extends Error {
	readonly result: RepairPipelineResult;

	constructor(result: RepairPipelineResult) {
		super(result.retryMessage || UNREPAIRABLE_FALLBACK_MESSAGE);
		this.name = "UnrepairableToolInputError";
		this.result = result;
	}
}

export interface PiToolOwnerAdapterOptions
	extends Omit<RepairPipelineConfig, "toolName" | "schema" | "ownerPrepareArguments"> {
	onOutcome?: (result: RepairPipelineResult) => void;
	/** What an unrepairable input does: throw the retry message (default) or go to pi's own validation unchanged. */
	unrepairable?: "throw" | "passthrough";
}

function isEmptyObject(input: unknown): boolean {
	return typeof input === "object" && input !== null && !Array.isArray(input) && Object.keys(input).length === 0;
}

/**
 * Returns a copy of `definition` whose `prepareArguments` repairs the input.
 * The original definition is left untouched.
 */
export function adaptToolDefinition<TParams extends TSchema, TDetails = unknown, TState = unknown>(
	definition: ToolDefinition<TParams, TDetails, TState>,
	options: PiToolOwnerAdapterOptions = {},
): ToolDefinition<TParams, TDetails, TState> {
	const { unrepairable = "throw", ...pipelineOptions } = options;
	const ownerPrepare = definition.prepareArguments;
	// Built once: the pipeline reads the config per call, so the valid path allocates nothing here.
	const config: RepairPipelineConfig = {
		...pipelineOptions,
		toolName: definition.name,
		schema: definition.parameters,
		...(ownerPrepare ? { ownerPrepareArguments: (input: unknown) => ownerPrepare.call(definition, input) } : {}),
	};
	type Prepared = ReturnType<NonNullable<ToolDefinition<TParams, TDetails, TState>["prepareArguments"]>>;
	return {
		...definition,
		prepareArguments(input: unknown): Prepared {
			// pi refuses this call with the text the model really sent; judging its empty stand-in would hide that.
			if (isArgumentsRefused(input)) return input as Prepared;
			const result = runRepairPipeline({ input, config });
			if (result.outcome !== "unrepairable") return result.args as Prepared;
			// Argument text that was not a JSON object arrives as `{}`, its text out of reach here; pi's own
			// message quotes that text (and names the missing fields of a real `{}`), so it speaks instead.
			if (unrepairable === "passthrough" || isEmptyObject(input)) return input as Prepared;
			throw new UnrepairableToolInputError(result);
		},
	};
}
