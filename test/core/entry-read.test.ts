/**
 * The entry read's shortcuts, each against the input built to defeat it: a
 * property is proved a data property from its own descriptor (never from a
 * field a polluted prototype could supply), an array's hole is a hole even
 * when a prototype answers for it, and the copy made when the proof fails
 * runs every getter once, in order, under the same bounds.
 */
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { passesAsSent } from "../../src/core/pipeline.ts";
import { isPlainInput, snapshotInput } from "../../src/core/snapshot.ts";
import { builtin, builtinConfig, custom } from "../support/pipeline-helpers.ts";

const MAX_NODES = 1_000_000;
const MAX_DEPTH = 64;

/**
 * `body`'s answer with `key` defined on `target` as `descriptor`, removed again whatever happens. Assert
 * after it returns: the test runner's own code must not run against the polluted prototype.
 */
function withPolluted<T>(target: object, key: PropertyKey, descriptor: PropertyDescriptor, body: () => T): T {
	Object.defineProperty(target, key, { configurable: true, ...descriptor });
	try {
		return body();
	} finally {
		delete (target as Record<PropertyKey, unknown>)[key];
	}
}

function within(value: unknown, maxNodes = MAX_NODES, maxDepth = MAX_DEPTH): unknown {
	const snapshot = snapshotInput(value, maxNodes, maxDepth);
	if (!snapshot.within) throw new Error(`refused: ${snapshot.bound}`);
	return snapshot.value;
}

describe("a property is proved data from its own descriptor", () => {
	it("reads data properties as data when Object.prototype holds a `get` field", () => {
		let calls = 0;
		const input = { path: "/a", offset: 2 };
		const [value, outcome] = withPolluted(Object.prototype, "get", { value: () => ++calls, writable: true }, () => [
			within(input),
			builtin("read", input).outcome,
		]);
		expect(calls).toBe(0);
		expect(value).toEqual({ path: "/a", offset: 2 });
		expect(outcome).toBe("valid");
	});

	it("runs a real getter once when Object.prototype holds a `value` field", () => {
		let reads = 0;
		const input = {
			get path() {
				reads++;
				return reads === 1 ? "/safe" : "/etc/shadow";
			},
		};
		const value = withPolluted(Object.prototype, "value", { value: "/polluted", writable: true }, () => within(input));
		expect(reads).toBe(1);
		expect(value).not.toBe(input);
		expect(Object.getOwnPropertyDescriptor(value, "path")?.value).toBe("/safe");
	});

	it("hands on a setter-only property as a data property, never the caller's accessor", () => {
		const input = { path: "/a", set offset(_value: number) {} };
		const value = within(input);
		expect(value).not.toBe(input);
		expect(Object.getOwnPropertyDescriptor(value, "offset")).toEqual({
			value: undefined,
			writable: true,
			enumerable: true,
			configurable: true,
		});
	});

	it("runs a non-enumerable getter at most once and never hands it on", () => {
		let reads = 0;
		const input = {};
		Object.defineProperty(input, "path", {
			enumerable: false,
			get() {
				reads++;
				return reads === 1 ? "/safe" : "/etc/shadow";
			},
		});
		const result = builtin("read", input);
		expect(reads).toBeLessThanOrEqual(1);
		expect(result.args).not.toBe(input);
		if (result.outcome !== "unrepairable") expect((result.args as { path: unknown }).path).toBe("/safe");
	});

	it("never runs an inherited enumerable getter and keeps only own keys", () => {
		let reads = 0;
		const getter = {
			enumerable: true,
			get() {
				reads++;
				return "inherited";
			},
		};
		const value = withPolluted(Object.prototype, "polluted", getter, () => within({ path: "/a" }));
		expect(reads).toBe(0);
		expect(Object.keys(value as object)).toEqual(["path"]);
		expect(Object.hasOwn(value as object, "polluted")).toBe(false);
	});
});

describe("a hole is a hole", () => {
	it("does not judge a hole by the value a polluted Array.prototype gives it", () => {
		const schema = Type.Object({ tags: Type.Array(Type.String()) });
		const tags = ["a"];
		tags.length = 2;
		const result = withPolluted(Array.prototype, 1, { value: "b", writable: true }, () => custom(schema, { tags }));
		expect(result.outcome).toBe("unrepairable");
	});
});

describe("an array is a plain array", () => {
	it("hands on a real array in place of one whose prototype iterates other values", () => {
		const schema = Type.Object({ tags: Type.Array(Type.String()) });
		const hostile = Object.create(Array.prototype, {
			[Symbol.iterator]: { value: () => ["rm -rf /"][Symbol.iterator]() },
		}) as object;
		const tags = Object.setPrototypeOf(["a", "b"], hostile) as string[];
		const result = custom(schema, { tags });
		expect(result.outcome).toBe("valid");
		const handedOn = (result.args as { tags: string[] }).tags;
		expect(Object.getPrototypeOf(handedOn)).toBe(Array.prototype);
		expect([...handedOn]).toEqual(["a", "b"]);
	});
});

describe("the copy reads each value once, in order, under the same bounds", () => {
	it("runs an array element's getter once and hands on what it returned", () => {
		let reads = 0;
		const edits: unknown[] = [];
		Object.defineProperty(edits, 0, {
			enumerable: true,
			get() {
				reads++;
				return reads === 1 ? { oldText: "a", newText: "b" } : { oldText: "a", newText: "rm -rf" };
			},
		});
		const result = builtin("edit", { path: "/a", edits });
		expect(reads).toBe(1);
		expect(result.outcome).toBe("valid");
		expect(result.args).toEqual({ path: "/a", edits: [{ oldText: "a", newText: "b" }] });
	});

	it("runs a nested getter once", () => {
		let reads = 0;
		const edit = {
			oldText: "a",
			get newText() {
				reads++;
				return reads === 1 ? "b" : "rm -rf";
			},
		};
		const result = builtin("edit", { path: "/a", edits: [edit] });
		expect(reads).toBe(1);
		expect(result.args).toEqual({ path: "/a", edits: [{ oldText: "a", newText: "b" }] });
	});

	it("keeps the value read before a later getter changed it", () => {
		const input: Record<string, unknown> = {
			path: "/safe",
			get offset() {
				input.path = "/etc/shadow";
				return 1;
			},
		};
		expect(within(input)).toEqual({ path: "/safe", offset: 1 });
	});

	it("counts the copy's values from zero after a proof that stopped late", () => {
		const input = {
			a: 1,
			b: 2,
			get c() {
				return 3;
			},
		};
		expect(within(input, 4)).toEqual({ a: 1, b: 2, c: 3 });
		expect(snapshotInput(input, 3, MAX_DEPTH)).toEqual({ within: false, bound: "nodes" });
	});

	it("bounds what a getter returns like any other value", () => {
		let deep: unknown = "x";
		for (let level = 0; level < 100; level++) deep = { a: deep };
		const input = {
			get deep() {
				return deep;
			},
		};
		expect(snapshotInput(input, MAX_NODES, MAX_DEPTH)).toEqual({ within: false, bound: "depth" });
		expect(builtin("read", { path: "/a", ...{ nested: input } }).outcome).toBe("unrepairable");
	});

	it("contains a getter that throws", () => {
		const input = {
			path: "/a",
			get offset(): number {
				throw new Error("getter");
			},
		};
		expect(() => builtin("read", input)).not.toThrow();
		expect(builtin("read", input).outcome).toBe("unrepairable");
	});
});

describe("asking before reading: isPlainInput and passesAsSent", () => {
	it("proves plain data without running a getter, and answers false past the bounds", () => {
		let reads = 0;
		const withGetter = Object.defineProperty({}, "path", {
			enumerable: true,
			get: () => {
				reads++;
				return "a.md";
			},
		});
		expect(isPlainInput({ path: "a.md", list: [1, { a: null }] }, MAX_NODES, MAX_DEPTH)).toBe(true);
		expect(isPlainInput(withGetter, MAX_NODES, MAX_DEPTH)).toBe(false);
		expect(reads).toBe(0);
		expect(isPlainInput({ a: { b: { c: {} } } }, MAX_NODES, 2)).toBe(false);
		expect(isPlainInput({ a: [1, 2, 3] }, 3, MAX_DEPTH)).toBe(false);
	});

	it("answers false, and throws nothing, for an input whose read throws; the pipeline then reports it", () => {
		const hostile = new Proxy(
			{},
			{
				ownKeys: () => {
					throw new TypeError("trap");
				},
			},
		);
		expect(passesAsSent(hostile, builtinConfig("read"))).toBe(false);
		expect(builtin("read", hostile).outcome).toBe("unrepairable");
	});
});
