import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { attachRepairNotes, formatRepairNotes } from "../../src/core/repair-notes.ts";

type Item = { type: string; text?: string; data?: string };

describe("formatRepairNotes", () => {
	it("wraps one note in repair_note tags", () => {
		expect(formatRepairNotes(["fixed"])).toBe("<repair_note>fixed</repair_note>");
	});

	it("puts each note on its own line", () => {
		expect(formatRepairNotes(["note A", "note B"])).toBe(
			"<repair_note>note A</repair_note>\n<repair_note>note B</repair_note>",
		);
	});

	it("gives the empty string for no notes and does not escape note text", () => {
		expect(formatRepairNotes([])).toBe("");
		expect(formatRepairNotes(["a <b> & c"])).toBe("<repair_note>a <b> & c</repair_note>");
	});
});

describe("attachRepairNotes", () => {
	const image: Item = { type: "image", data: "AAAA" };

	it("prepends the tagged notes to the first text item and keeps other items equal", () => {
		const content: Item[] = [image, { type: "text", text: "result" }];
		const attached = attachRepairNotes(content, ["fixed"]);
		expect(attached).toEqual([image, { type: "text", text: "<repair_note>fixed</repair_note>\nresult" }]);
		expect(attached[0]).not.toBe(image);
		expect(content).toEqual([image, { type: "text", text: "result" }]);
	});

	it("is idempotent", () => {
		const once = attachRepairNotes([image, { type: "text", text: "result" }], ["fixed"]);
		expect(attachRepairNotes(once, ["fixed"])).toEqual(once);
	});

	it("inserts a text item at the front when there is none", () => {
		expect(attachRepairNotes([image], ["fixed"])).toEqual([
			{ type: "text", text: "<repair_note>fixed</repair_note>" },
			image,
		]);
	});

	it("returns an equal copy for no notes", () => {
		const content: Item[] = [{ type: "text", text: "r" }];
		const attached = attachRepairNotes(content, []);
		expect(attached).toEqual(content);
		expect(attached).not.toBe(content);
		expect(attached[0]).toBe(content[0]);
	});

	it("inserts duplicate new notes both times", () => {
		expect(attachRepairNotes([{ type: "text", text: "r" }], ["x", "x"])).toEqual([
			{ type: "text", text: "<repair_note>x</repair_note>\n<repair_note>x</repair_note>\nr" },
		]);
	});

	it("skips notes already present in any text item", () => {
		const content: Item[] = [
			{ type: "text", text: "first" },
			{ type: "text", text: "<repair_note>old</repair_note>" },
		];
		expect(attachRepairNotes(content, ["old", "new"])).toEqual([
			{ type: "text", text: "<repair_note>new</repair_note>\nfirst" },
			{ type: "text", text: "<repair_note>old</repair_note>" },
		]);
		const unchanged = attachRepairNotes(content, ["old"]);
		expect(unchanged).toEqual(content);
		expect(unchanged[0]).toBe(content[0]);
	});

	it("treats a text item without text as empty", () => {
		expect(attachRepairNotes([{ type: "text" }], ["n"])).toEqual([
			{ type: "text", text: "<repair_note>n</repair_note>\n" },
		]);
	});

	it("is idempotent and never mutates its input for arbitrary content", () => {
		const item = fc.oneof(
			fc.record({ type: fc.constant("text"), text: fc.string() }),
			fc.record({ type: fc.constant("image"), data: fc.string() }),
		);
		fc.assert(
			fc.property(
				fc.array(item, { maxLength: 4 }),
				fc.array(fc.string({ minLength: 1 }), { maxLength: 3 }),
				(content, notes) => {
					const snapshot = structuredClone(content);
					const once = attachRepairNotes(content, notes);
					expect(content).toEqual(snapshot);
					expect(attachRepairNotes(once, notes)).toEqual(once);
					const text = once
						.filter((entry) => entry.type === "text")
						.map((entry) => entry.text ?? "")
						.join("\n");
					for (const note of notes) {
						expect(text).toContain(`<repair_note>${note}</repair_note>`);
					}
				},
			),
		);
	});
});
