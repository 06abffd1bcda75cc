/**
 * The pipeline's entry and its bounds: `runRepairPipeline` never throws,
 * judges the value it hands on (an input is read once, at the entry), and its
 * limits bound work (values, depth, changes), never the bytes of a string:
 * a large file whose only mistake is a field name is repaired.
 */
import fc from "fast-check";
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { builtin, custom, ruleIds } from "../support/pipeline-helpers.ts";

// The project's seeding convention: one seed for every property, replayable from the environment.
const SEED = Number(process.env.PI_REPAIR_FUZZ_SEED ?? 0x5eedc0de);
const MEGABYTE = "x".repeat(1_000_000);

describe("the entry never throws and reads the input once", () => {
	const throwing = (trap: keyof ProxyHandler<object>) =>
		new Proxy(
			{ path: "/a" },
			{
				[trap]: () => {
					throw new Error("trap");
				},
			},
		);

	it("answers unrepairable for an input whose proxy traps throw", () => {
		for (const trap of ["get", "ownKeys", "getPrototypeOf", "getOwnPropertyDescriptor", "has"] as const) {
			for (const tool of ["read", "edit", "bash"] as const) {
				let result: ReturnType<typeof builtin> | undefined;
				expect(() => {
					result = builtin(tool, throwing(trap));
				}, trap).not.toThrow();
				expect(result?.outcome, `${tool} ${trap}`).not.toBe("repaired");
			}
		}
		// A nested value is read through the same traps.
		for (const trap of ["get", "ownKeys", "getPrototypeOf", "getOwnPropertyDescriptor"] as const) {
			expect(builtin("read", { nested: throwing(trap), path: "/a" }).outcome, trap).toBe("unrepairable");
		}
	});

	it("reads a getter once and hands on the value it judged", () => {
		let reads = 0;
		const input = {
			get path() {
				reads++;
				return reads === 1 ? "/safe" : "/etc/shadow";
			},
		};
		const result = builtin("read", input);
		expect(reads).toBe(1);
		expect(result.outcome).toBe("valid");
		expect(result.args).toEqual({ path: "/safe" });
		expect(Object.getOwnPropertyDescriptor(result.args, "path")?.value).toBe("/safe");
	});

	it("reads a getter once on the repair path too", () => {
		let reads = 0;
		const input = {
			get file_path() {
				reads++;
				return reads === 1 ? "/safe" : "/etc/shadow";
			},
		};
		const result = builtin("read", input);
		expect(reads).toBe(1);
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "/safe" });
	});

	it("keeps the caller's reference for a valid call of plain data", () => {
		const input = { path: "/a", offset: 2 };
		expect(builtin("read", input).args).toBe(input);
	});

	it("judges a sparse array of millions of holes in bounded time", () => {
		const schema = Type.Object({ tags: Type.Array(Type.String()) });
		const tags: string[] = [];
		tags.length = 50_000_000;
		const started = performance.now();
		const result = custom(schema, { tags });
		expect(performance.now() - started).toBeLessThan(200);
		expect(result.outcome).toBe("unrepairable");
		const few: string[] = ["a"];
		few.length = 3;
		expect(custom(schema, { tags: few }).outcome).toBe("unrepairable");
	});

	it("never throws for hostile objects (property)", () => {
		const leaf = fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.constant(null), fc.boolean());
		fc.assert(
			fc.property(
				fc.dictionary(fc.constantFrom("path", "file_path", "offset", "x"), leaf, { maxKeys: 4 }),
				fc.constantFrom("get", "ownKeys", "getPrototypeOf", "getOwnPropertyDescriptor", "none"),
				fc.nat({ max: 3 }),
				(record, trap, after) => {
					let calls = 0;
					const handler: Record<string, unknown> = {};
					if (trap !== "none") {
						handler[trap] = (...args: unknown[]) => {
							calls++;
							if (calls > after) throw new Error("trap");
							return (Reflect[trap] as (...a: unknown[]) => unknown)(...args);
						};
					}
					const result = builtin("read", new Proxy(record, handler));
					expect(["valid", "repaired", "unrepairable"]).toContain(result.outcome);
				},
			),
			{ seed: SEED, numRuns: 300 },
		);
	});
});

describe("null optional fields, whatever their number", () => {
	it("drops every null optional field of a call with hundreds of them", () => {
		const properties: Record<string, ReturnType<typeof Type.String>> = {};
		const input: Record<string, unknown> = { path: "/a" };
		for (let index = 0; index < 400; index++) {
			properties[`o${index}`] = Type.Optional(Type.String());
			input[`o${index}`] = null;
		}
		const schema = Type.Object({ path: Type.String(), ...properties });
		const result = custom(schema, input);
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "/a" });
		expect(ruleIds(result)).toEqual(["dropNullOrUndefinedField"]);
	});
});

describe("limits bound work, not bytes", () => {
	it("repairs a 1 MB write whose only mistake is file_path", () => {
		const result = builtin("write", { file_path: "/a", content: MEGABYTE });
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "/a", content: MEGABYTE });
		expect(ruleIds(result)).toEqual(["preprocess.exact-alias"]);
	});

	it("repairs large flat edit fields and a large stringified edits list", () => {
		const flat = builtin("edit", { file_path: "/a", old_string: MEGABYTE, new_string: "y" });
		expect(flat.outcome).toBe("repaired");
		expect(flat.args).toEqual({ path: "/a", edits: [{ oldText: MEGABYTE, newText: "y" }] });
		const text = builtin("write", JSON.stringify({ file_path: "/a", content: MEGABYTE }));
		expect(text.outcome).toBe("repaired");
	});

	it("refuses too many values or too deep a nesting without asking for smaller content", () => {
		let deep: unknown = "x";
		for (let level = 0; level < 20_000; level++) deep = { a: deep };
		const nested = builtin("read", { file_path: "/a", deep });
		expect(nested.outcome).toBe("unrepairable");
		const tags = Type.Object({ tags: Type.Array(Type.String()) });
		const many = custom(tags, { tags: new Array<string>(1_000_001).fill("a") });
		expect(many.outcome).toBe("unrepairable");
		for (const result of [nested, many]) {
			expect(result.retryMessage).toContain("too complex to repair");
			expect(result.retryMessage).not.toMatch(/smaller|bytes/);
		}
	});

	it("honours a caller's node bound", () => {
		const input = { file_path: "/a", content: "x" };
		expect(builtin("write", input, { limits: { maxNodes: 2 } }).outcome).toBe("unrepairable");
		expect(builtin("write", input, { limits: { maxNodes: 3 } }).outcome).toBe("repaired");
	});
});
