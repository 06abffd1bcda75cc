/**
 * Who owns each tool, read from pi's own provenance record (`sourceInfo` in
 * `pi.getAllTools()`), never guessed from names or paths.
 *
 * pi keeps the first registration of a tool name in extension load order, so
 * a layer that registered its own `bash` could silently unsandbox an
 * extension that sandboxes `bash` (or, loaded later, be silently shadowed).
 * The layer therefore registers no tool under any built-in name: it repairs
 * pi's own built-ins with the built-in tables, and a built-in name another
 * extension holds against that owner's schema, both at `message_end`, and
 * says so once for the latter.
 */
import type { ToolInfo } from "@earendil-works/pi-coding-agent";
import { BUILTIN_TOOL_NAMES, type BuiltinToolName } from "../../core/builtin-tables.ts";
import type { OwnerKind } from "../host/types.ts";

export const OWNER_KINDS: readonly OwnerKind[] = ["builtin", "extension", "mcp"];

/** pi's built-in MCP extension registers every MCP tool under this path. */
const MCP_EXTENSION_PATH = "builtin:mcp";
/** MCP tools are namespaced `mcp__<server>`, also when a third-party MCP extension registers them. */
const MCP_NAMESPACE_PREFIX = "mcp__";

type OwnedTool = Pick<ToolInfo, "name" | "sourceInfo" | "namespace">;

/** pi's own core tool: shipped with pi and registered under its own `builtin:<name>` path. */
export function isPiCoreTool(tool: OwnedTool): boolean {
	return tool.sourceInfo.source === "builtin" && tool.sourceInfo.path === `builtin:${tool.name}`;
}

/** The owner kind of one tool: pi-shipped tools under their own path (the core eight, codemode) are built-in. */
export function ownerKindOf(tool: OwnedTool): OwnerKind {
	if (tool.sourceInfo.path === MCP_EXTENSION_PATH || tool.namespace?.name.startsWith(MCP_NAMESPACE_PREFIX) === true) {
		return "mcp";
	}
	return isPiCoreTool(tool) ? "builtin" : "extension";
}

/**
 * A copy of the schema object with the same properties (TypeBox's hidden ones
 * included), so `pi.getAllTools()` tells the layer's own registration apart
 * from another extension that spread pi's very same definition.
 */
export function ownSchemaCopy<T extends object>(schema: T): T {
	return Object.create(Object.getPrototypeOf(schema), Object.getOwnPropertyDescriptors(schema)) as T;
}

/** A built-in name another extension registered: the layer leaves its tool alone. */
export interface ForeignOwner {
	tool: BuiltinToolName;
	/** pi's provenance path of the owning extension, for the user-facing line only (never telemetry). */
	owner: string;
}

/** The built-in names another extension holds, as pi reports them now. */
export function foreignBuiltinOwners(tools: readonly ToolInfo[]): ForeignOwner[] {
	const foreign: ForeignOwner[] = [];
	for (const tool of tools) {
		// Not configured at all (an allowlist left it out) or pi's own: nothing to say.
		if (isBuiltinToolName(tool.name) && !isPiCoreTool(tool))
			foreign.push({ tool: tool.name, owner: tool.sourceInfo.path });
	}
	return foreign;
}

export function isBuiltinToolName(name: string): name is BuiltinToolName {
	return (BUILTIN_TOOL_NAMES as readonly string[]).includes(name);
}

/** The one line that names a foreign owner, in the warning, `/repair-settings` and `/repair-stats`. */
export function foreignOwnerLine(foreign: ForeignOwner): string {
	return (
		`Tool repair: \`${foreign.tool}\` belongs to ${foreign.owner}, so the layer does not replace it; ` +
		"its calls are repaired at message_end against that tool's schema (schema rules only)."
	);
}

/**
 * The foreign owners seen this session, each announced once. A tool that
 * changes hands again is announced again, with its new owner.
 */
export class ForeignOwners {
	private readonly current = new Map<BuiltinToolName, string>();
	private readonly announced = new Set<string>();

	/** Replaces the known owners with this survey's; returns the owners not announced before. */
	update(foreign: readonly ForeignOwner[]): ForeignOwner[] {
		const fresh: ForeignOwner[] = [];
		this.current.clear();
		for (const entry of foreign) {
			this.current.set(entry.tool, entry.owner);
			const key = `${entry.tool}\u0000${entry.owner}`;
			if (this.announced.has(key)) continue;
			this.announced.add(key);
			fresh.push(entry);
		}
		return fresh;
	}

	has(tool: string): boolean {
		return this.current.has(tool as BuiltinToolName);
	}

	list(): ForeignOwner[] {
		return [...this.current].map(([tool, owner]) => ({ tool, owner }));
	}

	clear(): void {
		this.current.clear();
		this.announced.clear();
	}
}
