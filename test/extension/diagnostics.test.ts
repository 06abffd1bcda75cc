/** The value-free PI_TOOL_REPAIR_LOG lines and the environment switches that turn them (and passthrough) on. */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RepairPipelineResult } from "../../src/core/types.ts";
import { distinctInOrder, formatDiagnosticLine, logOutcome } from "../../src/extension/diagnostics.ts";
import { isSwitchOn, passthroughEnabled, repairLogEnabled } from "../../src/extension/env.ts";

const result = (over: Partial<RepairPipelineResult>): RepairPipelineResult => ({
	outcome: "repaired",
	args: {},
	policy: "adaptive",
	changes: [],
	observations: [],
	...over,
});

describe("the diagnostics line", () => {
	it("names the tool, the outcome and the distinct rule IDs in order", () => {
		const line = formatDiagnosticLine(
			"grep",
			result({
				changes: [
					{ ruleId: "preprocess.exact-alias", stage: "preprocess", note: "n" },
					{ ruleId: "dropNullOrUndefinedField", stage: "schema-repair", note: "n" },
					{ ruleId: "preprocess.exact-alias", stage: "preprocess", note: "n" },
				],
				issueSummary: "/glob|type|string",
			}),
		);
		expect(line).toBe(
			"[pi-repair] tool=grep outcome=repaired rules=preprocess.exact-alias,dropNullOrUndefinedField issues=/glob|type|string",
		);
	});

	it("reports rules=none for unrepairable calls and leaves issues out when there are none", () => {
		expect(
			formatDiagnosticLine("write", result({ outcome: "unrepairable", issueSummary: "/content|type|string" })),
		).toBe("[pi-repair] tool=write outcome=unrepairable rules=none issues=/content|type|string");
		expect(
			formatDiagnosticLine(
				"read",
				result({ changes: [{ ruleId: "preprocess.exact-alias", stage: "preprocess", note: "x" }] }),
			),
		).toBe("[pi-repair] tool=read outcome=repaired rules=preprocess.exact-alias");
	});

	it("keeps first-seen order when de-duplicating", () => {
		expect(distinctInOrder(["b", "a", "b", "c", "a"], (x) => x)).toEqual(["b", "a", "c"]);
	});
});

describe("logOutcome", () => {
	const saved = process.env.PI_TOOL_REPAIR_LOG;
	afterEach(() => {
		if (saved === undefined) delete process.env.PI_TOOL_REPAIR_LOG;
		else process.env.PI_TOOL_REPAIR_LOG = saved;
		vi.restoreAllMocks();
	});

	it("writes one stderr line only when the switch is on and the call was not valid", () => {
		const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
		delete process.env.PI_TOOL_REPAIR_LOG;
		logOutcome("read", result({}));
		process.env.PI_TOOL_REPAIR_LOG = "1";
		logOutcome("read", result({ outcome: "valid" }));
		logOutcome("read", result({}));
		expect(write).toHaveBeenCalledTimes(1);
		expect(write).toHaveBeenCalledWith("[pi-repair] tool=read outcome=repaired rules=none\n");
	});
});

describe("environment switches", () => {
	it.each([
		[undefined, false],
		["", false],
		["0", false],
		["false", false],
		["1", true],
		["true", true],
		["FALSE", true],
		["off", true],
	])("treats %j as %s (exact, case-sensitive)", (value, on) => {
		expect(isSwitchOn(value)).toBe(on);
	});

	it("reads PI_TOOL_REPAIR_LOG and PI_TOOL_REPAIR_PASSTHROUGH on every call", () => {
		const saved = { log: process.env.PI_TOOL_REPAIR_LOG, pass: process.env.PI_TOOL_REPAIR_PASSTHROUGH };
		try {
			process.env.PI_TOOL_REPAIR_LOG = "1";
			process.env.PI_TOOL_REPAIR_PASSTHROUGH = "0";
			expect([repairLogEnabled(), passthroughEnabled()]).toEqual([true, false]);
			process.env.PI_TOOL_REPAIR_LOG = "false";
			process.env.PI_TOOL_REPAIR_PASSTHROUGH = "yes";
			expect([repairLogEnabled(), passthroughEnabled()]).toEqual([false, true]);
		} finally {
			for (const [key, value] of [
				["PI_TOOL_REPAIR_LOG", saved.log],
				["PI_TOOL_REPAIR_PASSTHROUGH", saved.pass],
			] as const) {
				if (value === undefined) delete process.env[key];
				else process.env[key] = value;
			}
		}
	});
});
