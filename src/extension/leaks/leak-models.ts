/**
 * The `leakModels` key of the settings file (`tool-repair/settings.json`,
 * kept as it is when the menu saves): model-id patterns for which the
 * ambiguous grammar families (`<tool_call>` JSON, `name(arg=…)` lines, bare
 * JSON) are looked for too, as they are for the model families known to leak
 * them. A pattern matches a model id that contains it, ignoring case
 * (`"coder"` matches `qwen3-coder:30b` and `my-coder`).
 *
 * Loading never throws; an unusable value is dropped with one short warning.
 */
import { readSettingsObject, repairSettingsPath } from "../files/settings.ts";

/** A settings file is written by hand: a pattern longer than this is not a model-id fragment. */
const MAX_PATTERN_LENGTH = 128;
const MAX_PATTERNS = 64;

export function loadLeakModels(path: string = repairSettingsPath()): { patterns: string[]; warning?: string } {
	const stored = readSettingsObject(path)?.leakModels;
	if (stored === undefined) return { patterns: [] };
	const patterns = parseLeakModels(stored);
	if (patterns !== undefined) return { patterns };
	return {
		patterns: [],
		warning: `tool-repair settings file ${path} has invalid leakModels (a list of at most ${MAX_PATTERNS} model-id texts); it is ignored.`,
	};
}

/** The patterns, trimmed, when `value` is a list of non-empty strings within the limits; else undefined. */
export function parseLeakModels(value: unknown): string[] | undefined {
	if (!Array.isArray(value) || value.length > MAX_PATTERNS) return undefined;
	const patterns: string[] = [];
	for (const item of value) {
		if (typeof item !== "string") return undefined;
		const pattern = item.trim();
		if (pattern === "" || pattern.length > MAX_PATTERN_LENGTH) return undefined;
		patterns.push(pattern);
	}
	return patterns;
}
