/**
 * Ownership of tool names from pi's provenance record: pi's own core tools,
 * the layer's overrides (recognised by schema identity), and built-ins that
 * another extension registered; each foreign owner announced once.
 */
import type { ToolInfo } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { BUILTIN_TOOL_NAMES } from "../../src/core/builtin-tables.ts";
import {
	ForeignOwners,
	foreignBuiltinOwners,
	foreignOwnerLine,
	ownerKindOf,
} from "../../src/extension/repair/tool-owners.ts";

function tool(name: string, path: string, source = "local", extra: Partial<ToolInfo> = {}): ToolInfo {
	return {
		name,
		description: name,
		parameters: { type: "object" },
		exposure: "direct",
		sourceInfo: { path, source, scope: "temporary", origin: "top-level" },
		...extra,
	};
}

describe("owner kinds", () => {
	it("tells pi's core tools, MCP tools and extension tools apart", () => {
		expect(ownerKindOf(tool("read", "builtin:read", "builtin"))).toBe("builtin");
		expect(ownerKindOf(tool("mcp__docs__search", "builtin:mcp", "builtin"))).toBe("mcp");
		expect(ownerKindOf(tool("search", "/x/mcp-adapter.ts", "local", { namespace: { name: "mcp__docs" } }))).toBe("mcp");
		expect(ownerKindOf(tool("codemode", "builtin:codemode", "builtin"))).toBe("builtin");
		expect(ownerKindOf(tool("bash", "/x/sandbox.ts"))).toBe("extension");
	});
});

describe("the survey of the eight built-in names", () => {
	it("names the built-ins another extension holds, and only those", () => {
		const tools = [
			tool("bash", "/x/sandbox.ts"),
			tool("todo", "/x/todo.ts"),
			...BUILTIN_TOOL_NAMES.filter((name) => name !== "bash").map((name) => tool(name, `builtin:${name}`, "builtin")),
		];
		expect(foreignBuiltinOwners(tools)).toEqual([{ tool: "bash", owner: "/x/sandbox.ts" }]);
	});

	it("has nothing to say when pi lists no built-in (left out by an allowlist)", () => {
		expect(foreignBuiltinOwners([])).toEqual([]);
	});
});

describe("foreign owners", () => {
	it("announces each owner once and forgets names that changed hands back", () => {
		const owners = new ForeignOwners();
		const sandbox = { tool: "bash" as const, owner: "/x/sandbox.ts" };
		expect(owners.update([sandbox])).toEqual([sandbox]);
		expect(owners.update([sandbox])).toEqual([]);
		expect(owners.has("bash")).toBe(true);
		expect(owners.update([])).toEqual([]);
		expect(owners.has("bash")).toBe(false);
		const other = { tool: "bash" as const, owner: "/y/other.ts" };
		expect(owners.update([other])).toEqual([other]);
		expect(foreignOwnerLine(other)).toContain("`bash` belongs to /y/other.ts");
	});
});
