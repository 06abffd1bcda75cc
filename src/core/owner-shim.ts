/**
 * Pipeline stage 3: the tool owner's own `prepareArguments`.
 *
 * The shim gets a private copy (pi's `edit` shim mutates its argument in
 * place), a throw is contained (reported, and the pre-shim value kept), and
 * when the shim's result differs from what it was given the reshaping is
 * recorded as a change, so the model hears about it like any other repair.
 */
import { cloneJson, jsonEqual } from "./clone.ts";
import { RULE } from "./rule-ids.ts";
import { ownerShimNote } from "./schema-repair/notes.ts";
import type { RepairChange } from "./types.ts";

export interface OwnerShimResult {
	/** The adopted value: the caller's own value when the shim changed nothing. */
	value: unknown;
	change?: RepairChange;
}

export function applyOwnerShim(
	value: unknown,
	shim: ((input: unknown) => unknown) | undefined,
	toolName: string,
	onThrow?: (error: unknown) => void,
): OwnerShimResult {
	if (shim === undefined) return { value };
	let prepared: unknown;
	try {
		prepared = shim(cloneJson(value));
	} catch (error) {
		// The owner's code is outside this layer: a throw leaves the call as it was, for the later stages to judge.
		onThrow?.(error);
		return { value };
	}
	if (jsonEqual(value, prepared)) return { value };
	return {
		value: prepared,
		change: { ruleId: RULE.ownerShim, stage: "owner-shim", note: ownerShimNote(toolName) },
	};
}
