/** Repeat-failure escalation: the third identical failure of a tool also spells out the tool's expected arguments. */
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import {
	ESCALATION_THRESHOLD,
	escalateRetryMessage,
	RepeatFailureTracker,
} from "../../src/extension/repair/escalation.ts";

const schema = Type.Object({ path: Type.String(), limit: Type.Optional(Type.Number()) });

describe("repeat-failure escalation", () => {
	it("counts failures per tool and fingerprint", () => {
		const tracker = new RepeatFailureTracker();
		expect(tracker.record("read", "f1")).toBe(1);
		expect(tracker.record("read", "f1")).toBe(2);
		expect(tracker.record("read", "f2")).toBe(1);
		expect(tracker.record("ls", "f1")).toBe(1);
		expect(tracker.record("read", "f1")).toBe(3);
	});

	it("never accumulates failures without a fingerprint", () => {
		const tracker = new RepeatFailureTracker();
		for (let i = 0; i < 5; i++) expect(tracker.record("read", undefined)).toBe(1);
	});

	it("starts over after clear (a new session)", () => {
		const tracker = new RepeatFailureTracker();
		tracker.record("read", "f");
		tracker.record("read", "f");
		tracker.clear();
		expect(tracker.record("read", "f")).toBe(1);
	});

	it("leaves the retry message alone below the threshold", () => {
		expect(escalateRetryMessage("retry", "read", schema, ESCALATION_THRESHOLD - 1)).toBe("retry");
	});

	it("appends the expected shape, fields with types and required/optional, from the threshold on", () => {
		const message = escalateRetryMessage("retry", "read", schema, ESCALATION_THRESHOLD);
		expect(message.startsWith("retry\n\n")).toBe(true);
		expect(message).toContain("read");
		expect(message).toContain("- path: string (required)");
		expect(message).toContain("- limit: number (optional)");
		expect(escalateRetryMessage("retry", "read", schema, ESCALATION_THRESHOLD + 4)).toContain(
			"- path: string (required)",
		);
	});
});
