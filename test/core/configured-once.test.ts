/**
 * A repair is configured once: the schema engine's tool config is translated
 * into preprocessing rows, so a built-in call judged with its rows and its
 * engine config gives the verdict the facade gives with the engine config alone.
 */
import { describe, expect, it } from "vitest";
import { PIPELINE_PREPROCESSORS, REPAIR_CONFIGS } from "../../src/core/builtin-tables.ts";
import { engineConfigRows } from "../../src/core/engine-config.ts";
import { repairToolInput } from "../../src/core/facade.ts";
import { runRepairPipeline } from "../../src/core/pipeline.ts";
import { BUILTIN_SCHEMAS } from "../support/builtin-schemas.ts";

const both = (tool: "read" | "edit" | "write", input: unknown) =>
	runRepairPipeline({
		input,
		config: {
			toolName: tool,
			schema: BUILTIN_SCHEMAS[tool],
			preprocessors: PIPELINE_PREPROCESSORS[tool],
			engineConfig: REPAIR_CONFIGS[tool],
		},
	});
const facade = (tool: "read" | "edit" | "write", input: unknown) =>
	repairToolInput({ toolName: tool, schema: BUILTIN_SCHEMAS[tool], input, config: REPAIR_CONFIGS[tool] });

describe("a repair configured once", () => {
	it("gives one verdict for an alias whose value has the wrong type, whichever config names it", () => {
		expect(both("read", { file_path: 5 }).outcome).toBe("unrepairable");
		expect(facade("read", { file_path: 5 }).outcome).toBe("unrepairable");
	});

	it("renames a usable alias the same way and under the same rule in both", () => {
		const viaRows = both("read", { file_path: "a.ts" });
		const viaFacade = facade("read", { file_path: "a.ts" });
		expect(viaRows.args).toEqual({ path: "a.ts" });
		expect(viaFacade.args).toEqual({ path: "a.ts" });
		expect(viaRows.changes.map((change) => change.ruleId)).toEqual(["preprocess.exact-alias"]);
	});

	it("translates aliases, path fields and structural repairs into rows, declared wherever the schema names the key", () => {
		const rows = engineConfigRows(REPAIR_CONFIGS.edit, BUILTIN_SCHEMAS.edit);
		const selectors = rows.preprocessors.map((row) => `${row.kind} ${row.selector}`);
		expect(selectors).toContain("alias /path");
		expect(selectors).toContain("alias /edits");
		expect(selectors).toContain("alias /edits/*/oldText");
		expect(selectors).toContain("alias /edits/*/newText");
		expect(selectors).toContain("filesystem-path /path");
		// What is left to the engine renames nothing and cleans no path.
		expect(rows.engine.fieldAliases).toBeUndefined();
		expect(rows.engine.pathFields).toBeUndefined();
	});

	it("leaves out a translated row the explicit rows already hold, so nothing runs twice", () => {
		const rows = engineConfigRows(REPAIR_CONFIGS.read, BUILTIN_SCHEMAS.read, PIPELINE_PREPROCESSORS.read);
		expect(rows.preprocessors).toEqual([]);
		// The edit fold's row carries the engine repair's rule ID: the engine does not fold again.
		const edit = engineConfigRows(REPAIR_CONFIGS.edit, BUILTIN_SCHEMAS.edit, PIPELINE_PREPROCESSORS.edit);
		expect(edit.engine.structural).toBeUndefined();
	});
});
