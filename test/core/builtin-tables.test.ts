/** The built-in tool tables themselves: lists, gates, selectors, configs. */
import { describe, expect, it } from "vitest";
import {
	ANCHOR_BLEED_MODELS,
	BUILTIN_TOOL_NAMES,
	COMMAND_ALIASES,
	CONTENT_ALIASES,
	EDITS_ALIASES,
	FIND_PATTERN_ALIASES,
	GRAMMAR_TOKEN_MODELS,
	GREP_PATTERN_ALIASES,
	LS_PATH_ALIASES,
	NEW_TEXT_ALIASES,
	OLD_TEXT_ALIASES,
	PATH_ALIASES,
	PIPELINE_PREPROCESSORS,
	REPAIR_CONFIGS,
} from "../../src/core/builtin-tables.ts";

describe("the tables", () => {
	it("cover all eight built-ins, powershell sharing bash's tables", () => {
		expect([...BUILTIN_TOOL_NAMES]).toEqual(["read", "bash", "edit", "write", "grep", "find", "ls", "powershell"]);
		for (const tool of BUILTIN_TOOL_NAMES) {
			expect(PIPELINE_PREPROCESSORS[tool].length).toBeGreaterThan(0);
			expect(REPAIR_CONFIGS[tool]).toBeDefined();
		}
		expect(PIPELINE_PREPROCESSORS.powershell).toEqual(PIPELINE_PREPROCESSORS.bash);
		expect(REPAIR_CONFIGS.powershell).toEqual(REPAIR_CONFIGS.bash);
	});

	it("hold the exact alias lists in priority order", () => {
		expect(PATH_ALIASES).toHaveLength(11);
		expect(PATH_ALIASES[0]).toBe("file_path");
		expect(OLD_TEXT_ALIASES).toHaveLength(12);
		expect(OLD_TEXT_ALIASES.at(-1)).toBe("search");
		expect(NEW_TEXT_ALIASES).toHaveLength(12);
		expect(NEW_TEXT_ALIASES.at(-1)).toBe("replace");
		expect(COMMAND_ALIASES).toHaveLength(7);
		expect(EDITS_ALIASES).toEqual(["changes", "replacements", "modifications", "operations"]);
		expect(CONTENT_ALIASES).toHaveLength(10);
		expect(GREP_PATTERN_ALIASES).toHaveLength(7);
		expect(FIND_PATTERN_ALIASES).toHaveLength(8);
		expect(FIND_PATTERN_ALIASES[0]).toBe("glob");
		expect(LS_PATH_ALIASES).toHaveLength(16);
		expect(LS_PATH_ALIASES.slice(5)).toEqual([...PATH_ALIASES]);
	});

	it("gate anchors to kimi-k2, minimax and glm, and tokens to glm", () => {
		const gated = (list: readonly RegExp[], model: string) => list.some((re) => re.test(model));
		for (const model of ["kimi-k2-instruct", "MiniMax-M2", "glm-4.6"])
			expect(gated(ANCHOR_BLEED_MODELS, model)).toBe(true);
		expect(gated(ANCHOR_BLEED_MODELS, "claude-opus-4-8")).toBe(false);
		expect(gated(GRAMMAR_TOKEN_MODELS, "glm-4.6")).toBe(true);
		expect(gated(GRAMMAR_TOKEN_MODELS, "kimi-k2-instruct")).toBe(false);
	});

	it("never configure anchor cleanup on grep's pattern, bash's command, write's content or edit texts", () => {
		const anchorSelectors = (tool: (typeof BUILTIN_TOOL_NAMES)[number]) =>
			PIPELINE_PREPROCESSORS[tool].filter((p) => p.kind === "anchor-bleed").map((p) => p.selector);
		expect(anchorSelectors("grep")).toEqual(["/path"]);
		expect(anchorSelectors("find")).toEqual(["/path", "/pattern"]);
		expect(anchorSelectors("bash")).toEqual([]);
		expect(anchorSelectors("write")).toEqual(["/path"]);
		expect(anchorSelectors("edit")).toEqual(["/path"]);
	});
});

describe("schema-engine configs", () => {
	it("configure root-string wrapping for read, bash, grep, find, ls and powershell only", () => {
		const rooted = BUILTIN_TOOL_NAMES.filter((tool) => REPAIR_CONFIGS[tool].rootString !== undefined);
		expect(rooted).toEqual(["read", "bash", "grep", "find", "ls", "powershell"]);
		expect(REPAIR_CONFIGS.grep.rootString).toEqual({ field: "pattern" });
	});

	it("clean path fields everywhere but the shells, and fold flat edits only for edit", () => {
		for (const tool of BUILTIN_TOOL_NAMES) {
			const expected = tool === "bash" || tool === "powershell" ? undefined : ["path"];
			expect(REPAIR_CONFIGS[tool].pathFields).toEqual(expected);
		}
		expect(REPAIR_CONFIGS.edit.structural?.map((repair) => repair.name)).toEqual(["foldFlatEditFields"]);
		expect(Object.keys(REPAIR_CONFIGS.edit.fieldAliases ?? {})).toEqual(["path", "edits", "oldText", "newText"]);
	});
});

describe("stage-4 preprocessors", () => {
	it("list each tool's preprocessors in the order they must run", () => {
		const shape = (tool: (typeof BUILTIN_TOOL_NAMES)[number]) =>
			PIPELINE_PREPROCESSORS[tool].map((p) => `${p.kind} ${p.selector}`);
		expect(shape("read")).toEqual(["alias /path", "filesystem-path /path", "anchor-bleed /path", "grammar-tokens "]);
		expect(shape("bash")).toEqual(["alias /command", "grammar-tokens "]);
		expect(shape("edit")).toEqual([
			"alias /path",
			"alias /edits",
			"alias /edits/*/oldText",
			"alias /edits/*/newText",
			"filesystem-path /path",
			"anchor-bleed /path",
			"grammar-tokens ",
			"grammar-tokens /edits/*",
			"structural ",
		]);
		expect(shape("find")).toEqual([
			"alias /pattern",
			"filesystem-path /path",
			"anchor-bleed /path",
			"anchor-bleed /pattern",
			"grammar-tokens ",
		]);
	});

	it("guard aliases by type and treat an empty path as missing", () => {
		const readAlias = PIPELINE_PREPROCESSORS.read[0];
		expect(readAlias).toMatchObject({ kind: "alias", accepts: "string", emptyEquivalentToMissing: true });
		expect(PIPELINE_PREPROCESSORS.edit[1]).toMatchObject({ kind: "alias", selector: "/edits", accepts: "array" });
		expect(PIPELINE_PREPROCESSORS.bash[0]).toMatchObject({ kind: "alias", accepts: "string" });
		expect(PIPELINE_PREPROCESSORS.bash[0]).not.toHaveProperty("emptyEquivalentToMissing");
	});
});
