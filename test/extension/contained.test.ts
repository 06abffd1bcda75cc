/** The one error boundary: a contained error is reported as a diagnostics line and a value-free counter. */
import { Type } from "typebox";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runRepairPipeline } from "../../src/core/pipeline.ts";
import type { ContainedErrorLabel, RepairPipelineConfig } from "../../src/core/types.ts";
import { containedErrorRecord } from "../../src/extension/files/telemetry.ts";
import { createContained, errorKind, reportContainedError } from "../../src/extension/host/contained.ts";
import type { ContainedErrorEvent } from "../../src/extension/host/types.ts";
import { containedErrorRecorder } from "../support/contained-recorder.ts";

const recorder = containedErrorRecorder;

const SECRET = "rm -rf /home/someone/secret-project";

describe("contained", () => {
	const saved = process.env.PI_TOOL_REPAIR_LOG;
	afterEach(() => {
		if (saved === undefined) delete process.env.PI_TOOL_REPAIR_LOG;
		else process.env.PI_TOOL_REPAIR_LOG = saved;
		vi.restoreAllMocks();
	});

	it("returns the body's value when it does not throw, and reports nothing", () => {
		const events: ContainedErrorEvent[] = [];
		const contained = createContained(() => recorder(events));
		expect(contained("tool-call", () => 42)).toBe(42);
		expect(events).toEqual([]);
	});

	it("answers undefined on a throw and reports the label and the error's class, never its message", () => {
		const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
		process.env.PI_TOOL_REPAIR_LOG = "1";
		const events: ContainedErrorEvent[] = [];
		const contained = createContained(() => recorder(events));
		expect(
			contained("message-end", () => {
				throw new TypeError(SECRET);
			}),
		).toBeUndefined();
		expect(events).toEqual([{ label: "message-end", error: "TypeError" }]);
		expect(write).toHaveBeenCalledWith("[pi-repair] contained=message-end error=TypeError\n");
		expect(JSON.stringify(write.mock.calls)).not.toContain("secret");
	});

	it("writes no line with the switch off, yet still counts", () => {
		const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
		delete process.env.PI_TOOL_REPAIR_LOG;
		const events: ContainedErrorEvent[] = [];
		reportContainedError("turn-end", new Error("x"), recorder(events));
		expect(write).not.toHaveBeenCalled();
		expect(events).toEqual([{ label: "turn-end", error: "Error" }]);
	});

	it("survives a telemetry recorder that throws", () => {
		const broken = recorder([]);
		broken.containedError = () => {
			throw new Error("disk full");
		};
		expect(() => reportContainedError("tool-result", new Error("x"), broken)).not.toThrow();
	});

	it("names an error only by a plain class name", () => {
		const odd = new Error("x");
		odd.name = SECRET;
		expect(errorKind(odd)).toBe("Error");
		expect(errorKind(new RangeError("x"))).toBe("RangeError");
		expect(errorKind("a thrown string")).toBe("string");
		expect(errorKind(null)).toBe("null");
	});

	it("names a system error by its code, which carries no path", () => {
		const io = Object.assign(new Error(`EACCES: permission denied, open '${SECRET}'`), { code: "EACCES" });
		expect(errorKind(io)).toBe("EACCES");
		expect(errorKind(Object.assign(new Error("x"), { code: SECRET }))).toBe("Error");
	});

	it("writes a telemetry record with the boundary and the class name only", () => {
		expect(containedErrorRecord("2026-01-01T00:00:00.000Z", { label: "prepare:edit", error: "TypeError" })).toEqual({
			ts: "2026-01-01T00:00:00.000Z",
			kind: "contained",
			outcome: "contained",
			rules: ["contained-error"],
			stages: ["containment"],
			boundary: "prepare:edit",
			error: "TypeError",
		});
	});
});

describe("the pipeline's boundaries report what they contain", () => {
	const schema = Type.Object({ path: Type.String() });
	function run(input: unknown, extra: Partial<RepairPipelineConfig>) {
		const reported: ContainedErrorLabel[] = [];
		const result = runRepairPipeline({
			input,
			config: { toolName: "t", schema, onContainedError: (label) => void reported.push(label), ...extra },
		});
		return { result, reported };
	}

	it("a throwing owner shim: the call goes on without it", () => {
		const { result, reported } = run(
			{ path: "/a" },
			{
				ownerPrepareArguments: () => {
					throw new Error(SECRET);
				},
			},
		);
		expect(result.outcome).toBe("valid");
		expect(reported).toEqual(["owner-shim"]);
	});

	it("a throwing observer: the verdict stands", () => {
		const { result, reported } = run(
			{ path: "/a" },
			{
				onOutcome: () => {
					throw new Error("observer");
				},
			},
		);
		expect(result.outcome).toBe("valid");
		expect(reported).toEqual(["observer"]);
	});

	it("an owner predicate that throws fails the call closed", () => {
		const { result, reported } = run(
			{ path: "/a" },
			{
				ownerPrepareArguments: (value) => value,
				ownerPrepareApplies: () => {
					throw new Error("predicate");
				},
			},
		);
		expect(result.outcome).toBe("unrepairable");
		expect(reported).toContain("pipeline");
	});

	it("reports nothing for a call that needs no containment", () => {
		expect(run({ path: "/a" }, {}).reported).toEqual([]);
		expect(run({ file: 1 }, {}).reported).toEqual([]);
	});
});
