/**
 * The repairers of pi's eight built-in tools (read, bash, edit, write, grep,
 * find, ls, powershell), built from pi's own definitions and never registered.
 *
 * Each repairer reads pi's real definition for the session's cwd
 * (`create<Name>ToolDefinition(cwd)`): its schema, its request for
 * constrained sampling and its own argument shim (edit has one), which the
 * pipeline runs as the owner stage with the built-in tables of that tool.
 * The layer repairs a built-in's calls at `message_end` with these only
 * while pi itself owns the name (see tool-owners.ts); it never registers a
 * tool of its own under a built-in name, so no other extension's tool can be
 * shadowed by it, whatever the load order.
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
	type ToolDefinition,
} from "@earendil-works/pi-coding-agent";
import {
	type BuiltinToolName,
	OWNER_SHIM_APPLIES,
	PIPELINE_PREPROCESSORS,
	REPAIR_CONFIGS,
} from "../../core/builtin-tables.ts";
import { type RepairDeps, ToolRepairer } from "./prepare.ts";
import { isBuiltinToolName } from "./tool-owners.ts";

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

/** The built-in repairers of one cwd, each built on first use; a new cwd starts over. */
export class BuiltinRepairers {
	private cwd: string | undefined;
	private readonly repairers = new Map<BuiltinToolName, ToolRepairer>();
	private readonly deps: RepairDeps;

	constructor(deps: RepairDeps) {
		this.deps = deps;
	}

	/** The repairer of built-in `name` for `cwd`, or `undefined` for any other name. */
	repairer(name: string, cwd: string): ToolRepairer | undefined {
		if (!isBuiltinToolName(name)) return undefined;
		if (cwd !== this.cwd) {
			this.cwd = cwd;
			this.repairers.clear();
		}
		const known = this.repairers.get(name);
		if (known !== undefined) return known;
		const built = repairerFor(name, BUILTIN_DEFINITION_FACTORIES[name](cwd), this.deps);
		this.repairers.set(name, built);
		return built;
	}

	/**
	 * pi's own shim of a built-in, for another owner's tool built on pi's
	 * definition of that name (it carries pi's very schema object), which
	 * pi's shim was written for.
	 */
	piShimFor(name: string, schema: unknown, cwd: string): ((args: unknown) => unknown) | undefined {
		const spec = this.repairer(name, cwd)?.spec;
		return spec !== undefined && spec.schema === schema ? spec.ownerPrepare : undefined;
	}
}
