/**
 * RepairFeedbackHub: the route of a repair's feedback from the call ID it is
 * bound to at message_end to the model-visible result, the indicator and the
 * persisted entry, and the privacy section of docs/operations.md naming exactly what
 * that entry holds.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { RepairFeedback } from "../../src/core/types.ts";
import type { ContainedErrorEvent } from "../../src/extension/host/types.ts";
import {
	feedbackFromEntry,
	LEAK_ENTRY_TYPE,
	type LeakEntryData,
	REPAIR_ENTRY_TYPE,
	type RepairEntryData,
	RepairFeedbackHub,
} from "../../src/extension/repair/feedback.ts";
import { recordingContained } from "../support/contained-recorder.ts";

const repaired = (note: string, rule = "preprocess.exact-alias"): RepairFeedback => ({
	rules: [rule],
	notes: [note],
	stages: ["preprocess"],
	profile: "adaptive",
	model: "m",
	outcome: "repaired",
	fingerprint: "abcd1234",
});
const text = (value: string) => [{ type: "text", text: value }];

function hub() {
	const entries: RepairEntryData[] = [];
	const leaks: LeakEntryData[] = [];
	const appendEntry = (type: string, data: RepairEntryData | LeakEntryData) =>
		type === LEAK_ENTRY_TYPE ? leaks.push(data as LeakEntryData) : entries.push(data as RepairEntryData);
	return { hub: new RepairFeedbackHub({ appendEntry }), entries, leaks };
}

describe("binding repairs to calls", () => {
	it("binds a repair by call ID and attaches its note at tool_result, once", () => {
		const { hub: h } = hub();
		h.bind("c1", "read", repaired("note A"));
		expect(h.onToolResult("c1", undefined, text("body"))).toEqual(text("<repair_note>note A</repair_note>\nbody"));
		expect(h.onToolResult("c1", undefined, text("body"))).toBeUndefined();
	});

	it("keeps identical repairs of two calls apart: each call gets its own note, by ID", () => {
		const { hub: h } = hub();
		h.bind("c1", "read", repaired("first"));
		h.bind("c2", "read", repaired("second"));
		expect(h.onToolResult("c2", undefined, text("b"))).toEqual(text("<repair_note>second</repair_note>\nb"));
		expect(h.onToolResult("c1", undefined, text("a"))).toEqual(text("<repair_note>first</repair_note>\na"));
		expect(h.onToolResult("c3", undefined, text("c"))).toBeUndefined();
	});

	it("leaves results of calls that were never repaired alone", () => {
		const { hub: h } = hub();
		expect(h.onToolResult("c1", undefined, text("body"))).toBeUndefined();
	});

	it("keeps the note of a call bound first and adds a later repair of the same call after it", () => {
		const { hub: h } = hub();
		h.bind("p1", "read", { ...repaired("recovered from text", "grammarRecovery:glm"), outcome: "recovered" });
		h.bind("p1", "read", repaired("alias fixed"));
		expect(h.info("p1")?.rules).toEqual(["grammarRecovery:glm", "preprocess.exact-alias"]);
		expect(h.onToolResult("p1", undefined, text("x"))).toEqual(
			text("<repair_note>recovered from text</repair_note>\n<repair_note>alias fixed</repair_note>\nx"),
		);
	});
});

describe("codemode's nested calls", () => {
	it("never changes a nested result and attaches the nested notes to the parent result", () => {
		const { hub: h } = hub();
		h.bind("cm/1", "read", repaired("nested note"));
		expect(h.onToolResult("cm/1", "cm", text("file text"))).toBeUndefined();
		expect(h.onToolResult("cm", undefined, text("Script completed"))).toEqual(
			text("<repair_note>nested note</repair_note>\nScript completed"),
		);
		expect(h.onToolResult("cm", undefined, text("Script completed"))).toBeUndefined();
	});
});

describe("indicator info and persisted entries", () => {
	it("holds exactly the fields the privacy section of docs/operations.md lists, call ID included", () => {
		const doc = readFileSync(new URL("../../docs/operations.md", import.meta.url), "utf8").replace(/\s+/g, " ");
		const sentence = /Each entry holds exactly these fields: ([^.]*)\./.exec(doc)?.[1] ?? "";
		const documented = [...sentence.matchAll(/`([A-Za-z]+)`/g)].map((match) => match[1]);
		const { hub: h, entries } = hub();
		h.bind("c1", "read", repaired("a note"));
		expect(Object.keys(entries[0] ?? {}).sort()).toEqual([...documented].sort());
		expect(doc).toContain("These do hold the tool-call ID");
	});

	it("persists value-free entries without notes and shows the call in the tally", () => {
		const { hub: h, entries } = hub();
		h.bind("c1", "read", repaired("names secret-path"));
		expect(entries).toEqual([
			{
				toolCallId: "c1",
				tool: "read",
				rules: ["preprocess.exact-alias"],
				stages: ["preprocess"],
				profile: "adaptive",
				model: "m",
				outcome: "repaired",
				fingerprint: "abcd1234",
			},
		]);
		expect(JSON.stringify(entries)).not.toContain("secret");
		expect(h.repairCount).toBe(1);
	});

	it("restores indicator info from session entries, with rules and no notes", () => {
		const { hub: h } = hub();
		h.restore([
			{
				type: "custom",
				customType: REPAIR_ENTRY_TYPE,
				data: { toolCallId: "old", rules: ["r1"], stages: ["s"], outcome: "recovered" },
			},
			{ type: "custom", customType: "someone-else", data: { toolCallId: "other", rules: ["x"] } },
			{ type: "message" },
			{ type: "custom", customType: REPAIR_ENTRY_TYPE, data: { rules: ["no id"] } },
		]);
		expect(h.info("old")).toEqual({ rules: ["r1"], notes: [], stages: ["s"], outcome: "recovered" });
		expect(h.info("other")).toBeUndefined();
		expect(h.repairCount).toBe(1);
	});

	it("reads only well-typed fields back from an entry", () => {
		expect(feedbackFromEntry({ toolCallId: "c", rules: ["a", 3], stages: "x", profile: 1, outcome: "maybe" })).toEqual({
			toolCallId: "c",
			feedback: { rules: ["a"], notes: [], stages: [] },
		});
		expect(feedbackFromEntry(null)).toBeUndefined();
	});

	it("still binds the call when the host's appendEntry throws inside the contained boundary, and reports it", () => {
		const contained: ContainedErrorEvent[] = [];
		const boundary = recordingContained(contained);
		const h = new RepairFeedbackHub({
			appendEntry: (type) =>
				boundary(`append-entry:${type}`, () => {
					throw new Error("no entries here");
				}),
		});
		h.bind("c1", "read", repaired("n"));
		expect(h.info("c1")?.notes).toEqual(["n"]);
		expect(contained).toEqual([{ label: "append-entry:tool-repair", error: "Error" }]);
	});

	it("drops repairs of calls that never ran at the end of a turn, keeping the indicator info", () => {
		const { hub: h } = hub();
		h.bind("never-ran", "read", repaired("stale"));
		h.endTurn();
		expect(h.onToolResult("never-ran", undefined, text("x"))).toBeUndefined();
		expect(h.info("never-ran")?.rules).toEqual(["preprocess.exact-alias"]);
	});

	it("forgets everything on clear (session shutdown)", () => {
		const { hub: h } = hub();
		h.bind("b", "read", repaired("m"));
		h.clear();
		expect(h.onToolResult("b", undefined, text("x"))).toBeUndefined();
		expect(h.info("b")).toBeUndefined();
		expect(h.repairCount).toBe(0);
	});
});

describe("leaked text that did not become a call", () => {
	it("counts stripped and observed leaks in the tally next to the calls, and persists only outcome, families and count", () => {
		const { hub: h, leaks } = hub();
		h.bind("c1", "read", repaired("a note"));
		h.noteLeak({ outcome: "stripped", grammars: ["dsml"], count: 2 });
		h.noteLeak({ outcome: "observed", grammars: ["harmony", "qwen"], count: 1 });
		expect(h.tally).toEqual({ repaired: 1, recovered: 0, stripped: 2, observed: 1 });
		expect(leaks).toEqual([
			{ outcome: "stripped", grammars: ["dsml"], count: 2 },
			{ outcome: "observed", grammars: ["harmony", "qwen"], count: 1 },
		]);
	});

	it("rebuilds the leak counts from a resumed session's entries, ignoring malformed ones, and clears them at shutdown", () => {
		const { hub: h } = hub();
		h.noteLeak({ outcome: "stripped", grammars: ["dsml"], count: 5 });
		const entry = (data: unknown) => ({ type: "custom", customType: LEAK_ENTRY_TYPE, data });
		h.restore([
			entry({ outcome: "stripped", grammars: ["dsml"], count: 2 }),
			entry({ outcome: "observed", grammars: ["glm"], count: 3 }),
			entry({ outcome: "promoted", grammars: ["glm"], count: 3 }),
			entry({ outcome: "stripped", grammars: ["glm"], count: -1 }),
			entry({ outcome: "stripped", grammars: ["glm"], count: "4" }),
		]);
		expect(h.tally).toMatchObject({ stripped: 2, observed: 3 });
		h.clear();
		expect(h.tally).toEqual({ repaired: 0, recovered: 0, stripped: 0, observed: 0 });
	});
});
