/**
 * Tripwire: the parameter schemas of pi's eight built-ins, as the overrides
 * receive them from `create<Name>ToolDefinition(cwd)`. The repair tables
 * (aliases, path fields, the edit fold) are written against these shapes; a
 * change here means the tables must be re-checked (docs/research.md). The
 * snapshot holds the shapes only (types, required keys, nesting): pi rewords
 * its descriptions between releases, and no rule reads them.
 *
 * PI_UPDATE_SCHEMA_SNAPSHOT=1 rewrites the snapshot from the installed pi.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BUILTIN_TOOL_NAMES } from "../../src/core/builtin-tables.ts";
import { BUILTIN_DEFINITION_FACTORIES } from "../../src/extension/repair/builtin-repairers.ts";

const SNAPSHOT = join(dirname(fileURLToPath(import.meta.url)), "../fixtures/builtin-schemas.snapshot.json");

/** Annotation keywords that carry prose for the model, not shape. */
const ANNOTATIONS = new Set(["description", "title", "examples"]);

/** The schema with every annotation keyword removed; a property that happens to be named `description` stays. */
function shapeOf(node: unknown, inProperties = false): unknown {
	if (Array.isArray(node)) return node.map((item) => shapeOf(item));
	if (typeof node !== "object" || node === null) return node;
	const shape: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(node)) {
		if (!inProperties && ANNOTATIONS.has(key)) continue;
		shape[key] = shapeOf(value, !inProperties && key === "properties");
	}
	return shape;
}

function currentSchemas(): Record<string, unknown> {
	const schemas: Record<string, unknown> = {};
	for (const name of BUILTIN_TOOL_NAMES) {
		schemas[name] = shapeOf(JSON.parse(JSON.stringify(BUILTIN_DEFINITION_FACTORIES[name]("/tmp").parameters)));
	}
	return schemas;
}

/** Every `pattern` key in the schema tree whose value is a string (a regex keyword, not a property). */
function regexKeywords(node: unknown, at = ""): string[] {
	if (typeof node !== "object" || node === null) return [];
	const found: string[] = [];
	for (const [key, value] of Object.entries(node)) {
		if (key === "pattern" && typeof value === "string") found.push(`${at}/pattern`);
		found.push(...regexKeywords(value, `${at}/${key}`));
	}
	return found;
}

describe("pi's built-in tool schemas", () => {
	if (process.env.PI_UPDATE_SCHEMA_SNAPSHOT) writeFileSync(SNAPSHOT, `${JSON.stringify(currentSchemas(), null, 2)}\n`);

	it("match the recorded shapes of all eight tools", () => {
		expect(existsSync(SNAPSHOT)).toBe(true);
		expect(currentSchemas()).toEqual(JSON.parse(readFileSync(SNAPSHOT, "utf8")));
	});

	it("pin types and structure, not descriptions", () => {
		expect(JSON.stringify(currentSchemas())).not.toContain('"description"');
		expect(shapeOf({ description: "prose", properties: { description: { type: "string", title: "t" } } })).toEqual({
			properties: { description: { type: "string" } },
		});
	});

	it("are exactly the eight names the tables cover", () => {
		expect(Object.keys(currentSchemas()).sort()).toEqual(
			["bash", "edit", "find", "grep", "ls", "powershell", "read", "write"].sort(),
		);
	});

	it("carry no regex pattern keyword (the property named pattern is fine)", () => {
		expect(regexKeywords(currentSchemas())).toEqual([]);
	});

	it("stay open to extra keys, so an alias left beside its canonical field never fails validation", () => {
		expect(JSON.stringify(currentSchemas())).not.toContain("additionalProperties");
	});

	it("request strict constrained sampling exactly for read, bash, powershell, edit and write", () => {
		const strict = BUILTIN_TOOL_NAMES.filter((name) => {
			const sampling = BUILTIN_DEFINITION_FACTORIES[name]("/tmp").constrainedSampling;
			return sampling !== undefined && sampling !== false;
		});
		expect([...strict].sort()).toEqual(["bash", "edit", "powershell", "read", "write"]);
	});

	it("give edit, and only edit, its own prepareArguments shim, which the overrides chain", () => {
		const withShim = BUILTIN_TOOL_NAMES.filter((name) => BUILTIN_DEFINITION_FACTORIES[name]("/tmp").prepareArguments);
		expect(withShim).toEqual(["edit"]);
	});
});
