/**
 * The issue summary and fingerprint that leave the process: a path segment
 * the schema does not declare (a record key, an unknown key) is cut to `*`,
 * and no text the model wrote survives in any position, however its keys are
 * spelled.
 */
import fc from "fast-check";
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { failureFingerprint } from "../../src/core/issues.ts";
import { runRepairPipeline } from "../../src/core/pipeline.ts";
import { publicIssueSummary, publicIssues } from "../../src/extension/repair/issue-privacy.ts";

const SEED = 0x5eed18;

const DEPLOY = Type.Object(
	{
		command: Type.String(),
		env: Type.Optional(Type.Record(Type.String(), Type.String())),
		steps: Type.Optional(
			Type.Array(Type.Object({ name: Type.String(), args: Type.Record(Type.String(), Type.String()) })),
		),
		target: Type.Optional(Type.Union([Type.Object({ host: Type.String() }), Type.Object({ socket: Type.String() })])),
	},
	{ additionalProperties: false },
);

function summaryOf(input: unknown): { issueSummary?: string; fingerprint?: string } {
	const result = runRepairPipeline({ input, config: { toolName: "deploy", schema: DEPLOY } });
	return { issueSummary: result.issueSummary, fingerprint: result.fingerprint };
}

describe("public issue summary", () => {
	it("cuts a record key to * and keeps the declared path up to it", () => {
		const raw = summaryOf({ command: "x", env: { "API_KEY=hunter2": { v: 1 } } });
		expect(raw.issueSummary).toContain("hunter2");
		expect(publicIssues("deploy", DEPLOY, raw).issues).toBe("/env/*|type|string");
	});

	it("cuts a key that is a path, whatever slashes it holds", () => {
		const raw = summaryOf({ command: "x", env: { "/home/me/.ssh/id_rsa": true } });
		expect(publicIssues("deploy", DEPLOY, raw).issues).toBe("/env/*|type|string");
	});

	it("names an unknown key as * beside the additionalProperties issue", () => {
		const raw = summaryOf({ command: "x", SECRET_NAME: 1 });
		expect(raw.issueSummary).toContain("SECRET_NAME");
		expect(publicIssues("deploy", DEPLOY, raw).issues).toBe("/*|boolean|; (root)|additionalProperties|");
	});

	it("keeps declared names, array indexes and union branches, and record keys deeper down are cut", () => {
		const raw = summaryOf({
			command: 1,
			steps: [
				{ name: "a", args: {} },
				{ name: 2, args: { "TOKEN=x": false } },
			],
			target: { host: 3 },
		});
		const issues = publicIssues("deploy", DEPLOY, raw).issues ?? "";
		expect(issues).toContain("/command|type|string");
		expect(issues).toContain("/steps/1/name|type|string");
		expect(issues).toContain("/steps/1/args/*|type|string");
		expect(issues).toContain("/target/host|type|string");
		expect(issues).not.toContain("TOKEN");
	});

	it("keeps the core's fingerprint when nothing was cut, and gives one fingerprint to every spelling of a cut key", () => {
		const plain = summaryOf({ command: 5 });
		expect(publicIssues("deploy", DEPLOY, plain).fingerprint).toBe(plain.fingerprint);
		const one = publicIssues("deploy", DEPLOY, summaryOf({ command: "x", env: { A: {} } }));
		const other = publicIssues("deploy", DEPLOY, summaryOf({ command: "x", env: { B_SECRET: {} } }));
		expect(one.fingerprint).toBe(other.fingerprint);
		expect(one.fingerprint).not.toBe(
			failureFingerprint("deploy", [{ keyword: "type", instancePath: "/env/B_SECRET", params: { type: "string" } }]),
		);
	});

	it("lets no text through in keyword or detail position, even from a key holding | and ;", () => {
		expect(publicIssueSummary("/env/a|SECRET|more; tail|type|string", DEPLOY)).toBe("/env/*|*|*; *|type|string");
		expect(publicIssueSummary("/env/k; /x|SECRET|y|type|string", DEPLOY)).toBe("/*|type|string");
		expect(publicIssueSummary("(root)|required|command,SECRET", DEPLOY)).toBe("(root)|required|command,*");
	});

	it("never lets any part of a planted key or value through, whatever characters it holds", () => {
		const marker = "Zq9";
		const key = fc.string({ unit: "binary", maxLength: 24 }).map((tail) => `${marker}${tail}`);
		const badValue = fc.constantFrom<unknown>({}, [], true, null, { nested: marker });
		fc.assert(
			fc.property(key, key, badValue, fc.constantFrom("record", "unknown", "nested"), (k1, k2, value, where) => {
				const input =
					where === "record"
						? { command: "x", env: { [k1]: value, [k2]: value } }
						: where === "unknown"
							? { command: "x", [k1]: value, [k2]: marker }
							: { command: "x", steps: [{ name: "n", args: { [k1]: value } }], [k2]: 1 };
				const raw = summaryOf(input);
				const shown = publicIssues("deploy", DEPLOY, raw);
				expect(shown.issues ?? "").not.toContain(marker);
				// Every token is a declared name, an index, a keyword, a type name or the cut mark.
				for (const token of (shown.issues ?? "").split(/[/|;, ]+/)) {
					expect(token).toMatch(/^(|\*|\(root\)|\d+|[A-Za-z~-]+)$/);
				}
			}),
			{ seed: SEED, numRuns: 300 },
		);
	});
});
