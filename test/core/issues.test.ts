import fc from "fast-check";
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import {
	boundedJson,
	describeExpectedShape,
	failureFingerprint,
	fnv1a,
	formatRetryMessage,
	summarizeIssues,
} from "../../src/core/issues.ts";
import type { ValidationIssue } from "../../src/core/types.ts";
import { issues } from "../../src/core/validator.ts";
import { builtin, custom } from "../support/pipeline-helpers.ts";

const requiredPath: ValidationIssue = {
	keyword: "required",
	instancePath: "",
	params: { requiredProperties: ["path"] },
	message: "must have required properties path",
};

describe("summarizeIssues", () => {
	it("describes each issue as path|keyword|detail, joined by '; '", () => {
		const schema = Type.Object({ region: Type.String(), target: Type.String() });
		expect(summarizeIssues(issues(schema, { target: 3 }))).toBe("(root)|required|region; /target|type|string");
	});

	it("leaves the detail empty when the params carry neither a type nor required properties", () => {
		expect(summarizeIssues([{ keyword: "enum", instancePath: "/e", params: { allowedValues: ["a"] } }])).toBe(
			"/e|enum|",
		);
	});
});

describe("failureFingerprint", () => {
	it("matches the published FNV-1a test vector", () => {
		expect(fnv1a("read::(root)|required|path")).toBe("c888829a");
		expect(failureFingerprint("read", [requiredPath])).toBe("c888829a");
	});

	it("is independent of issue order and of the values involved", () => {
		const schema = Type.Object({ a: Type.String(), b: Type.Number() });
		const one = failureFingerprint("t", issues(schema, { a: 1, b: "x" }));
		const two = failureFingerprint("t", issues(schema, { a: 2, b: "y" }));
		expect(one).toBe(two);
		expect(failureFingerprint("t", [...issues(schema, { a: 1, b: "x" })].reverse())).toBe(one);
	});

	it("differs between tools", () => {
		expect(failureFingerprint("write", [requiredPath])).not.toBe(failureFingerprint("read", [requiredPath]));
	});

	it("is always eight lowercase hex digits", () => {
		expect(fnv1a("")).toMatch(/^[0-9a-f]{8}$/);
		expect(fnv1a("")).toBe("811c9dc5");
	});
});

describe("formatRetryMessage", () => {
	it("has a header naming the tool and ending with ':', one bullet per issue, then Received", () => {
		const schema = Type.Object({ region: Type.String(), target: Type.String() });
		const lines = formatRetryMessage("deploy", issues(schema, { target: 3 }), { target: 3 }).split("\n");
		expect(lines).toHaveLength(4);
		expect(lines[0]).toContain("deploy");
		expect(lines[0]?.endsWith(":")).toBe(true);
		expect(lines.slice(1)).toEqual([
			"  • (root): must have required properties region",
			"  • /target: must be string",
			'Received: {"target":3}',
		]);
	});

	it("names the unexpected keys the model sent next to the missing required ones", () => {
		const schema = Type.Object({ path: Type.String(), limit: Type.Optional(Type.Number()) });
		const sent = { paht: "a.txt", limit: 3 };
		const lines = formatRetryMessage("read", issues(schema, sent), sent, schema).split("\n");
		expect(lines.slice(1, 3)).toEqual([
			"  • (root): must have required properties path",
			'  • (root): unexpected key "paht", not a parameter of this tool',
		]);
	});

	it("says nothing of unexpected keys without a missing required one, or without the schema", () => {
		const schema = Type.Object({ path: Type.String() });
		const typed = { path: 3, extra: 1 };
		expect(formatRetryMessage("read", issues(schema, typed), typed, schema)).not.toContain("unexpected");
		const sent = { paht: "a" };
		expect(formatRetryMessage("read", issues(schema, sent), sent)).not.toContain("unexpected");
	});

	it("falls back to the keyword when an issue has no message", () => {
		const message = formatRetryMessage("t", [{ keyword: "custom", instancePath: "/x", params: {} }], {});
		expect(message.split("\n")[1]).toBe("  • /x: custom");
	});

	it("lists at most eight issues", () => {
		const many: ValidationIssue[] = Array.from({ length: 12 }, (_, i) => ({
			keyword: "type",
			instancePath: `/f${i}`,
			params: { type: "number" },
			message: "must be number",
		}));
		const lines = formatRetryMessage("t", many, {}).split("\n");
		expect(lines.filter((line) => line.startsWith("  • "))).toHaveLength(8);
	});

	it("cuts Received at 300 code units and appends an ellipsis", () => {
		const received = "x".repeat(400);
		const last = formatRetryMessage("t", [requiredPath], received).split("\n").at(-1) ?? "";
		expect(last).toBe(`Received: "${"x".repeat(299)}…`);
	});

	it("prints undefined and unserializable values with String()", () => {
		expect(formatRetryMessage("t", [requiredPath], undefined).endsWith("Received: undefined")).toBe(true);
		expect(formatRetryMessage("t", [requiredPath], 10n).endsWith("Received: 10")).toBe(true);
	});
});

describe("describeExpectedShape", () => {
	it("lists each field with its type and whether it is required", () => {
		const schema = Type.Object({
			path: Type.String(),
			edits: Type.Array(Type.Object({ oldText: Type.String(), newText: Type.String() })),
			limit: Type.Optional(Type.Number()),
		});
		expect(describeExpectedShape(schema).split("\n")).toEqual([
			"- path: string (required)",
			"- edits: array of {oldText: string, newText: string} (required)",
			"- limit: number (optional)",
		]);
	});

	it("renders unions, enums, booleans and nested optional fields", () => {
		const schema = Type.Object({
			mode: Type.Union([Type.Literal("fast"), Type.Literal("slow")]),
			level: Type.Optional(Type.Union([Type.String(), Type.Number()])),
			opts: Type.Optional(Type.Object({ deep: Type.Optional(Type.Boolean()) })),
		});
		expect(describeExpectedShape(schema).split("\n")).toEqual([
			'- mode: "fast" | "slow" (required)',
			"- level: string | number (optional)",
			"- opts: {deep?: boolean} (optional)",
		]);
	});

	it("handles plain JSON Schema, including type lists and enum", () => {
		const plain = {
			type: "object",
			properties: {
				path: { type: ["string", "null"] },
				kind: { enum: ["a", "b"] },
				tags: { type: "array", items: { type: "string" } },
			},
			required: ["path"],
		};
		expect(describeExpectedShape(plain as never).split("\n")).toEqual([
			"- path: string | null (required)",
			'- kind: "a" | "b" (optional)',
			"- tags: array of string (optional)",
		]);
	});

	it("describes a non-object root schema as a whole", () => {
		expect(describeExpectedShape(Type.Array(Type.String()))).toBe("- (arguments): array of string");
	});
});

describe("boundedJson", () => {
	it("agrees with JSON.stringify on the first characters of any JSON value", () => {
		fc.assert(
			fc.property(fc.jsonValue(), fc.integer({ min: 1, max: 400 }), (value, budget) => {
				const full = JSON.stringify(value);
				const bounded = boundedJson(value, budget);
				expect(bounded?.slice(0, budget)).toBe(full.slice(0, budget));
				if (full.length <= budget) expect(bounded).toBe(full);
			}),
			{ numRuns: 500 },
		);
	});

	it("handles lone and split surrogate pairs like JSON.stringify", () => {
		for (const text of ["a😀b", "😀😀😀", "\ud800x", "x\udc00"]) {
			for (let budget = 1; budget < 10; budget++) {
				expect(boundedJson(text, budget)?.slice(0, budget)).toBe(JSON.stringify(text).slice(0, budget));
			}
		}
	});

	it("skips undefined properties, nulls undefined array items, and defers to JSON.stringify for toJSON and BigInt", () => {
		expect(boundedJson({ a: undefined, b: [undefined, 1] }, 100)).toBe('{"b":[null,1]}');
		expect(boundedJson({ d: new Date(0) }, 100)).toBe(JSON.stringify({ d: new Date(0) }));
		expect(boundedJson(undefined, 10)).toBeUndefined();
		expect(boundedJson(10n, 10)).toBeUndefined();
	});
});

describe("a refused conversion is named in a sentence the model can act on", () => {
	const bullet = (tool: Parameters<typeof builtin>[0], input: unknown) =>
		builtin(tool, input).retryMessage?.split("\n")[1] ?? "";

	it("says a boolean is not turned into text, for content, command, path and edit texts", () => {
		expect(bullet("write", { path: "/a", content: true })).toBe(
			"  • /content: `content` must be a string; the layer does not turn the boolean true into text — send the text you meant",
		);
		expect(bullet("bash", { command: false })).toContain(
			"`command` must be a string; the layer does not turn the boolean false into text",
		);
		expect(bullet("read", { path: true })).toContain("`path` must be a string; the layer does not turn the boolean");
		expect(bullet("edit", { path: "/a", edits: [{ oldText: true, newText: "x" }] })).toContain(
			"/edits/0/oldText: `oldText` must be a string; the layer does not turn the boolean true into text",
		);
	});

	it("says text that is not plain decimal is not read as a number", () => {
		for (const text of ["0x10", "1e3", " 5 "]) {
			expect(bullet("read", { path: "/a", limit: text })).toBe(
				`  • /limit: \`limit\` must be a number; the layer reads only plain decimal text such as "16" as a number, not ${JSON.stringify(text)} — send the number you meant`,
			);
		}
	});

	it("never blames decimal text the layer would convert, when another field sank the call", () => {
		const message = builtin("read", { path: true, limit: "7", offset: "2.5" }).retryMessage ?? "";
		expect(message).toContain("  • /limit: must be number");
		expect(message).toContain("  • /offset: must be number");
		expect(message).not.toContain("plain decimal text");
	});

	it("says a fraction is not rounded into an integer", () => {
		const schema = Type.Object({ count: Type.Integer() });
		const message = custom(schema, { count: "2.5" }).retryMessage?.split("\n")[1];
		expect(message).toBe(
			'  • /count: `count` must be an integer; the layer does not round "2.5" — send the whole number you meant',
		);
	});

	it("says a null is not a value for a required parameter", () => {
		expect(bullet("write", { path: "/a", content: null })).toBe(
			"  • /content: `content` must be a string, not null; the layer does not guess what a null stands for — send the text you meant",
		);
		expect(bullet("read", { path: null })).toContain("`path` must be a string, not null;");
	});

	it("keeps the validator's words for every other type issue", () => {
		expect(bullet("grep", { pattern: "x", ignoreCase: "yes" })).toBe("  • /ignoreCase: must be boolean");
	});

	it("keeps issue summaries and fingerprints value-free", () => {
		const result = builtin("write", { path: "/a", content: true });
		expect(result.issueSummary).toBe("/content|type|string");
		expect(result.fingerprint).toBe(builtin("write", { path: "/b", content: false }).fingerprint);
	});
});
