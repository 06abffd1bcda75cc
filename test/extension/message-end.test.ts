/**
 * The message_end pass as a table: the order of the layer's stages is data
 * (pinned here, in one place), each stage sees what the one before it left,
 * a disabled stage is skipped, and a failing stage is reported and changes
 * nothing while the rows after it still run.
 */
import { describe, expect, it } from "vitest";
import type { ContainedErrorEvent } from "../../src/extension/host/types.ts";
import {
	anyStageFor,
	type LayerStageDeps,
	layerStages,
	type MessageEndStage,
	noStageWhenSettled,
	type PassMessage,
	runMessageEndStages,
} from "../../src/extension/repair/message-end.ts";
import { recordingContained } from "../support/contained-recorder.ts";

/**
 * Stage deps that record which stage ran, on which message, and mark the
 * message they return; `mayStopSilently` answers for the silent-stop check.
 */
function recordingDeps(repairToolNames: boolean, mayStopSilently: (message: PassMessage) => boolean = () => true) {
	const ran: string[] = [];
	const mark = (label: string) => (message: PassMessage) => {
		ran.push(label);
		return { ...message, content: [...(message.content as string[]), label] };
	};
	let silent: { original: PassMessage; final: PassMessage } | undefined;
	const deps: LayerStageDeps = {
		repairToolNames: () => repairToolNames,
		listTools: mark("tool-result-tools"),
		renameTools: mark("tool-names"),
		grammarLeaks: mark("grammar"),
		judgeCalls: mark("tool-calls"),
		mayStopSilently,
		noteSilentStop: (original, final) => {
			ran.push("silent-stops");
			silent = { original, final };
		},
	};
	return { deps, ran, silent: () => silent };
}

describe("the layer's message_end stages", () => {
	it("run in this order: names, grammar leaks, every call judged once, then the silent-stop check", () => {
		const { deps } = recordingDeps(true);
		expect(layerStages(deps).map((stage) => stage.label)).toEqual([
			"tool-result-tools",
			"tool-names",
			"grammar",
			"tool-calls",
			"silent-stops",
		]);
	});

	it("hand each stage the message the one before it left, and the silent-stop check the original and the final", () => {
		const { deps, ran, silent } = recordingDeps(true);
		const message = { role: "assistant", content: [] };
		const final = runMessageEndStages(layerStages(deps), message, recordingContained([]));
		expect(ran).toEqual(["tool-names", "grammar", "tool-calls", "silent-stops"]);
		expect(final?.content).toEqual(["tool-names", "grammar", "tool-calls"]);
		expect(silent()?.original).toBe(message);
		expect(silent()?.final).toBe(final);
	});

	it("skip the name stages when tool-name repair is off, and run only the result stage on an error tool result", () => {
		const off = recordingDeps(false);
		runMessageEndStages(layerStages(off.deps), { role: "assistant", content: [] }, recordingContained([]));
		expect(off.ran).toEqual(["grammar", "tool-calls", "silent-stops"]);
		const on = recordingDeps(true);
		runMessageEndStages(
			layerStages(on.deps),
			{ role: "toolResult", isError: true, content: [] },
			recordingContained([]),
		);
		expect(on.ran).toEqual(["tool-result-tools"]);
	});

	it("skip names, grammar leaks and calls for a settled message; the silent-stop check still runs", () => {
		expect(
			layerStages(recordingDeps(true).deps).map((stage) => [
				stage.label,
				typeof stage.idleWhenSettled === "function" ? "when it has nothing to do" : stage.idleWhenSettled === true,
			]),
		).toEqual([
			["tool-result-tools", false],
			["tool-names", true],
			["grammar", true],
			["tool-calls", true],
			["silent-stops", "when it has nothing to do"],
		]);
		const { deps, ran, silent } = recordingDeps(true);
		const message = { role: "assistant", content: [] };
		let asked = 0;
		const final = runMessageEndStages(layerStages(deps), message, recordingContained([]), (seen) => {
			asked++;
			expect(seen).toBe(message);
			return true;
		});
		expect(final).toBeUndefined();
		expect(asked).toBe(1);
		expect(ran).toEqual(["silent-stops"]);
		expect(silent()).toEqual({ original: message, final: message });
	});

	it("skip the silent-stop check too for a settled reply it has nothing to do for, and ask it about the message", () => {
		const asked: PassMessage[] = [];
		const { deps, ran } = recordingDeps(true, (message) => {
			asked.push(message);
			return false;
		});
		const message = { role: "assistant", content: [] };
		expect(runMessageEndStages(layerStages(deps), message, recordingContained([]), () => true)).toBeUndefined();
		expect(ran).toEqual([]);
		expect(asked).toEqual([message]);
		// Not settled: every stage runs, and the check is asked nothing before it runs.
		asked.length = 0;
		runMessageEndStages(layerStages(deps), message, recordingContained([]), () => false);
		expect(ran).toEqual(["tool-names", "grammar", "tool-calls", "silent-stops"]);
		expect(asked).toEqual([]);
	});

	it("run the silent-stop check for a settled reply when asking whether it has work throws (reported)", () => {
		const reported: ContainedErrorEvent[] = [];
		const { deps, ran } = recordingDeps(true, () => {
			throw new RangeError("no");
		});
		runMessageEndStages(
			layerStages(deps),
			{ role: "assistant", content: [] },
			recordingContained(reported),
			() => true,
		);
		expect(ran).toEqual(["silent-stops"]);
		expect(reported).toEqual([{ label: "message-end:silent-stops", error: "RangeError" }]);
	});

	it("say when a settled message runs no stage at all, so the handler skips the pass", () => {
		const quiet = recordingDeps(true, () => false);
		const busy = recordingDeps(true, () => true);
		const reply = { role: "assistant", content: [] };
		expect(noStageWhenSettled(layerStages(quiet.deps), reply)).toBe(true);
		expect(noStageWhenSettled(layerStages(busy.deps), reply)).toBe(false);
		// A stage that is not idle for a settled message keeps the pass, whatever the others say.
		const extra: MessageEndStage = { label: "extra", role: "assistant", enabled: () => true, run: () => undefined };
		expect(noStageWhenSettled([...layerStages(quiet.deps), extra], reply)).toBe(false);
		expect(noStageWhenSettled([...layerStages(quiet.deps), { ...extra, enabled: () => false }], reply)).toBe(true);
		// Other roles: only their own stages count (an error result has the tool-list stage).
		expect(noStageWhenSettled(layerStages(quiet.deps), { role: "toolResult", isError: true, content: [] })).toBe(false);
		expect(noStageWhenSettled(layerStages(quiet.deps), { role: "toolResult", content: [] })).toBe(true);
		expect(quiet.ran).toEqual([]);
	});

	it("run every stage when the message is not settled, or when asking throws (reported)", () => {
		const unsettled = recordingDeps(true);
		runMessageEndStages(
			layerStages(unsettled.deps),
			{ role: "assistant", content: [] },
			recordingContained([]),
			() => false,
		);
		expect(unsettled.ran).toEqual(["tool-names", "grammar", "tool-calls", "silent-stops"]);
		const reported: ContainedErrorEvent[] = [];
		const throwing = recordingDeps(true);
		runMessageEndStages(
			layerStages(throwing.deps),
			{ role: "assistant", content: [] },
			recordingContained(reported),
			() => {
				throw new RangeError("no");
			},
		);
		expect(throwing.ran).toEqual(["tool-names", "grammar", "tool-calls", "silent-stops"]);
		expect(reported).toEqual([{ label: "message-end:settled", error: "RangeError" }]);
	});

	it("never ask whether a tool result is settled: no idle stage is due for one", () => {
		const { deps } = recordingDeps(true);
		let asked = 0;
		runMessageEndStages(
			layerStages(deps),
			{ role: "toolResult", isError: true, content: [] },
			recordingContained([]),
			() => {
				asked++;
				return true;
			},
		);
		expect(asked).toBe(0);
	});

	it("run no stage on a tool result that is not an error: only pi's unknown-tool refusal gets the tool list", () => {
		const on = recordingDeps(true);
		runMessageEndStages(layerStages(on.deps), { role: "toolResult", content: [] }, recordingContained([]));
		runMessageEndStages(
			layerStages(on.deps),
			{ role: "toolResult", isError: false, content: [] },
			recordingContained([]),
		);
		expect(on.ran).toEqual([]);
	});

	it("say which messages have a stage at all, so the handler skips the pass for the rest", () => {
		const stages = (names: boolean) => layerStages(recordingDeps(names).deps);
		expect(anyStageFor(stages(true), { role: "assistant", content: [] })).toBe(true);
		expect(anyStageFor(stages(false), { role: "assistant", content: [] })).toBe(true);
		expect(anyStageFor(stages(true), { role: "toolResult", isError: true, content: [] })).toBe(true);
		expect(anyStageFor(stages(false), { role: "toolResult", isError: true, content: [] })).toBe(false);
		expect(anyStageFor(stages(true), { role: "toolResult", isError: false, content: [] })).toBe(false);
		for (const role of ["user", "system", "custom", undefined]) expect(anyStageFor(stages(true), { role })).toBe(false);
	});
});

describe("running a table of stages", () => {
	it("runs a stage only for messages of its role, without asking it about others", () => {
		const asked: unknown[] = [];
		const stage: MessageEndStage = {
			label: "results",
			role: "toolResult",
			enabled: (message) => {
				asked.push(message.role);
				return true;
			},
			run: (message) => ({ ...message, content: ["ran"] }),
		};
		expect(runMessageEndStages([stage], { role: "assistant" }, recordingContained([]))).toBeUndefined();
		expect(anyStageFor([stage], { role: "user" })).toBe(false);
		expect(asked).toEqual([]);
		expect(runMessageEndStages([stage], { role: "toolResult" }, recordingContained([]))?.content).toEqual(["ran"]);
		expect(asked).toEqual(["toolResult"]);
	});

	it("returns undefined when no stage changed the message", () => {
		const stage: MessageEndStage = { label: "noop", role: "assistant", enabled: () => true, run: () => undefined };
		expect(runMessageEndStages([stage], { role: "assistant" }, recordingContained([]))).toBeUndefined();
	});

	it("reports a failing stage, keeps the message as it was before it, and still runs the next one", () => {
		const reported: ContainedErrorEvent[] = [];
		const seen: PassMessage[] = [];
		const first: MessageEndStage = {
			label: "first",
			role: "assistant",
			enabled: () => true,
			run: (message) => ({ ...message, content: ["first"] }),
		};
		const failing: MessageEndStage = {
			label: "failing",
			role: "assistant",
			enabled: () => true,
			run: () => {
				throw new TypeError("boom");
			},
		};
		const last: MessageEndStage = {
			label: "last",
			role: "assistant",
			enabled: () => true,
			run: (message) => {
				seen.push(message);
				return undefined;
			},
		};
		const final = runMessageEndStages([first, failing, last], { role: "assistant" }, recordingContained(reported));
		expect(final?.content).toEqual(["first"]);
		expect(seen).toEqual([final]);
		expect(reported).toEqual([{ label: "message-end:failing", error: "TypeError" }]);
	});
});
