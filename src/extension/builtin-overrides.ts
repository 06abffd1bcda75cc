/**
 * Overrides of pi's eight built-in tools (read, bash, edit, write, grep, find,
 * ls, powershell), registered under their own names so pi uses ours.
 *
 * Each override is pi's real definition for the session's cwd
 * (`create<Name>ToolDefinition(cwd)`) spread as is (schema, description,
 * prompt metadata, constrained sampling, execute, renderers), with only two
 * hooks replaced: `prepareArguments` runs the repair pipeline (chaining pi's
 * own shim where the tool has one, as edit does), and `renderResult` adds the
 * repair indicator. Registration is idempotent per cwd, and a new cwd
 * re-registers all eight against it.
 */
import {
	createBashToolDefinition,
	createEditToolDefinition,
	createFindToolDefinition,
	createGrepToolDefinition,
	createLsToolDefinition,
	createPowerShellToolDefinition,
	createReadToolDefinition,
	createWriteToolDefinition,
	type ExtensionAPI,
	type ToolDefinition,
} from "@earendil-works/pi-coding-agent";
import {
	BUILTIN_TOOL_NAMES,
	type BuiltinToolName,
	OWNER_SHIM_APPLIES,
	PIPELINE_PREPROCESSORS,
	REPAIR_CONFIGS,
} from "../core/builtin-tables.ts";
import type { RepairFeedback } from "../core/types.ts";
import { wrapRenderResult } from "./indicator.ts";
import { type RepairDeps, ToolRepairer } from "./prepare.ts";

// biome-ignore lint/suspicious/noExplicitAny: the eight definitions differ in schema, details and state types (pi types them the same way).
type AnyToolDefinition = ToolDefinition<any, any, any>;

/** pi's factories for its built-in definitions, by tool name. */
export const BUILTIN_DEFINITION_FACTORIES: Readonly<Record<BuiltinToolName, (cwd: string) => AnyToolDefinition>> = {
	read: createReadToolDefinition,
	bash: createBashToolDefinition,
	edit: createEditToolDefinition,
	write: createWriteToolDefinition,
	grep: createGrepToolDefinition,
	find: createFindToolDefinition,
	ls: createLsToolDefinition,
	powershell: createPowerShellToolDefinition,
};

export function isBuiltinToolName(name: string): name is BuiltinToolName {
	return (BUILTIN_TOOL_NAMES as readonly string[]).includes(name);
}

/** True when the definition requests provider-side constrained sampling. */
function requestsStrictSampling(definition: AnyToolDefinition): boolean {
	return definition.constrainedSampling !== undefined && definition.constrainedSampling !== false;
}

/** The repairer for one pi definition, with the built-in tables of its tool. */
export function repairerFor(name: BuiltinToolName, original: AnyToolDefinition, deps: RepairDeps): ToolRepairer {
	const ownerPrepare = original.prepareArguments;
	const ownerPrepareApplies = OWNER_SHIM_APPLIES[name];
	return new ToolRepairer(
		{
			name,
			schema: original.parameters,
			preprocessors: PIPELINE_PREPROCESSORS[name],
			legacyConfig: REPAIR_CONFIGS[name],
			strictSampling: requestsStrictSampling(original),
			...(ownerPrepare ? { ownerPrepare: (args: unknown) => ownerPrepare.call(original, args) } : {}),
			...(ownerPrepare && ownerPrepareApplies ? { ownerPrepareApplies } : {}),
		},
		deps,
	);
}

/** The override definition: the original with a repairing `prepareArguments` and the indicator renderer. */
export function overrideDefinition(
	original: AnyToolDefinition,
	repairer: ToolRepairer,
	lookup: (toolCallId: string) => RepairFeedback | undefined,
	deps: RepairDeps,
): AnyToolDefinition {
	const override: AnyToolDefinition = {
		...original,
		prepareArguments: (args: unknown) => repairer.prepare(args),
	};
	if (original.renderResult) {
		override.renderResult = wrapRenderResult(original.renderResult, original, lookup, deps.settings);
	}
	return override;
}

export class BuiltinOverrides {
	private registeredCwd: string | undefined;
	private readonly repairers = new Map<string, ToolRepairer>();
	private readonly pi: Pick<ExtensionAPI, "registerTool">;
	private readonly deps: RepairDeps;

	constructor(pi: Pick<ExtensionAPI, "registerTool">, deps: RepairDeps) {
		this.pi = pi;
		this.deps = deps;
	}

	/** Registers the eight overrides for `cwd`; a no-op when they already target it. */
	register(cwd: string): void {
		if (cwd === this.registeredCwd) return;
		this.registeredCwd = cwd;
		const lookup = (toolCallId: string) => this.deps.feedback.info(toolCallId);
		for (const name of BUILTIN_TOOL_NAMES) {
			const original = BUILTIN_DEFINITION_FACTORIES[name](cwd);
			const repairer = repairerFor(name, original, this.deps);
			this.repairers.set(name, repairer);
			this.pi.registerTool(overrideDefinition(original, repairer, lookup, this.deps));
		}
	}

	get cwd(): string | undefined {
		return this.registeredCwd;
	}

	/** The repairer of a wrapped tool, for the message_end rescue. */
	repairer(toolName: string): ToolRepairer | undefined {
		return this.repairers.get(toolName);
	}
}
