import { describe, expect, it } from "vitest";
import { pointerSegments } from "../../../src/core/json-pointer.ts";
import { collectIssueSites } from "../../../src/core/schema-repair/issue-sites.ts";

describe("pointerSegments", () => {
	it("treats '' and '/' as the root and decodes ~1 before ~0", () => {
		expect(pointerSegments("")).toEqual([]);
		expect(pointerSegments("/")).toEqual([]);
		expect(pointerSegments("/a~1b/c~0d/~01")).toEqual(["a/b", "c~d", "~1"]);
	});
});

describe("collectIssueSites", () => {
	it("makes one site per missing property of a required issue", () => {
		const root = { edits: [{ x: 1 }] };
		const sites = collectIssueSites(root, [
			{ keyword: "required", instancePath: "/edits/0", params: { requiredProperties: ["oldText", "newText"] } },
		]);
		expect(sites.map((s) => s.key)).toEqual(["oldText", "newText"]);
		expect(sites[0]?.parent).toBe(root.edits[0]);
		expect(sites[0]?.expectedType).toBeUndefined();
	});

	it("uses the parent container and the last segment for other issues, digits as indices", () => {
		const root = { items: ["a", 5] };
		const [site] = collectIssueSites(root, [{ keyword: "type", instancePath: "/items/1", params: { type: "string" } }]);
		expect(site?.parent).toBe(root.items);
		expect(site?.key).toBe(1);
		expect(site?.expectedType).toBe("string");
	});

	it("skips root-level issues and keeps the first issue per path", () => {
		const root = { u: 3 };
		const sites = collectIssueSites(root, [
			{ keyword: "type", instancePath: "", params: { type: "object" } },
			{ keyword: "type", instancePath: "/u", params: { type: "string" } },
			{ keyword: "type", instancePath: "/u", params: { type: "array" } },
		]);
		expect(sites).toHaveLength(1);
		expect(sites[0]?.expectedType).toBe("string");
	});

	it("ignores issues whose parent cannot be resolved", () => {
		expect(collectIssueSites({}, [{ keyword: "type", instancePath: "/a/b", params: { type: "string" } }])).toEqual([]);
		expect(
			collectIssueSites({ a: "x" }, [
				{ keyword: "required", instancePath: "/a", params: { requiredProperties: ["b"] } },
			]),
		).toEqual([]);
	});
});
