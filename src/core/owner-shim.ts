/**
 * Pipeline stage 3: the tool owner's own `prepareArguments`.
 *
 * The shim gets a private copy (pi's `edit` shim mutates its argument in
 * place), a throw is swallowed and the pre-shim value kept, and when the
 * shim's result differs from what it was given the reshaping is recorded as
 * a change, so the model hears about it like any other repair.
 */
import { cloneJson, jsonEqual } from "./clone.ts";
import { ownerShimNote } from "./schema-repair/notes.ts";
import type { RepairChange } from "./types.ts";

export const OWNER_SHIM_RULE_ID = "owner-shim.prepare-arguments";

export interface OwnerShimResult {
	/** The adopted value: the caller's own value when the shim changed nothing. */
	value: unknown;
	change?: RepairChange;
}

export function applyOwnerShim(
	value: unknown,
	shim: ((input: unknown) => unknown) | undefined,
	toolName: string,
): OwnerShimResult {
	if (shim === undefined) return { value };
	let prepared: unknown;
	try {
		prepared = shim(cloneJson(value));
	} catch {
		return { value };
	}
	if (jsonEqual(value, prepared)) return { value };
	return {
		value: prepared,
		change: { ruleId: OWNER_SHIM_RULE_ID, stage: "owner-shim", note: ownerShimNote(toolName) },
	};
}
