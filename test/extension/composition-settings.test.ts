/**
 * The `toolAliases` and `codemodeRepair` entries of the settings file.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
	aliasesFor,
	loadCompositionSettings,
	parseToolAliasEntries,
	parseToolAliases,
} from "../../src/extension/files/composition-settings.ts";

let dir: string | undefined;
afterEach(() => {
	if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
	dir = undefined;
});

function file(content: unknown): string {
	dir = mkdtempSync(join(tmpdir(), "pi-repair-composition-"));
	const path = join(dir, "settings.json");
	writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
	return path;
}

describe("composition settings", () => {
	it("defaults to no aliases and codemode left alone", () => {
		const { settings, warning } = loadCompositionSettings(file({ showNotes: true }));
		expect(warning).toBeUndefined();
		expect(settings.codemodeRepair).toBe(false);
		expect(aliasesFor(settings, "todo")).toEqual([]);
		expect(aliasesFor(settings, "todo")).toBe(aliasesFor(settings, "other"));
	});

	it("turns aliases into alias rows, top-level names and selectors alike", () => {
		const { settings } = loadCompositionSettings(
			file({ codemodeRepair: true, toolAliases: { todo: { todos: ["items"], "/todos/*/text": ["title"] } } }),
		);
		expect(settings.codemodeRepair).toBe(true);
		expect(aliasesFor(settings, "todo")).toEqual([
			{ kind: "alias", selector: "/todos", aliases: ["items"] },
			{ kind: "alias", selector: "/todos/*/text", aliases: ["title"] },
		]);
	});

	it("rejects a value that is not an object as a whole", () => {
		expect(parseToolAliases([])).toBeUndefined();
		expect(parseToolAliases("todo")).toBeUndefined();
	});

	it.each([
		["a bad tool name", { "a tool": { x: ["y"] } }, "a tool"],
		["a tool entry that is not an object", { todo: ["y"] }, "todo"],
		["a bad field", { todo: { "a/b/": ["y"] } }, "todo.a/b/"],
		["an empty alias list", { todo: { todos: [] } }, "todo.todos"],
		["a non-string alias", { todo: { todos: [1] } }, "todo.todos"],
	])("drops %s alone and names it", (_label, value, name) => {
		const good = { keep: { items: ["list"] } };
		const parsed = parseToolAliasEntries({ ...good, ...value });
		expect(parseToolAliases({ ...good, ...value })).toEqual(parsed?.byTool);
		expect(parsed?.dropped).toEqual([name]);
		expect(parsed?.byTool.get("keep")).toEqual([{ kind: "alias", selector: "/items", aliases: ["list"] }]);
	});

	it("keeps a tool's good fields when one of its fields is malformed", () => {
		const parsed = parseToolAliasEntries({ todo: { todos: ["items"], "bad field": ["x"] } });
		expect(parsed?.dropped).toEqual(["todo.bad field"]);
		expect(parsed?.byTool.get("todo")).toEqual([{ kind: "alias", selector: "/todos", aliases: ["items"] }]);
	});

	it("names a dropped entry in the warning, its control characters made printable", () => {
		const { settings, warning } = loadCompositionSettings(
			file({ toolAliases: { good: { a: ["b"] }, "evil\u001b[2J": { a: ["b"] }, other: { "x\u0007": ["y"] } } }),
		);
		expect(aliasesFor(settings, "good")).toHaveLength(1);
		expect(warning).toContain("toolAliases");
		expect(warning).toContain("evil?[2J");
		expect(warning).toContain("other.x?");
		expect(warning).not.toMatch(/[\u0000-\u001f]/);
	});

	it("drops an unusable entry with one warning and keeps the rest", () => {
		const { settings, warning } = loadCompositionSettings(
			file({ codemodeRepair: "yes", toolAliases: { t: { a: ["b"] } } }),
		);
		expect(warning).toContain("codemodeRepair");
		expect(settings.codemodeRepair).toBe(false);
		expect(aliasesFor(settings, "t")).toHaveLength(1);
	});

	it("never throws on a missing or broken file", () => {
		expect(loadCompositionSettings(file("{ not json")).settings.codemodeRepair).toBe(false);
		expect(loadCompositionSettings(join(tmpdir(), "no-such-dir-xyz", "s.json")).warning).toBeUndefined();
	});
});
