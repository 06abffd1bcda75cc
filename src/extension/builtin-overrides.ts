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
 * re-registers against it. Only names pi itself still owns are registered
 * (see tool-owners.ts): an override never replaces another extension's tool.
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
import { boundaryOf, type RepairDeps, ToolRepairer } from "./prepare.ts";

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
			repairConfig: REPAIR_CONFIGS[name],
			strictSampling: requestsStrictSampling(original),
			...(ownerPrepare ? { ownerPrepare: (args: unknown) => ownerPrepare.call(original, args) } : {}),
			...(ownerPrepare && ownerPrepareApplies ? { ownerPrepareApplies } : {}),
		},
		deps,
	);
}

/**
 * A copy of the schema object with the same properties (TypeBox's hidden ones
 * included), so `pi.getAllTools()` tells the layer's registration apart from
 * another extension that spread pi's very same definition.
 */
export function ownSchemaCopy<T extends object>(schema: T): T {
	return Object.create(Object.getPrototypeOf(schema), Object.getOwnPropertyDescriptors(schema)) as T;
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
		parameters: repairer.spec.schema,
		prepareArguments: (args: unknown) => repairer.prepare(args),
	};
	if (original.renderResult) {
		override.renderResult = wrapRenderResult(original.renderResult, original, lookup, deps.settings, boundaryOf(deps));
	}
	return override;
}

export class BuiltinOverrides {
	private registeredCwd: string | undefined;
	private readonly repairers = new Map<string, ToolRepairer>();
	/** Schema objects of the layer's own registrations, to recognise them in `pi.getAllTools()`. */
	private readonly ownSchemas = new WeakSet<object>();
	private readonly pi: Pick<ExtensionAPI, "registerTool">;
	private readonly deps: RepairDeps;

	constructor(pi: Pick<ExtensionAPI, "registerTool">, deps: RepairDeps) {
		this.pi = pi;
		this.deps = deps;
	}

	/**
	 * Registers the overrides of `names` (default all eight) for `cwd`; names
	 * already registered for that cwd are left as they are.
	 */
	register(cwd: string, names: readonly BuiltinToolName[] = BUILTIN_TOOL_NAMES): void {
		if (cwd !== this.registeredCwd) {
			this.registeredCwd = cwd;
			this.repairers.clear();
		}
		const lookup = (toolCallId: string) => this.deps.feedback.info(toolCallId);
		for (const name of names) {
			if (this.repairers.has(name)) continue;
			const factory = BUILTIN_DEFINITION_FACTORIES[name](cwd);
			const original = { ...factory, parameters: ownSchemaCopy(factory.parameters) };
			const repairer = repairerFor(name, original, this.deps);
			this.ownSchemas.add(original.parameters);
			this.repairers.set(name, repairer);
			this.pi.registerTool(overrideDefinition(original, repairer, lookup, this.deps));
		}
	}

	/** True when pi reports this tool as one of the layer's own registrations. */
	isOurs(tool: { parameters: unknown }): boolean {
		return typeof tool.parameters === "object" && tool.parameters !== null && this.ownSchemas.has(tool.parameters);
	}

	get cwd(): string | undefined {
		return this.registeredCwd;
	}

	/** The repairer of a registered override (whether or not it won its name), for the message_end rescue. */
	repairer(toolName: string): ToolRepairer | undefined {
		return this.repairers.get(toolName);
	}
}
