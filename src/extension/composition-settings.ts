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
 * Loading never throws; an unusable entry is dropped with one short warning.
 */
import { isRecord } from "../core/json-value.ts";
import type { AliasPreprocessor, Preprocessor } from "../core/types.ts";
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
		const parsed = parseToolAliases(stored.toolAliases);
		if (parsed === undefined) rejected.push("toolAliases");
		else settings.toolAliases = parsed;
	}
	if (rejected.length === 0) return { settings };
	return {
		settings,
		warning: `tool-repair settings file ${path} has invalid ${rejected.join(", ")}; that entry is not used.`,
	};
}

/** `{ tool: { field: [aliases] } }` as alias preprocessors, or `undefined` when any part is malformed. */
export function parseToolAliases(value: unknown): Map<string, readonly Preprocessor[]> | undefined {
	if (!isRecord(value)) return undefined;
	const byTool = new Map<string, readonly Preprocessor[]>();
	for (const [tool, fields] of Object.entries(value)) {
		if (!NAME.test(tool) || !isRecord(fields)) return undefined;
		const rows: AliasPreprocessor[] = [];
		for (const [field, aliases] of Object.entries(fields)) {
			const selector = selectorOf(field);
			if (selector === undefined || !isAliasList(aliases)) return undefined;
			rows.push({ kind: "alias", selector, aliases: [...aliases] });
		}
		byTool.set(tool, Object.freeze(rows));
	}
	return byTool;
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
