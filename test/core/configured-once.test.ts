/**
 * A repair is configured once: the schema engine's tool config is translated
 * into preprocessing rows, so a built-in call judged with its rows and its
 * engine config gives the verdict the facade gives with the engine config alone.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BUILTIN_TOOL_NAMES, PIPELINE_PREPROCESSORS, REPAIR_CONFIGS } from "../../src/core/builtin-tables.ts";
import { engineConfigRows } from "../../src/core/engine-config.ts";
import { isPlainObject } from "../../src/core/json-value.ts";
import { planFor } from "../../src/core/pipeline.ts";
import { runPreprocessPlan } from "../../src/core/preprocess.ts";
import { runSchemaRepair } from "../../src/core/schema-repair/engine.ts";
import { seeded } from "../grammar/seed.ts";
import { anyInput, modelId } from "../support/arbitraries.ts";
import { BUILTIN_SCHEMAS } from "../support/builtin-schemas.ts";
import { builtin, builtinConfig, custom, facade, ruleIds } from "../support/pipeline-helpers.ts";

describe("a repair configured once", () => {
	it("gives one verdict for an alias whose value has the wrong type, whichever config names it", () => {
		expect(builtin("read", { file_path: 5 }).outcome).toBe("unrepairable");
		expect(facade("read", { file_path: 5 }).outcome).toBe("unrepairable");
	});

	it("renames a usable alias the same way and under the same rule in both", () => {
		const viaRows = builtin("read", { file_path: "a.ts" });
		const viaFacade = facade("read", { file_path: "a.ts" });
		expect(viaRows.args).toEqual({ path: "a.ts" });
		expect(viaFacade.args).toEqual({ path: "a.ts" });
		expect(ruleIds(viaRows)).toEqual(["preprocess.exact-alias"]);
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

/**
 * The valid path answers "valid as sent" only from the rows' own tests. A
 * repair configured anywhere else (a cleanup the engine runs itself, a row
 * whose test does not match its rewrite) leaves a call the skip waves through
 * changed by running every row's rewrite and the engine on it, and this fails.
 */
describe("the valid-path skip, derived from the rows", () => {
	const hints = fc.constantFrom(
		{ path: "[a.md](http://a.md)" },
		{ path: "<https://a.md>" },
		{ file_path: "a.md" },
		{ path: "^a.md$" },
		{ command: "ls", cmd: "ls" },
		{ "<arg_key>path</arg_key>": "a" },
	);

	for (const tool of BUILTIN_TOOL_NAMES) {
		it(`waves through only ${tool} calls that every row's rewrite and the engine leave as they are`, () => {
			const input = fc.oneof(
				anyInput(tool),
				fc
					.tuple(anyInput(tool), hints)
					.map(([value, hint]) =>
						typeof value === "object" && value !== null && !Array.isArray(value) ? { ...value, ...hint } : hint,
					),
			);
			let skipped = 0;
			fc.assert(
				fc.property(input, modelId, (value, model) => {
					const plan = planFor(builtinConfig(tool, model === undefined ? {} : { modelId: model }));
					if (!isPlainObject(value) || !plan.validAsSent(value)) return;
					skipped++;
					// Every rewrite at every location, asked without the rows' "may change" tests.
					expect(runPreprocessPlan(plan.preprocess, value, tool, true).changes).toEqual([]);
					const engine = runSchemaRepair({ value, schema: BUILTIN_SCHEMAS[tool], toolName: tool, config: plan.engine });
					expect(engine.outcome).toBe("valid");
				}),
				seeded(300),
			);
			expect(skipped).toBeGreaterThan(0);
		});
	}

	it("sees a path cleanup configured only in the engine config", () => {
		// The engine's path field is a row now: an auto-link in it is never waved through as valid.
		const result = custom(
			BUILTIN_SCHEMAS.read,
			{ path: "[a.md](http://a.md)" },
			{ engineConfig: { pathFields: ["path"] } },
			"read",
		);
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "a.md" });
	});
});
