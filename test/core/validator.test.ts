import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { check, issues, MAX_ISSUES } from "../../src/core/validator.ts";

describe("check", () => {
	it("accepts a value that satisfies a TypeBox schema as it stands", () => {
		const schema = Type.Object({ path: Type.String(), limit: Type.Optional(Type.Number()) });
		expect(check(schema, { path: "/a" })).toBe(true);
		expect(check(schema, { path: "/a", extra: 1 })).toBe(true);
	});

	it("never coerces: a numeric string is not a number", () => {
		const schema = Type.Object({ limit: Type.Number() });
		expect(check(schema, { limit: "7" })).toBe(false);
	});

	it("validates plain JSON Schema objects the same way", () => {
		const schema = {
			type: "object",
			properties: { path: { type: "string" }, count: { type: "integer" } },
			required: ["path"],
		};
		expect(check(schema as never, { path: "/a", count: 2 })).toBe(true);
		expect(check(schema as never, { path: "/a", count: 2.5 })).toBe(false);
		expect(check(schema as never, { count: 2 })).toBe(false);
	});

	it("caches per schema object, so two equal schemas are compiled independently and agree", () => {
		const a = Type.Object({ x: Type.String() });
		const b = Type.Object({ x: Type.String() });
		expect(check(a, { x: "1" })).toBe(check(b, { x: "1" }));
		expect(check(a, { x: 1 })).toBe(false);
	});
});

describe("issues", () => {
	it("reports keyword, instance path, params and TypeBox's own message", () => {
		const schema = Type.Object({ path: Type.String(), offset: Type.Optional(Type.Number()) });
		expect(issues(schema, { offset: null })).toEqual([
			{
				keyword: "required",
				instancePath: "",
				params: { requiredProperties: ["path"] },
				message: "must have required properties path",
			},
			{ keyword: "type", instancePath: "/offset", params: { type: "number" }, message: "must be number" },
		]);
	});

	it("reports a root type issue for a non-object", () => {
		const schema = Type.Object({ path: Type.String() });
		expect(issues(schema, 42)).toEqual([
			{ keyword: "type", instancePath: "", params: { type: "object" }, message: "must be object" },
		]);
	});

	it("returns nothing for a valid value and never more than the cap", () => {
		const properties: Record<string, ReturnType<typeof Type.Number>> = {};
		const value: Record<string, unknown> = {};
		for (let i = 0; i < 50; i++) {
			properties[`f${i}`] = Type.Number();
			value[`f${i}`] = "x";
		}
		const schema = Type.Object(properties);
		expect(issues(schema, {}).length).toBeGreaterThan(0);
		expect(issues(schema, value).length).toBeLessThanOrEqual(MAX_ISSUES);
		expect(issues(Type.Object({}), {})).toEqual([]);
	});
});
