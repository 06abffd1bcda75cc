/**
 * runRepairPipeline, behaviour by behaviour, from the schema-repair engine
 * on: the engine through the pipeline, unrepairable results and their
 * diagnostics, callbacks, contained errors and the result's shape.
 */
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { runRepairPipeline } from "../../src/core/pipeline.ts";
import type { RepairPipelineResult } from "../../src/core/types.ts";
import { check } from "../../src/core/validator.ts";
import { BUILTIN_SCHEMAS } from "../support/builtin-schemas.ts";
import { builtin, custom, facade, ruleIds } from "../support/pipeline-helpers.ts";

const pathSchema = Type.Object({ path: Type.String() });

describe("schema-repair engine through the pipeline", () => {
	it("renames an alias in the facade and names it in the note", () => {
		const result = facade("read", { file_path: "/tmp/a.txt" });
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "/tmp/a.txt" });
		expect(result.rulesFired).toEqual(["renameAliasedField"]);
		expect(result.notes[0]).toContain("file_path");
		expect(ruleIds(builtin("read", { file_path: "/tmp/a.txt" }))).toEqual(["preprocess.exact-alias"]);
	});

	it("drops a null optional, and a null required field ends unrepairable", () => {
		const optional = builtin("read", { path: "/a", offset: null });
		expect(optional.args).toEqual({ path: "/a" });
		expect(ruleIds(optional)).toEqual(["dropNullOrUndefinedField"]);
		expect(optional.changes[0]?.note).toContain("null");
		const required = builtin("read", { path: null });
		expect(required.outcome).toBe("unrepairable");
		expect(required.retryMessage).toContain("  • /path: `path` must be a string, not null;");
	});

	it("drops an empty object standing in for an optional array, nothing else", () => {
		const schema = Type.Object({ path: Type.String(), tags: Type.Optional(Type.Array(Type.String())) });
		const dropped = custom(schema, { path: "/a", tags: {} });
		expect(dropped.args).toEqual({ path: "/a" });
		expect(ruleIds(dropped)).toEqual(["dropEmptyObjectPlaceholder"]);
		expect(custom(schema, { path: "/a", tags: { a: 1 } }).outcome).toBe("unrepairable");
		const requiredArray = Type.Object({ tags: Type.Array(Type.String()) });
		expect(custom(requiredArray, { tags: {} }).outcome).toBe("unrepairable");
	});

	it("parses array text before wrapping and never wraps a list literal", () => {
		const schema = Type.Object({ include: Type.Array(Type.String()) });
		const parsed = custom(schema, { include: '["a","b"]' });
		expect(parsed.args).toEqual({ include: ["a", "b"] });
		expect(ruleIds(parsed)).toEqual(["parseJsonStringifiedArray"]);
		const wrapped = custom(schema, { include: "foo" });
		expect(wrapped.args).toEqual({ include: ["foo"] });
		expect(ruleIds(wrapped)).toEqual(["wrapBareStringAsArray"]);
		for (const literal of ['["a",', "['a', 'b']", " [1, 2"]) {
			const input = { include: literal };
			const result = custom(schema, input);
			expect(result.outcome).toBe("unrepairable");
			expect(result.args).toBe(input);
		}
	});

	it("converts parsed number items to their text for a string array", () => {
		const schema = Type.Object({ include: Type.Array(Type.String()) });
		expect(custom(schema, { include: "[1,2]" }).args).toEqual({ include: ["1", "2"] });
	});

	it("parses object text for object fields and array elements, never malformed text", () => {
		const schema = Type.Object({ opts: Type.Object({ deep: Type.Boolean() }) });
		const parsed = custom(schema, { opts: '{"deep":true}' });
		expect(parsed.args).toEqual({ opts: { deep: true } });
		expect(ruleIds(parsed)).toEqual(["parseJsonStringifiedObject"]);
		expect(custom(schema, { opts: '{"a":1' }).outcome).toBe("unrepairable");
		const list = Type.Object({ items: Type.Array(Type.Object({ a: Type.Number() })) });
		const element = custom(list, { items: ['{"a":1}'] });
		expect(element.args).toEqual({ items: [{ a: 1 }] });
		expect(element.changes[0]?.note).toContain('"0"');
	});

	it("fires several rules in one pass and keeps valid fields", () => {
		const result = facade("read", { file_path: "/a", offset: null, limit: 5 });
		expect(result.args).toEqual({ path: "/a", limit: 5 });
		expect(result.rulesFired).toEqual(["renameAliasedField", "dropNullOrUndefinedField"]);
	});

	it("iterates: a parsed array then gets its aliases renamed", () => {
		const input = { path: "/a.txt", edits: '[{"old_text":"foo","new_text":"bar"}]' };
		const legacy = facade("edit", input);
		expect(legacy.args).toEqual({ path: "/a.txt", edits: [{ oldText: "foo", newText: "bar" }] });
		expect(legacy.rulesFired).toEqual(["parseJsonStringifiedArray", "renameAliasedField"]);
		expect(facade("edit", { path: "/a.txt", edits: '[{"oldText":"foo","newText":"bar"}]' }).rulesFired).toEqual([
			"parseJsonStringifiedArray",
		]);
		expect(ruleIds(builtin("edit", input))).toEqual([
			"parseJsonStringifiedArray",
			"preprocess.exact-alias",
			"preprocess.exact-alias",
		]);
	});

	it("needs two passes for an array of stringified objects", () => {
		const input = { path: "/a", edits: JSON.stringify([JSON.stringify({ oldText: "a", newText: "b" })]) };
		const result = facade("edit", input);
		expect(result.outcome).toBe("repaired");
		expect(result.rulesFired).toEqual(["parseJsonStringifiedArray", "parseJsonStringifiedObject"]);
	});

	it("renames aliases in every element of a parsed array", () => {
		const edits = JSON.stringify([
			{ old_text: "a", new_text: "b" },
			{ search: "c", replace: "d" },
		]);
		const result = facade("edit", { path: "/a", edits });
		expect(result.args).toEqual({
			path: "/a",
			edits: [
				{ oldText: "a", newText: "b" },
				{ oldText: "c", newText: "d" },
			],
		});
	});

	it("never uses a null alias value", () => {
		expect(facade("edit", { path: "/a", edits: '[{"old_text":null,"new_text":"b"}]' }).outcome).toBe("unrepairable");
	});

	it("stops after a pass that fires nothing", () => {
		const result = facade("edit", { path: "/a", edits: [{ bogus: 42 }] });
		expect(result.outcome).toBe("unrepairable");
		expect(result.rulesFired).toEqual([]);
	});

	it("stops at the change bound and never turns the rest into zeros", () => {
		const properties: Record<string, ReturnType<typeof Type.Optional<ReturnType<typeof Type.Number>>>> = {};
		const input: Record<string, null> = {};
		for (let i = 0; i < 30; i++) {
			properties[`f${i}`] = Type.Optional(Type.Number());
			input[`f${i}`] = null;
		}
		const result = custom(Type.Object(properties), input, { limits: { maxChanges: 24 } });
		expect(result.outcome).toBe("unrepairable");
		expect(result.args).toBe(input);
		expect(result.changes).toEqual([]);
		expect(custom(Type.Object(properties), input).args).toEqual({});
	});

	it("never drops a null array element nor converts it", () => {
		const input = { items: [null] };
		const result = custom(Type.Object({ items: Type.Array(Type.String()) }), input);
		expect(result.outcome).toBe("unrepairable");
		expect(result.args).toBe(input);
	});
});

describe("unrepairable results and diagnostics", () => {
	it("keeps the reference and reports a required-field fingerprint", () => {
		const input = { nothing: "useful" };
		const result = builtin("read", input);
		expect(result.outcome).toBe("unrepairable");
		expect(result.args).toBe(input);
		expect(result.changes).toEqual([]);
		expect(result.issueSummary).toBe("(root)|required|path");
		expect(result.fingerprint).toBe("c888829a");
	});

	it("names the tool and never turns null content into text", () => {
		const result = builtin("write", { path: "/a.txt", content: null });
		expect(result.outcome).toBe("unrepairable");
		const lines = result.retryMessage?.split("\n") ?? [];
		expect(lines[0]).toContain("write");
		expect(lines[0]?.endsWith(":")).toBe(true);
		expect(lines.at(-1)).toBe('Received: {"path":"/a.txt","content":null}');
		expect(JSON.stringify(result)).not.toContain('"content":"null"');
	});

	it("fingerprints the failure shape, not the values", () => {
		expect(builtin("read", { x: 1 }).fingerprint).toBe(builtin("read", { x: 2 }).fingerprint);
	});

	it("lists at most eight issues and cuts Received at 300 characters", () => {
		const properties: Record<string, ReturnType<typeof Type.Number>> = {};
		const input: Record<string, string> = {};
		for (let i = 0; i < 20; i++) {
			properties[`field${i}`] = Type.Number();
			input[`field${i}`] = "x".repeat(20);
		}
		const message = custom(Type.Object(properties), input).retryMessage ?? "";
		expect(message.split("\n").filter((line) => line.startsWith("  • "))).toHaveLength(8);
		const received = message.split("\n").at(-1) ?? "";
		expect(received.length).toBe("Received: ".length + 301);
		expect(received.endsWith("…")).toBe(true);
	});

	it("shows the post-envelope value in Received", () => {
		const result = custom(pathSchema, '{"wrong":1}');
		expect(result.retryMessage?.endsWith('Received: {"wrong":1}')).toBe(true);
	});

	it("claims no changes and returns the original input even after earlier stages changed it", () => {
		const input = '{"file_path":5,"path":null}';
		const result = builtin("edit", input);
		expect(result.outcome).toBe("unrepairable");
		expect(result.changes).toEqual([]);
		expect(result.args).toBe(input);
	});

	it("fails closed on undefined with Received: undefined", () => {
		const result = custom(pathSchema, undefined);
		expect(result.outcome).toBe("unrepairable");
		expect(result.args).toBeUndefined();
		expect(result.retryMessage?.endsWith("Received: undefined")).toBe(true);
	});
});

describe("callbacks", () => {
	it("calls onOutcome exactly once with the returned result, after the observations", () => {
		const calls: RepairPipelineResult[] = [];
		const result = custom(pathSchema, '{"path":"/x"}', { onOutcome: (outcome) => calls.push(outcome) });
		expect(calls).toHaveLength(1);
		expect(calls[0]).toBe(result);
		expect(result.outcome).toBe("repaired");

		const order: string[] = [];
		custom(
			pathSchema,
			{ path: "^/x$" },
			{
				preprocessors: [{ kind: "anchor-bleed", selector: "/path", modelFamilies: [/glm/i] }],
				modelId: "glm-4.6",
				policy: "conservative",
				onObservation: () => order.push("observation"),
				onOutcome: () => order.push("outcome"),
			},
		);
		expect(order).toEqual(["observation", "outcome"]);
	});

	it("swallows exceptions thrown by either callback without changing the verdict", () => {
		const input = { path: "^/x$" };
		const result = runRepairPipeline({
			input,
			config: {
				toolName: "custom",
				schema: pathSchema,
				preprocessors: [{ kind: "anchor-bleed", selector: "/path", modelFamilies: [/glm/i] }],
				modelId: "glm-4.6",
				policy: "conservative",
				onObservation: () => {
					throw new Error("observer");
				},
				onOutcome: () => {
					throw new Error("outcome");
				},
			},
		});
		expect(result.outcome).toBe("valid");
		expect(result.args).toBe(input);
	});
});

describe("input outside the JSON domain", () => {
	it("fails closed instead of throwing on cycles and functions", () => {
		const cyclic: Record<string, unknown> = { file_path: "/a" };
		cyclic.self = cyclic;
		const withFunction = { file_path: "/a", run: () => 1 };
		for (const input of [cyclic, withFunction, "x".repeat(3) as unknown]) {
			expect(() => builtin("read", input, { ownerPrepareArguments: (value) => value })).not.toThrow();
		}
		const result = builtin("read", cyclic);
		expect(result.outcome).toBe("unrepairable");
		expect(result.args).toBe(cyclic);
		expect(result.retryMessage).toContain("read");
	});
});

describe("a contained internal error is reported and listed in the result, never silent", () => {
	it("lists the pipeline boundary for input outside the JSON domain, and reports it once", () => {
		const withFunction = { file_path: "/a", run: () => 1 };
		const reported: string[] = [];
		const result = builtin("read", withFunction, { onContainedError: (label) => reported.push(label) });
		expect(result.outcome).toBe("unrepairable");
		expect(result.containedErrors).toEqual(reported);
		expect(reported).toContain("pipeline");
	});

	it("lists a throwing owner shim; the call is judged as it came", () => {
		const result = builtin(
			"read",
			{ file_path: "/a" },
			{
				ownerPrepareArguments: () => {
					throw new Error("owner bug");
				},
			},
		);
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "/a" });
		expect(result.containedErrors).toEqual(["owner-shim"]);
	});

	it("lists a throwing structural repair of the engine; the other repairs still run", () => {
		const schema = Type.Object({ path: Type.String(), limit: Type.Optional(Type.Number()) });
		// The alias is a row now; a null the engine drops keeps the engine, and its structural repairs, running.
		const result = custom(
			schema,
			{ file_path: "/a", limit: null },
			{
				engineConfig: {
					fieldAliases: { path: ["file_path"] },
					structural: [
						{
							name: "ownerStructural",
							apply: () => {
								throw new Error("owner bug");
							},
						},
					],
				},
			},
		);
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "/a" });
		expect(result.containedErrors).toEqual(["structural-repair"]);
	});

	it("has no list when nothing was contained", () => {
		expect(Object.hasOwn(builtin("read", { path: "/a" }), "containedErrors")).toBe(false);
		expect(Object.hasOwn(builtin("read", { file_path: "/a" }), "containedErrors")).toBe(false);
	});
});

describe("result shape", () => {
	it("reports the resolved policy name, adaptive by default", () => {
		expect(custom(pathSchema, { path: "/a" }).policy).toBe("adaptive");
		expect(custom(pathSchema, { path: "/a" }, { policy: "recover" }).policy).toBe("recover");
	});

	it("gives every repaired change a rule ID, a stage and a note, and a fresh object", () => {
		const input = { file_path: "/a", offset: null };
		const result = builtin("read", input);
		expect(result.args).not.toBe(input);
		for (const change of result.changes) {
			expect(change.ruleId).not.toBe("");
			expect(change.note).not.toBe("");
			expect(["envelope", "owner-shim", "preprocess", "schema-repair"]).toContain(change.stage);
		}
		expect(check(BUILTIN_SCHEMAS.read, result.args)).toBe(true);
	});

	it("shares no containers with the caller's input in a repaired result", () => {
		const nested = { oldText: "a", newText: "b" };
		const input = { file_path: "/a", edits: [nested] };
		const result = builtin("edit", input);
		const edits = (result.args as { edits: unknown[] }).edits;
		expect(edits).not.toBe(input.edits);
		expect(edits[0]).not.toBe(nested);
		expect(edits[0]).toEqual(nested);
	});
});
