/**
 * `repairToolInput`, the facade of the original package: the pipeline
 * with only a tool name, a schema and a schema-engine config, its result
 * mapped to the original `RepairResult` shape. The config's aliases and path
 * fields run as preprocessing rows and the edit fold through its
 * structural-repair form; an alias move, a path cleanup and an envelope
 * decode are reported under the original's names (`renameAliasedField`,
 * `unwrapMarkdownAutoLink`, `parseJsonStringifiedRootObject`).
 */
import type { TSchema } from "typebox";
import { runRepairPipeline } from "./pipeline.ts";
import { RULE } from "./rule-ids.ts";
import type { RepairResult, ToolRepairConfig } from "./types.ts";

// The original reported these repairs under its own names; the facade keeps them.
const LEGACY_RULE_NAMES: Readonly<Record<string, string>> = {
	[RULE.decodeJson]: RULE.parseJsonStringifiedRootObject,
	[RULE.exactAlias]: RULE.renameAliasedField,
	[RULE.filesystemPath]: RULE.unwrapMarkdownAutoLink,
};

export function repairToolInput(options: {
	toolName: string;
	schema: TSchema;
	input: unknown;
	config?: ToolRepairConfig;
}): RepairResult {
	const result = runRepairPipeline({
		input: options.input,
		config: { toolName: options.toolName, schema: options.schema, engineConfig: options.config ?? {} },
	});
	const changes = result.changes.map((change) => ({
		ruleId: Object.hasOwn(LEGACY_RULE_NAMES, change.ruleId)
			? (LEGACY_RULE_NAMES[change.ruleId] as string)
			: change.ruleId,
		note: change.note,
	}));
	const rulesFired: string[] = [];
	for (const change of changes) {
		if (!rulesFired.includes(change.ruleId)) rulesFired.push(change.ruleId);
	}
	return {
		outcome: result.outcome,
		args: result.args,
		rulesFired,
		notes: changes.map((change) => change.note),
		changes,
		issueSummary: result.issueSummary,
		fingerprint: result.fingerprint,
		retryMessage: result.retryMessage,
	};
}
