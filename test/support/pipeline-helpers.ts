/**
 * Small builders for pipeline tests: a built-in tool run with its real
 * tables, a facade run, a custom-schema run, and a deep freeze for
 * "never mutates the input" checks.
 */
import { type BuiltinToolName, PIPELINE_PREPROCESSORS, REPAIR_CONFIGS } from "../../src/core/builtin-tables.ts";
import { repairToolInput } from "../../src/core/facade.ts";
import { runRepairPipeline } from "../../src/core/pipeline.ts";
import type { RepairPipelineConfig, RepairPipelineResult, RepairResult, TSchema } from "../../src/core/types.ts";
import { BUILTIN_SCHEMAS } from "./builtin-schemas.ts";

export type ConfigExtras = Partial<Omit<RepairPipelineConfig, "toolName" | "schema">>;

/** The pipeline config the extension builds for a built-in tool: its schema, rows and engine config. */
export function builtinConfig(tool: BuiltinToolName, extras: ConfigExtras = {}): RepairPipelineConfig {
	return {
		toolName: tool,
		schema: BUILTIN_SCHEMAS[tool],
		preprocessors: PIPELINE_PREPROCESSORS[tool],
		engineConfig: REPAIR_CONFIGS[tool],
		...extras,
	};
}

/** `runRepairPipeline` exactly as the extension configures a built-in tool. */
export function builtin(tool: BuiltinToolName, input: unknown, extras: ConfigExtras = {}): RepairPipelineResult {
	return runRepairPipeline({ input, config: builtinConfig(tool, extras) });
}

/** The legacy facade with a built-in tool's engine config. */
export function facade(tool: BuiltinToolName, input: unknown): RepairResult {
	return repairToolInput({ toolName: tool, schema: BUILTIN_SCHEMAS[tool], input, config: REPAIR_CONFIGS[tool] });
}

/** `runRepairPipeline` for an arbitrary schema. */
export function custom(
	schema: TSchema,
	input: unknown,
	extras: ConfigExtras = {},
	toolName = "custom",
): RepairPipelineResult {
	return runRepairPipeline({ input, config: { toolName, schema, ...extras } });
}

export function ruleIds(result: { changes: ReadonlyArray<{ ruleId: string }> }): string[] {
	return result.changes.map((change) => change.ruleId);
}

/** Freezes `value` and everything reachable from it. */
export function deepFreeze<T>(value: T): T {
	if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
		Object.freeze(value);
		for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
	}
	return value;
}
