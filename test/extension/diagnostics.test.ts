/** The value-free PI_TOOL_REPAIR_LOG lines and the environment switches that turn them (and passthrough) on. */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
	distinctInOrder,
	formatDiagnosticLine,
	logContainedError,
	logLeakText,
	logOutcome,
} from "../../src/extension/host/diagnostics.ts";
import { isSwitchOn, passthroughEnabled, repairLogEnabled } from "../../src/extension/host/env.ts";
import type { ToolOutcomeEvent } from "../../src/extension/host/types.ts";

const event = (over: Partial<ToolOutcomeEvent>): ToolOutcomeEvent => ({
	tool: "read",
	model: "m",
	outcome: "repaired",
	rules: [],
	profile: "adaptive",
	stages: [],
	...over,
});

describe("the diagnostics line", () => {
	it("names the tool, the outcome, the rule IDs and the issue summary of the outcome's event", () => {
		const line = formatDiagnosticLine(
			event({
				tool: "grep",
				rules: ["preprocess.exact-alias", "dropNullOrUndefinedField"],
				issues: "/glob|type|string",
			}),
		);
		expect(line).toBe(
			"[pi-repair] tool=grep outcome=repaired rules=preprocess.exact-alias,dropNullOrUndefinedField issues=/glob|type|string",
		);
	});

	it("reports rules=none for unrepairable calls and leaves issues out when there are none", () => {
		expect(
			formatDiagnosticLine(event({ tool: "write", outcome: "unrepairable", issues: "/content|type|string" })),
		).toBe("[pi-repair] tool=write outcome=unrepairable rules=none issues=/content|type|string");
		expect(formatDiagnosticLine(event({ rules: ["preprocess.exact-alias"] }))).toBe(
			"[pi-repair] tool=read outcome=repaired rules=preprocess.exact-alias",
		);
	});

	it("keeps first-seen order when de-duplicating", () => {
		expect(distinctInOrder(["b", "a", "b", "c", "a"], (x) => x)).toEqual(["b", "a", "c"]);
	});
});

describe("writing the lines", () => {
	const saved = process.env.PI_TOOL_REPAIR_LOG;
	afterEach(() => {
		if (saved === undefined) delete process.env.PI_TOOL_REPAIR_LOG;
		else process.env.PI_TOOL_REPAIR_LOG = saved;
		vi.restoreAllMocks();
	});

	it("writes one stderr line only when the switch is on", () => {
		const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
		delete process.env.PI_TOOL_REPAIR_LOG;
		logOutcome(event({}));
		process.env.PI_TOOL_REPAIR_LOG = "1";
		logOutcome(event({}));
		expect(write).toHaveBeenCalledTimes(1);
		expect(write).toHaveBeenCalledWith("[pi-repair] tool=read outcome=repaired rules=none\n");
	});

	it("never writes a control character or escape sequence, whatever a field holds", () => {
		const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
		process.env.PI_TOOL_REPAIR_LOG = "1";
		logOutcome(event({ tool: "x\u001b[2J\u009b31m", issues: "/a\r\n[pi-repair] forged|type|string\u2028\u202e" }));
		logContainedError("label:\u0007\u0000", "Error\n");
		logLeakText({ outcome: "stripped", grammars: ["\u001b]0;title\u0007"], mode: "strip", count: 1 });
		expect(write.mock.calls.map(([line]) => line)).toEqual([
			"[pi-repair] tool=x?[2J?31m outcome=repaired rules=none issues=/a??[pi-repair] forged|type|string??\n",
			"[pi-repair] contained=label:?? error=Error?\n",
			"[pi-repair] leak=stripped grammars=?]0;title? mode=strip count=1\n",
		]);
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
