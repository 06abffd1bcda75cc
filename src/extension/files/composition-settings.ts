/**
 * The settings of the layer's reach beyond pi's built-ins, two more keys of
 * the same settings file (`tool-repair/settings.json`, kept as they are when
 * the menu saves):
 *
 * - `toolAliases`: aliases a tool's owner (or the user) configures for a tool
 *   the layer does not own, `{ "<tool>": { "<field>": ["<alias>", …] } }`. A
 *   field is a top-level property name, or a selector starting with `/`
 *   (`/todos/*\/text`). Built-in tables never apply to such tools, so this is
 *   the only source of alias repairs for them.
 * - `codemodeRepair` (default false): re-register pi's codemode tool so that
 *   nested calls of tools the layer does not own are repaired too. pi then
 *   reports that its built-in codemode extension was replaced.
 *
 * Loading never throws; an unusable entry is dropped alone, and one short
 * warning names it.
 */
import { isRecord } from "../../core/json-value.ts";
import type { AliasPreprocessor, Preprocessor } from "../../core/types.ts";
import { printableName } from "../host/printable.ts";
import { readSettingsObject, repairSettingsPath } from "./settings.ts";

export interface CompositionSettings {
	/** Alias preprocessors by tool name. */
	toolAliases: ReadonlyMap<string, readonly Preprocessor[]>;
	codemodeRepair: boolean;
}

const NAME = /^[A-Za-z0-9_.:-]{1,128}$/;
const FIELD = /^[A-Za-z0-9_.-]{1,128}$/;
const SELECTOR = /^(\/([A-Za-z0-9_.-]{1,128}|\*))+$/;
const NO_ALIASES: readonly Preprocessor[] = Object.freeze([]);
/** Dropped `toolAliases` entries a warning names; the rest are counted. */
const MAX_NAMED = 5;

export function defaultCompositionSettings(): CompositionSettings {
	return { toolAliases: new Map(), codemodeRepair: false };
}

/** The alias rows configured for one tool, or none (one shared empty list, so caches compare by identity). */
export function aliasesFor(settings: CompositionSettings, toolName: string): readonly Preprocessor[] {
	return settings.toolAliases.get(toolName) ?? NO_ALIASES;
}

export function loadCompositionSettings(path: string = repairSettingsPath()): {
	settings: CompositionSettings;
	warning?: string;
} {
	const stored = readSettingsObject(path);
	const settings = defaultCompositionSettings();
	if (stored === undefined) return { settings };
	const rejected: string[] = [];
	if (stored.codemodeRepair !== undefined) {
		if (typeof stored.codemodeRepair === "boolean") settings.codemodeRepair = stored.codemodeRepair;
		else rejected.push("codemodeRepair");
	}
	if (stored.toolAliases !== undefined) {
		const parsed = parseToolAliasEntries(stored.toolAliases);
		if (parsed === undefined) rejected.push("toolAliases");
		else {
			settings.toolAliases = parsed.byTool;
			// The names are the user's own text: shown printable and bounded, a few at most.
			const shown = parsed.dropped.slice(0, MAX_NAMED).map((name) => JSON.stringify(printableName(name, 64)));
			const more = parsed.dropped.length > MAX_NAMED ? ` and ${parsed.dropped.length - MAX_NAMED} more` : "";
			if (shown.length > 0) rejected.push(`toolAliases entries ${shown.join(", ")}${more}`);
		}
	}
	if (rejected.length === 0) return { settings };
	return {
		settings,
		warning: `tool-repair settings file ${path} has invalid ${rejected.join("; ")}; those are not used, the rest is.`,
	};
}

/** The usable entries of `toolAliases`, and the names (`tool` or `tool.field`, as written) of the ones dropped. */
export interface ToolAliasEntries {
	byTool: Map<string, readonly Preprocessor[]>;
	dropped: string[];
}

/** `{ tool: { field: [aliases] } }` as alias preprocessors; `undefined` only when the value is not an object at all. */
export function parseToolAliases(value: unknown): Map<string, readonly Preprocessor[]> | undefined {
	return parseToolAliasEntries(value)?.byTool;
}

/**
 * {@link parseToolAliases} with what it dropped: a malformed tool entry or
 * field drops that entry alone, so one typo never costs the others.
 */
export function parseToolAliasEntries(value: unknown): ToolAliasEntries | undefined {
	if (!isRecord(value)) return undefined;
	const byTool = new Map<string, readonly Preprocessor[]>();
	const dropped: string[] = [];
	for (const [tool, fields] of Object.entries(value)) {
		if (!NAME.test(tool) || !isRecord(fields)) {
			dropped.push(tool);
			continue;
		}
		const rows: AliasPreprocessor[] = [];
		for (const [field, aliases] of Object.entries(fields)) {
			const selector = selectorOf(field);
			if (selector === undefined || !isAliasList(aliases)) dropped.push(`${tool}.${field}`);
			else rows.push({ kind: "alias", selector, aliases: [...aliases] });
		}
		if (rows.length > 0) byTool.set(tool, Object.freeze(rows));
	}
	return { byTool, dropped };
}

function selectorOf(field: string): AliasPreprocessor["selector"] | undefined {
	if (FIELD.test(field)) return `/${field}`;
	if (SELECTOR.test(field)) return field as AliasPreprocessor["selector"];
	return undefined;
}

function isAliasList(value: unknown): value is string[] {
	return (
		Array.isArray(value) && value.length > 0 && value.every((alias) => typeof alias === "string" && FIELD.test(alias))
	);
}
