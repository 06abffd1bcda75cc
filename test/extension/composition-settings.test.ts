/**
 * The `toolAliases` and `codemodeRepair` entries of the settings file.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { aliasesFor, loadCompositionSettings, parseToolAliases } from "../../src/extension/composition-settings.ts";

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

	it.each([
		["not an object", []],
		["a bad tool name", { "a tool": { x: ["y"] } }],
		["a bad field", { todo: { "a/b/": ["y"] } }],
		["an empty alias list", { todo: { todos: [] } }],
		["a non-string alias", { todo: { todos: [1] } }],
	])("rejects %s", (_label, value) => {
		expect(parseToolAliases(value)).toBeUndefined();
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
