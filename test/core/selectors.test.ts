import { describe, expect, it } from "vitest";
import { parseSelector, resolveSelector } from "../../src/core/selectors.ts";

describe("parseSelector", () => {
	it("treats the empty selector and a lone slash as the root", () => {
		expect(parseSelector("")).toEqual([]);
		expect(parseSelector("/")).toEqual([]);
	});

	it("splits on slashes and recognises the wildcard", () => {
		expect(parseSelector("/files/*/oldText")).toEqual([
			{ kind: "key", key: "files" },
			{ kind: "each" },
			{ kind: "key", key: "oldText" },
		]);
	});

	it("decodes ~1 before ~0, as JSON Pointer does", () => {
		expect(parseSelector("/a~1b")).toEqual([{ kind: "key", key: "a/b" }]);
		expect(parseSelector("/a~0b")).toEqual([{ kind: "key", key: "a~b" }]);
		expect(parseSelector("/~01")).toEqual([{ kind: "key", key: "~1" }]);
	});

	it("keeps an empty segment in the middle as the empty key", () => {
		expect(parseSelector("/a//b")).toEqual([
			{ kind: "key", key: "a" },
			{ kind: "key", key: "" },
			{ kind: "key", key: "b" },
		]);
	});
});

describe("resolveSelector", () => {
	it("addresses the root with the empty selector, whatever the root is", () => {
		expect(resolveSelector("text", "")).toEqual([{ path: [], value: "text" }]);
		expect(resolveSelector(undefined, "/")).toEqual([{ path: [], value: undefined }]);
	});

	it("yields a location for an absent property of a record", () => {
		expect(resolveSelector({}, "/path")).toEqual([{ path: ["path"], value: undefined }]);
	});

	it("drops locations whose value is not a record", () => {
		expect(resolveSelector({ a: "x" }, "/a/b")).toEqual([]);
		expect(resolveSelector({ a: null }, "/a/b")).toEqual([]);
		expect(resolveSelector(5, "/a")).toEqual([]);
	});

	it("does not index arrays with numeric segments", () => {
		expect(resolveSelector({ files: ["a", "b"] }, "/files/0")).toEqual([]);
	});

	it("expands the wildcard over array elements only", () => {
		const root = { files: [{ oldText: "a" }, "plain", { other: 1 }] };
		expect(resolveSelector(root, "/files/*/oldText")).toEqual([
			{ path: ["files", 0, "oldText"], value: "a" },
			{ path: ["files", 2, "oldText"], value: undefined },
		]);
		expect(resolveSelector({ files: { a: 1 } }, "/files/*")).toEqual([]);
	});

	it("addresses keys that contain a slash through ~1", () => {
		expect(resolveSelector({ "a/b": 1 }, "/a~1b")).toEqual([{ path: ["a/b"], value: 1 }]);
	});
});
