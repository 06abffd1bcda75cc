/**
 * The flat edit fold: top-level old/new text fields
 * (`oldText`, `old_string`, `search`/`replace`, …) become
 * `edits: [{oldText, newText}]`. Provided twice: as the schema-engine
 * `StructuralRepair` (mutates the engine's private copy, names the engine's
 * tool) and as the built-in `edit` structural preprocessor (copy-on-write,
 * always names `edit`). Also owns the old/new alias lists the fold and the
 * built-in tables share.
 */

import { defineOwn, isRecord, shallowCopyRecord } from "./json-value.ts";
import { RULE } from "./rule-ids.ts";
import { foldFlatEditFieldsNote } from "./schema-repair/notes.ts";
import type { StructuralRepair } from "./types.ts";

/** Aliases of `oldText`, in priority order. */
export const OLD_TEXT_ALIASES = [
	"old_string",
	"oldString",
	"old_str",
	"oldStr",
	"old_text",
	"oldValue",
	"old_value",
	"oldContent",
	"old_content",
	"old",
	"from",
	"search",
] as const;

/** Aliases of `newText`, in priority order. */
export const NEW_TEXT_ALIASES = [
	"new_string",
	"newString",
	"new_str",
	"newStr",
	"new_text",
	"newValue",
	"new_value",
	"newContent",
	"new_content",
	"new",
	"to",
	"replace",
] as const;

const OLD_KEYS: readonly string[] = ["oldText", ...OLD_TEXT_ALIASES];
const NEW_KEYS: readonly string[] = ["newText", ...NEW_TEXT_ALIASES];

interface FoldPlan {
	oldKey: string;
	newKey: string;
}

/** Which flat keys a fold would use, or `undefined` when the record must not be folded. */
function planFold(args: Record<string, unknown>): FoldPlan | undefined {
	const edits = Object.hasOwn(args, "edits") ? args.edits : undefined;
	if (Array.isArray(edits) && edits.length > 0) return undefined;
	const oldKey = firstStringKey(args, OLD_KEYS);
	const newKey = firstStringKey(args, NEW_KEYS);
	return oldKey !== undefined && newKey !== undefined ? { oldKey, newKey } : undefined;
}

function firstStringKey(args: Record<string, unknown>, keys: readonly string[]): string | undefined {
	for (const key of keys) {
		if (Object.hasOwn(args, key) && typeof args[key] === "string") return key;
	}
	return undefined;
}

function applyFold(args: Record<string, unknown>, plan: FoldPlan): void {
	const edit = { oldText: args[plan.oldKey], newText: args[plan.newKey] };
	for (const key of OLD_KEYS) delete args[key];
	for (const key of NEW_KEYS) delete args[key];
	defineOwn(args, "edits", [edit]);
}

/** True when the built-in preprocessor form would fold `value`. */
export function canFoldFlatEditFields(value: unknown): boolean {
	return isRecord(value) && planFold(value) !== undefined;
}

/** Folds `args` in place; returns the note, or `false` when there was nothing to fold. */
export function foldFlatEditFields(args: Record<string, unknown>, toolName: string): string | false {
	const plan = planFold(args);
	if (plan === undefined) return false;
	applyFold(args, plan);
	return foldFlatEditFieldsNote(plan.oldKey, plan.newKey, toolName);
}

/** The schema-engine form, listed in `REPAIR_CONFIGS.edit.structural`. */
export const foldFlatEditFieldsRepair: StructuralRepair = {
	name: RULE.foldFlatEditFields,
	apply: foldFlatEditFields,
};

/**
 * The built-in `edit` preprocessor form: folds a root record without touching
 * the value it was given, and names the `edit` tool whatever the config says.
 */
export function foldFlatEditFieldsPreprocessor(value: unknown): { value: unknown; note: string } | undefined {
	if (!isRecord(value)) return undefined;
	const plan = planFold(value);
	if (plan === undefined) return undefined;
	const copy = shallowCopyRecord(value);
	applyFold(copy, plan);
	return { value: copy, note: foldFlatEditFieldsNote(plan.oldKey, plan.newKey, "edit") };
}
