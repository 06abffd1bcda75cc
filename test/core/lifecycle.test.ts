import { describe, expect, it } from "vitest";
import { RepairLifecycle } from "../../src/core/lifecycle.ts";
import type { RepairFeedback } from "../../src/core/types.ts";

function fakeClock(start = 0) {
	let time = start;
	return {
		now: () => time,
		set: (value: number) => {
			time = value;
		},
	};
}

const feedback = (rule: string, extra: Partial<RepairFeedback> = {}): RepairFeedback => ({
	rules: [rule],
	notes: [`note for ${rule}`],
	...extra,
});

describe("RepairLifecycle: correlation", () => {
	it("matches identical calls first in, first out, whatever their key order", () => {
		const lifecycle = new RepairLifecycle();
		lifecycle.enqueue("x", { b: 2, a: 1 }, feedback("one"));
		lifecycle.enqueue("x", { a: 1, b: 2 }, feedback("two"));
		expect(lifecycle.correlate("x", { a: 1, b: 2 }, "call-1")?.rules).toEqual(["one"]);
		expect(lifecycle.correlate("x", { b: 2, a: 1 }, "call-2")?.rules).toEqual(["two"]);
		expect(lifecycle.correlate("x", { a: 1, b: 2 }, "call-3")).toBeUndefined();
	});

	it("never correlates across tool names", () => {
		const lifecycle = new RepairLifecycle();
		lifecycle.enqueue("read", { path: "/a" }, feedback("r"));
		expect(lifecycle.correlate("write", { path: "/a" }, "call")).toBeUndefined();
		expect(lifecycle.pendingCount).toBe(1);
	});

	it("returns feedback with exactly its documented keys and associates it", () => {
		const lifecycle = new RepairLifecycle();
		lifecycle.enqueue("read", { path: "/a" }, { rules: ["r"], notes: ["n"], profile: "adaptive" });
		const correlated = lifecycle.correlate("read", { path: "/a" }, "call");
		expect(Object.keys(correlated!).sort()).toEqual(
			["fingerprint", "model", "notes", "outcome", "profile", "rules", "stages"].sort(),
		);
		expect(correlated).toMatchObject({ rules: ["r"], notes: ["n"], profile: "adaptive", model: undefined });
		expect(lifecycle.peek("call")).toEqual(correlated);
		expect(lifecycle.pendingCount).toBe(0);
	});

	it("copies the rule and note arrays on enqueue and associate", () => {
		const lifecycle = new RepairLifecycle();
		const queued = feedback("r");
		lifecycle.enqueue("t", {}, queued);
		queued.rules.push("later");
		expect(lifecycle.correlate("t", {}, "a")?.rules).toEqual(["r"]);
		const direct = feedback("d");
		lifecycle.associate("b", direct);
		direct.notes.push("later");
		expect(lifecycle.peek("b")?.notes).toEqual(["note for d"]);
	});
});

describe("RepairLifecycle: take, peek, clear", () => {
	it("take removes, peek does not", () => {
		const lifecycle = new RepairLifecycle();
		lifecycle.associate("id", feedback("r"));
		expect(lifecycle.peek("id")?.rules).toEqual(["r"]);
		expect(lifecycle.peek("id")?.rules).toEqual(["r"]);
		expect(lifecycle.take("id")?.rules).toEqual(["r"]);
		expect(lifecycle.take("id")).toBeUndefined();
	});

	it("clear empties both stores", () => {
		const lifecycle = new RepairLifecycle();
		lifecycle.enqueue("t", {}, feedback("p"));
		lifecycle.associate("id", feedback("a"));
		lifecycle.clear();
		expect(lifecycle.pendingCount).toBe(0);
		expect(lifecycle.peek("id")).toBeUndefined();
		expect(lifecycle.correlate("t", {}, "x")).toBeUndefined();
	});
});

describe("RepairLifecycle: expiry", () => {
	it("keeps an entry exactly ttlMs old and drops it one millisecond later", () => {
		const clock = fakeClock(0);
		const lifecycle = new RepairLifecycle({ ttlMs: 10, now: clock.now });
		lifecycle.enqueue("t", {}, feedback("p"));
		lifecycle.associate("id", feedback("a"));
		clock.set(10);
		lifecycle.cleanup();
		expect(lifecycle.pendingCount).toBe(1);
		expect(lifecycle.peek("id")).toBeDefined();
		clock.set(11);
		lifecycle.cleanup();
		expect(lifecycle.pendingCount).toBe(0);
		expect(lifecycle.peek("id")).toBeUndefined();
	});

	it("drops stale pending entries only from the front", () => {
		const clock = fakeClock(0);
		const lifecycle = new RepairLifecycle({ ttlMs: 10, now: clock.now });
		lifecycle.enqueue("t", { n: 1 }, feedback("old"));
		clock.set(5);
		lifecycle.enqueue("t", { n: 2 }, feedback("fresh"));
		clock.set(12);
		lifecycle.cleanup();
		expect(lifecycle.pendingCount).toBe(1);
		expect(lifecycle.correlate("t", { n: 2 }, "id")?.rules).toEqual(["fresh"]);
	});

	it("does not clean up when only reading pendingCount", () => {
		const clock = fakeClock(0);
		const lifecycle = new RepairLifecycle({ ttlMs: 10, now: clock.now });
		lifecycle.enqueue("t", {}, feedback("p"));
		clock.set(100);
		expect(lifecycle.pendingCount).toBe(1);
	});

	it("uses a five minute TTL by default", () => {
		const clock = fakeClock(0);
		const lifecycle = new RepairLifecycle({ now: clock.now });
		lifecycle.associate("id", feedback("a"));
		clock.set(300000);
		expect(lifecycle.peek("id")).toBeDefined();
		clock.set(300001);
		expect(lifecycle.peek("id")).toBeUndefined();
	});
});

describe("RepairLifecycle: caps", () => {
	it("drops the oldest pending entry beyond maxPending", () => {
		const lifecycle = new RepairLifecycle({ maxPending: 2 });
		lifecycle.enqueue("t", {}, feedback("1"));
		lifecycle.enqueue("t", {}, feedback("2"));
		lifecycle.enqueue("t", {}, feedback("3"));
		expect(lifecycle.pendingCount).toBe(2);
		expect(lifecycle.correlate("t", {}, "a")?.rules).toEqual(["2"]);
	});

	it("evicts the first association beyond maxAssociated", () => {
		const lifecycle = new RepairLifecycle({ maxAssociated: 2 });
		lifecycle.associate("a", feedback("1"));
		lifecycle.associate("b", feedback("2"));
		lifecycle.associate("c", feedback("3"));
		expect(lifecycle.peek("a")).toBeUndefined();
		expect(lifecycle.peek("b")).toBeDefined();
		expect(lifecycle.peek("c")).toBeDefined();
	});

	it("keeps the eviction position of an ID that is associated again", () => {
		const lifecycle = new RepairLifecycle({ maxAssociated: 2 });
		lifecycle.associate("a", feedback("1"));
		lifecycle.associate("b", feedback("2"));
		lifecycle.associate("a", feedback("1b"));
		lifecycle.associate("c", feedback("3"));
		expect(lifecycle.peek("a")).toBeUndefined();
		expect(lifecycle.peek("b")?.rules).toEqual(["2"]);
	});

	it("uses 128 pending and 256 associated by default", () => {
		const lifecycle = new RepairLifecycle();
		for (let index = 0; index < 130; index++) {
			lifecycle.enqueue("t", { index }, feedback(String(index)));
		}
		expect(lifecycle.pendingCount).toBe(128);
		for (let index = 0; index < 257; index++) {
			lifecycle.associate(`id-${index}`, feedback(String(index)));
		}
		expect(lifecycle.peek("id-0")).toBeUndefined();
		expect(lifecycle.peek("id-1")).toBeDefined();
	});
});

describe("RepairLifecycle: merge", () => {
	it("associates the feedback when nothing is associated yet", () => {
		const lifecycle = new RepairLifecycle();
		lifecycle.merge("id", feedback("r", { outcome: "repaired" }));
		expect(lifecycle.peek("id")).toMatchObject({ rules: ["r"], outcome: "repaired" });
	});

	it("keeps both notes, de-duplicates rules and stages in order, and lets the existing entry's fields win", () => {
		const lifecycle = new RepairLifecycle();
		lifecycle.associate("id", {
			rules: ["grammarRecovery:glm"],
			notes: ["recovered from text"],
			stages: ["grammar"],
			outcome: "recovered",
			model: "glm-4.6",
		});
		lifecycle.merge("id", {
			rules: ["grammarRecovery:glm", "preprocess.exact-alias"],
			notes: ["alias moved"],
			stages: ["grammar", "preprocess"],
			outcome: "repaired",
			profile: "adaptive",
			model: "other",
		});
		expect(lifecycle.peek("id")).toEqual({
			rules: ["grammarRecovery:glm", "preprocess.exact-alias"],
			notes: ["recovered from text", "alias moved"],
			stages: ["grammar", "preprocess"],
			outcome: "recovered",
			model: "glm-4.6",
			profile: "adaptive",
		});
	});

	it("does not alias the merged arrays with the caller's", () => {
		const lifecycle = new RepairLifecycle();
		lifecycle.associate("id", feedback("a"));
		const incoming = feedback("b");
		lifecycle.merge("id", incoming);
		incoming.notes.push("later");
		expect(lifecycle.peek("id")?.notes).toEqual(["note for a", "note for b"]);
	});
});
