import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { runSchemaRepair } from "../../../src/core/schema-repair/engine.ts";
import type { StructuralRepair } from "../../../src/core/types.ts";
import { deepFreeze } from "../../support/pipeline-helpers.ts";

const read = Type.Object({
	path: Type.String(),
	offset: Type.Optional(Type.Number()),
	limit: Type.Optional(Type.Number()),
});
const ids = (result: { changes: Array<{ ruleId: string }> }) => result.changes.map((c) => c.ruleId);

describe("fast path", () => {
	it("returns the input itself when it is valid and nothing fired", () => {
		const value = { path: "/a" };
		const result = runSchemaRepair({ value, schema: read, toolName: "read" });
		expect(result).toEqual({ outcome: "valid", args: value, changes: [] });
		expect(result.args).toBe(value);
	});

	// Path cleanup is a preprocessing row: the engine config's path fields are translated into it before the engine runs.
	it("leaves a configured path field to the rows: a valid auto-link is valid here", () => {
		const value = deepFreeze({ path: "[a.md](http://a.md)", limit: 1 });
		const result = runSchemaRepair({ value, schema: read, toolName: "read", config: { pathFields: ["path"] } });
		expect(result.outcome).toBe("valid");
		expect(result.args).toBe(value);
	});
});

describe("verdict", () => {
	it("calls input valid, unconverted, when our safe conversion alone would fix it", () => {
		const value = { path: "/a", limit: "7" };
		const result = runSchemaRepair({ value, schema: read, toolName: "read" });
		expect(result.outcome).toBe("valid");
		expect(result.args).toBe(value);
		expect(result.issueSummary).toBeUndefined();
	});

	it("returns the converted value with the original issues when something fired", () => {
		const result = runSchemaRepair({ value: { path: "/a", offset: null, limit: "7" }, schema: read, toolName: "read" });
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "/a", limit: 7 });
		expect(result.issueSummary).toBe("/offset|type|number; /limit|type|number");
		expect(result.fingerprint).toMatch(/^[0-9a-f]{8}$/);
	});

	it("fails closed with the original issues, the input and a retry message", () => {
		const value = { offset: "x" };
		const result = runSchemaRepair({ value, schema: read, toolName: "read" });
		expect(result.outcome).toBe("unrepairable");
		expect(result.args).toBe(value);
		expect(result.changes).toEqual([]);
		expect(result.issueSummary).toBe("(root)|required|path; /offset|type|number");
		expect(result.retryMessage).toContain('Received: {"offset":"x"}');
	});

	it("never mutates its input while repairing", () => {
		const value = deepFreeze({ path: "/a", offset: null, nested: { a: 1 } });
		const result = runSchemaRepair({ value, schema: read, toolName: "read" });
		expect(result.outcome).toBe("repaired");
		expect(value).toEqual({ path: "/a", offset: null, nested: { a: 1 } });
	});
});

describe("root repairs", () => {
	it("parses a root object text", () => {
		const result = runSchemaRepair({ value: ' {"path":"/x"} ', schema: read, toolName: "read" });
		expect(result.args).toEqual({ path: "/x" });
		expect(ids(result)).toEqual(["parseJsonStringifiedRootObject"]);
		expect(result.changes[0]?.note).toContain("read");
	});

	it("wraps a root string only when configured, optionally into an array", () => {
		expect(runSchemaRepair({ value: "/x", schema: read, toolName: "read" }).outcome).toBe("unrepairable");
		const wrapped = runSchemaRepair({
			value: "/x",
			schema: read,
			toolName: "read",
			config: { rootString: { field: "path" } },
		});
		expect(wrapped.args).toEqual({ path: "/x" });
		const list = Type.Object({ ids: Type.Array(Type.String()) });
		const inArray = runSchemaRepair({
			value: "p",
			schema: list,
			toolName: "t",
			config: { rootString: { field: "ids", wrapInArray: true } },
		});
		expect(inArray.args).toEqual({ ids: ["p"] });
		expect(inArray.changes[0]?.note).toContain('{ids: ["..."]}');
	});

	it("never wraps text that starts like JSON or encodes it", () => {
		const config = { rootString: { field: "path" } };
		for (const text of [
			'{"path":',
			"[1]",
			" [",
			JSON.stringify('{"path":"/x"}'),
			JSON.stringify(JSON.stringify([1])),
		]) {
			expect(runSchemaRepair({ value: text, schema: read, toolName: "read", config }).outcome).toBe("unrepairable");
		}
		const list = Type.Object({ ids: Type.String() });
		expect(
			runSchemaRepair({
				value: "[1]",
				schema: list,
				toolName: "t",
				config: { rootString: { field: "ids", wrapInArray: true } },
			}).outcome,
		).toBe("unrepairable");
	});

	it("fails closed on non-string, non-record roots", () => {
		for (const value of [[], 1, true, null, undefined]) {
			expect(runSchemaRepair({ value, schema: read, toolName: "read" }).outcome).toBe("unrepairable");
		}
	});
});

describe("configured structural repairs", () => {
	it("runs each repair on the private copy and records a string result under its name", () => {
		const repair: StructuralRepair = {
			name: "addPath",
			apply(args) {
				args.path = "/fixed";
				return "added a path";
			},
		};
		const value = deepFreeze({ other: 1 });
		const result = runSchemaRepair({ value, schema: read, toolName: "read", config: { structural: [repair] } });
		expect(result.args).toEqual({ other: 1, path: "/fixed" });
		expect(result.changes).toEqual([{ ruleId: "addPath", note: "added a path" }]);
	});

	it("treats a throwing or declining repair as not fired", () => {
		const repairs: StructuralRepair[] = [
			{
				name: "boom",
				apply() {
					throw new Error("x");
				},
			},
			{ name: "no", apply: () => false },
		];
		const result = runSchemaRepair({
			value: { path: "/a", limit: null },
			schema: read,
			toolName: "read",
			config: { structural: repairs },
		});
		expect(ids(result)).toEqual(["dropNullOrUndefinedField"]);
	});
});

describe("iterative passes", () => {
	it("goes on while each pass fires, past the eight issues one validation names, up to the change bound", () => {
		const properties: Record<string, ReturnType<typeof Type.Optional<ReturnType<typeof Type.Number>>>> = {};
		const value: Record<string, null> = {};
		for (let i = 0; i < 25; i++) {
			properties[`f${i}`] = Type.Optional(Type.Number());
			value[`f${i}`] = null;
		}
		const repaired = runSchemaRepair({ value, schema: Type.Object(properties), toolName: "t" });
		expect(repaired.outcome).toBe("repaired");
		expect(repaired.changes).toHaveLength(25);
		const bounded = runSchemaRepair({ value, schema: Type.Object(properties), toolName: "t", maxChanges: 16 });
		expect(bounded.outcome).toBe("unrepairable");
	});
});
