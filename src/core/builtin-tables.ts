/**
 * The repair tables of pi's eight built-in tools: alias lists, model-family
 * gates, the stage-4 preprocessors, the schema-engine configs and the
 * applicability predicates of pi's own argument shims. `powershell` shares
 * bash's tables. Data only; the behaviour lives in the preprocessing stage
 * and the schema-repair engine.
 */
import {
	canFoldFlatEditFields,
	foldFlatEditFieldsPreprocessor,
	foldFlatEditFieldsRepair,
	NEW_TEXT_ALIASES,
	OLD_TEXT_ALIASES,
} from "./edit-fold.ts";
import { isRecord } from "./json-value.ts";
import { RULE } from "./rule-ids.ts";
import type { Preprocessor, StructuralPreprocessor, ToolRepairConfig } from "./types.ts";

export { NEW_TEXT_ALIASES, OLD_TEXT_ALIASES };

export const BUILTIN_TOOL_NAMES = ["read", "bash", "edit", "write", "grep", "find", "ls", "powershell"] as const;
export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

/** Models known to leak regex anchors (`^…$`) into path-like values. */
export const ANCHOR_BLEED_MODELS: readonly RegExp[] = [/kimi-k2/i, /minimax/i, /glm/i];
/** Models known to leak `<arg_key>`/`<arg_value>` grammar tokens into arguments. */
export const GRAMMAR_TOKEN_MODELS: readonly RegExp[] = [/glm/i];

export const PATH_ALIASES = [
	"file_path",
	"filePath",
	"filepath",
	"absolute_path",
	"absolutePath",
	"pathname",
	"file",
	"filename",
	"fileName",
	"target_file",
	"targetFile",
] as const;

export const COMMAND_ALIASES = [
	"cmd",
	"script",
	"shell",
	"bash_command",
	"bashCommand",
	"command_line",
	"commandLine",
] as const;

export const EDITS_ALIASES = ["changes", "replacements", "modifications", "operations"] as const;

export const CONTENT_ALIASES = [
	"text",
	"body",
	"data",
	"contents",
	"file_content",
	"fileContent",
	"file_text",
	"fileText",
	"new_content",
	"newContent",
] as const;

export const GREP_PATTERN_ALIASES = [
	"query",
	"regex",
	"search",
	"q",
	"expression",
	"search_pattern",
	"searchPattern",
] as const;

export const FIND_PATTERN_ALIASES = [
	"glob",
	"query",
	"name_pattern",
	"namePattern",
	"file_pattern",
	"filePattern",
	"search",
	"name",
] as const;

export const LS_PATH_ALIASES = [
	"directory",
	"dir",
	"folder",
	"directory_path",
	"directoryPath",
	...PATH_ALIASES,
] as const;

const pathAlias = (aliases: readonly string[]): Preprocessor => ({
	kind: "alias",
	selector: "/path",
	aliases,
	accepts: "string",
	emptyEquivalentToMissing: true,
});
const pathCleanup: Preprocessor = { kind: "filesystem-path", selector: "/path" };
const pathAnchors: Preprocessor = { kind: "anchor-bleed", selector: "/path", modelFamilies: ANCHOR_BLEED_MODELS };
const rootTokens: Preprocessor = { kind: "grammar-tokens", selector: "", modelFamilies: GRAMMAR_TOKEN_MODELS };
// Token cleanup fixes keys around content, never the content: file text, edit texts and commands keep every byte.
const contentTokens = (selector: "" | "/edits/*", contentKeys: readonly string[]): Preprocessor => ({
	kind: "grammar-tokens",
	selector,
	modelFamilies: GRAMMAR_TOKEN_MODELS,
	contentKeys,
});
const EDIT_TEXT_KEYS = ["oldText", "newText", ...OLD_TEXT_ALIASES, ...NEW_TEXT_ALIASES];

/**
 * The built-in flat edit fold as a structural preprocessor (top-level
 * `oldText`/`old_string`/… and `newText`/… become `edits: [{oldText, newText}]`),
 * with its applicability predicate; a tool owner with an `edit`-like schema
 * can list it as is.
 */
export const FLAT_EDIT_FOLD: StructuralPreprocessor = {
	kind: "structural",
	selector: "",
	ruleId: RULE.foldFlatEditFields,
	apply: foldFlatEditFieldsPreprocessor,
	applies: canFoldFlatEditFields,
};

const SHELL_PREPROCESSORS: readonly Preprocessor[] = [
	{ kind: "alias", selector: "/command", aliases: COMMAND_ALIASES, accepts: "string" },
	contentTokens("", ["command", ...COMMAND_ALIASES]),
];

export const PIPELINE_PREPROCESSORS: Readonly<Record<BuiltinToolName, readonly Preprocessor[]>> = {
	read: [pathAlias(PATH_ALIASES), pathCleanup, pathAnchors, rootTokens],
	bash: SHELL_PREPROCESSORS,
	powershell: SHELL_PREPROCESSORS,
	edit: [
		pathAlias(PATH_ALIASES),
		{ kind: "alias", selector: "/edits", aliases: EDITS_ALIASES, accepts: "array" },
		{ kind: "alias", selector: "/edits/*/oldText", aliases: OLD_TEXT_ALIASES, accepts: "string" },
		{ kind: "alias", selector: "/edits/*/newText", aliases: NEW_TEXT_ALIASES, accepts: "string" },
		pathCleanup,
		pathAnchors,
		contentTokens("", EDIT_TEXT_KEYS),
		contentTokens("/edits/*", EDIT_TEXT_KEYS),
		FLAT_EDIT_FOLD,
	],
	write: [
		pathAlias(PATH_ALIASES),
		{ kind: "alias", selector: "/content", aliases: CONTENT_ALIASES, accepts: "string" },
		pathCleanup,
		pathAnchors,
		contentTokens("", ["content", ...CONTENT_ALIASES]),
	],
	grep: [
		{ kind: "alias", selector: "/pattern", aliases: GREP_PATTERN_ALIASES, accepts: "string" },
		pathCleanup,
		// Anchors are cleaned from grep's path only: `^` and `$` are real regex in its pattern.
		pathAnchors,
		// A pattern is content: `<div>` or `</arg_value>` may be exactly what the model searches for.
		contentTokens("", ["pattern", "glob", ...GREP_PATTERN_ALIASES]),
	],
	find: [
		{ kind: "alias", selector: "/pattern", aliases: FIND_PATTERN_ALIASES, accepts: "string" },
		pathCleanup,
		pathAnchors,
		{ kind: "anchor-bleed", selector: "/pattern", modelFamilies: ANCHOR_BLEED_MODELS },
		contentTokens("", ["pattern", ...FIND_PATTERN_ALIASES]),
	],
	ls: [pathAlias(LS_PATH_ALIASES), pathCleanup, pathAnchors, rootTokens],
};

const SHELL_CONFIG: ToolRepairConfig = {
	fieldAliases: { command: COMMAND_ALIASES },
	rootString: { field: "command" },
};

export const REPAIR_CONFIGS: Readonly<Record<BuiltinToolName, ToolRepairConfig>> = {
	read: { fieldAliases: { path: PATH_ALIASES }, rootString: { field: "path" }, pathFields: ["path"] },
	bash: SHELL_CONFIG,
	powershell: SHELL_CONFIG,
	edit: {
		fieldAliases: { path: PATH_ALIASES, edits: EDITS_ALIASES, oldText: OLD_TEXT_ALIASES, newText: NEW_TEXT_ALIASES },
		pathFields: ["path"],
		structural: [foldFlatEditFieldsRepair],
	},
	write: { fieldAliases: { path: PATH_ALIASES, content: CONTENT_ALIASES }, pathFields: ["path"] },
	grep: { fieldAliases: { pattern: GREP_PATTERN_ALIASES }, rootString: { field: "pattern" }, pathFields: ["path"] },
	find: { fieldAliases: { pattern: FIND_PATTERN_ALIASES }, rootString: { field: "pattern" }, pathFields: ["path"] },
	ls: { fieldAliases: { path: LS_PATH_ALIASES }, rootString: { field: "path" }, pathFields: ["path"] },
};

/**
 * When pi's own `prepareArguments` shim can change a call (pi's `edit`: an
 * `edits` string or single edit object, or flat `oldText`/`newText`). Cheap
 * and conservative: `false` only when the shim certainly returns an equal
 * value, so a valid call skips it and the copy it needs. A tool with a shim
 * and no entry here runs its shim on every call.
 */
export const OWNER_SHIM_APPLIES: Readonly<Partial<Record<BuiltinToolName, (input: unknown) => boolean>>> = {
	edit: (input) =>
		isRecord(input) &&
		(typeof input.edits === "string" || isRecord(input.edits) || "oldText" in input || "newText" in input),
};
