/**
 * The repairers of pi's eight built-ins: built from pi's real definitions
 * (schema, constrained sampling, edit's own shim), per cwd, and never
 * registered, so pi keeps every tool it (or another extension) registered.
 */
import { describe, expect, it } from "vitest";
import { BUILTIN_TOOL_NAMES } from "../../src/core/builtin-tables.ts";
import { BUILTIN_DEFINITION_FACTORIES, BuiltinRepairers } from "../../src/extension/repair/builtin-repairers.ts";
import { isBuiltinToolName } from "../../src/extension/repair/tool-owners.ts";
import { type PiSessionHarness, startPiSession } from "../helpers/pi-session.ts";
import { repairDeps } from "../support/repair-deps.ts";

function setup() {
	return new BuiltinRepairers(repairDeps());
}

describe("the built-in repairers", () => {
	it("reads each of the eight from pi's own definition: schema and constrained sampling", () => {
		const repairers = setup();
		for (const name of BUILTIN_TOOL_NAMES) {
			const original = BUILTIN_DEFINITION_FACTORIES[name]("/tmp");
			const spec = repairers.repairer(name, "/tmp")?.spec;
			expect(spec?.schema, name).toBe(original.parameters);
			expect(spec?.strictSampling, name).toBe(
				original.constrainedSampling !== undefined && original.constrainedSampling !== false,
			);
		}
		expect(repairers.repairer("codemode", "/tmp")).toBeUndefined();
	});

	it("keeps one repairer per name for a cwd and builds them again for a new cwd", () => {
		const repairers = setup();
		const first = repairers.repairer("read", "/work/a");
		expect(repairers.repairer("read", "/work/a")).toBe(first);
		expect(repairers.repairer("read", "/work/b")).not.toBe(first);
	});

	it("chains pi's own edit shim: flat oldText/newText are folded by it and the call is repaired", () => {
		const edit = setup().repairer("edit", "/tmp");
		const result = edit?.run({ path: "a", oldText: "x", newText: "y" });
		expect(result?.outcome).toBe("repaired");
		expect(result?.args).toEqual({ path: "a", edits: [{ oldText: "x", newText: "y" }] });
	});

	it("offers pi's shim for another owner's tool only when it carries pi's very schema", () => {
		const repairers = setup();
		const piEdit = BUILTIN_DEFINITION_FACTORIES.edit("/tmp");
		expect(repairers.piShimFor("edit", piEdit.parameters, "/tmp")).toBeTypeOf("function");
		expect(repairers.piShimFor("edit", { ...piEdit.parameters }, "/tmp")).toBeUndefined();
		expect(repairers.piShimFor("bash", BUILTIN_DEFINITION_FACTORIES.bash("/tmp").parameters, "/tmp")).toBeUndefined();
	});

	it("knows exactly the eight built-in names", () => {
		expect(BUILTIN_TOOL_NAMES.every(isBuiltinToolName)).toBe(true);
		expect(isBuiltinToolName("codemode")).toBe(false);
	});
});

describe("in the real host", () => {
	let run: PiSessionHarness | undefined;

	it("registers no tool: every built-in stays pi's own, and the active set is unchanged", async () => {
		run = await startPiSession({ tools: ["read", "bash", "edit", "write"] });
		try {
			const builtins = run.session.getAllTools().filter((tool) => isBuiltinToolName(tool.name));
			expect(builtins.map((tool) => tool.name).sort()).toEqual(["bash", "edit", "read", "write"]);
			for (const tool of builtins) expect(tool.sourceInfo.path, tool.name).toBe(`builtin:${tool.name}`);
			expect(run.session.getActiveToolNames().sort()).toEqual(["bash", "edit", "read", "write"]);
		} finally {
			await run.dispose();
		}
	});
});
