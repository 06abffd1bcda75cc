/**
 * The schema-repair engine (pipeline stages 5–6).
 *
 * Order: the strict fast path, the
 * failure record (the original issues, never recomputed), root repairs,
 * configured structural repairs, then passes of the issue-site rule table
 * while each one fires (bounded by the change bound), and finally the verdict after our safe conversion. Repairs happen on
 * a private deep copy made only once the fast path has failed, so a valid
 * call costs one compiled check and no allocation.
 */
import type { TSchema } from "typebox";
import { cloneJson } from "../clone.ts";
import { convertToSchema } from "../convert.ts";
import { decodeJsonNoteFor } from "../envelope.ts";
import { failureFingerprint, formatRetryMessage, summarizeIssues } from "../issues.ts";
import { readsAsCallText, readsAsJsonText, trimJsonWhitespace } from "../json-text.ts";
import { defineOwn, isRecord, parseModelJson } from "../json-value.ts";
import { DEFAULT_ENVELOPE_LIMITS } from "../limits.ts";
import { RULE } from "../rule-ids.ts";
import { propertiesOf } from "../schema-shape.ts";
import type { RepairOutcome, ToolRepairConfig, ValidationIssue } from "../types.ts";
import { check, issues } from "../validator.ts";
import { collectIssueSites } from "./issue-sites.ts";
import { convertScalarToSchemaTypeNote, wrapRootStringAsObjectNote } from "./notes.ts";
import { ISSUE_RULES, type RuleContext } from "./rules.ts";

/** The rule ID of a lossless scalar conversion the layer itself makes. */

export interface EngineChange {
	ruleId: string;
	note: string;
}

export interface EngineResult {
	outcome: RepairOutcome;
	/** `valid`: the engine's input itself; `repaired`: a fresh value; `unrepairable`: the engine's input. */
	args: unknown;
	changes: EngineChange[];
	/** Present when the strict check failed and the engine either repaired something or gave up. */
	issueSummary?: string;
	fingerprint?: string;
	/** Only on `unrepairable`. */
	retryMessage?: string;
	/**
	 * Only on `unrepairable`, when the engine changed something before the
	 * final check refused: its working value and changes, so the caller can
	 * run its own lossless cleanup on what the engine uncovered (the records
	 * inside a decoded `edits` string, say) and try once more.
	 */
	attempt?: { args: Record<string, unknown>; changes: EngineChange[] };
}

export interface EngineOptions {
	value: unknown;
	schema: TSchema;
	toolName: string;
	config?: ToolRepairConfig;
	/** Hears a configured structural repair's throw; that repair is then skipped and the others still run. */
	onStructuralThrow?: (error: unknown) => void;
	/** Names a root `name: value` line may use besides the root field and the declared ones: the root field's aliases. */
	rootAliases?: readonly string[];
	/** Passes stop once this many changes were made (default: the pipeline's default `maxChanges`); each pass makes at least one, so it bounds the passes too. */
	maxChanges?: number;
}

export function runSchemaRepair(options: EngineOptions): EngineResult {
	const { value, schema, toolName } = options;
	const config = options.config ?? {};
	const changes: EngineChange[] = [];

	let current: unknown = value;
	if (check(schema, current)) return { outcome: "valid", args: value, changes };

	const original = issues(schema, current);
	const fail = (): EngineResult => unrepairable(toolName, original, value, schema);

	// From here on every write goes to a private copy.
	let owned = false;
	if (typeof current === "string") {
		const root = repairRootString(current, config, options.rootAliases ?? [], schema, toolName, changes);
		if (root !== undefined) {
			current = root;
			owned = true;
		}
	}
	if (!isRecord(current)) return fail();
	// A value outside the JSON domain (a function, a cycle) makes the copy throw, for the pipeline's boundary to contain.
	const work: Record<string, unknown> = owned ? current : cloneJson(current);

	for (const repair of config.structural ?? []) {
		let note: string | false;
		try {
			note = repair.apply(work, toolName);
		} catch (error) {
			// A configured repair is code outside this engine: its throw is reported and the call judged without it.
			options.onStructuralThrow?.(error);
			note = false;
		}
		if (typeof note === "string" && note !== "") changes.push({ ruleId: repair.name, note });
	}

	const context: RuleContext = { toolName, schema };
	// Until something changes, the working copy equals the value the failure record described:
	// reuse those issues instead of asking the (slow, uncompiled) error walk again.
	const unchanged = changes.length;
	// A validation names a few issues at a time (TypeBox stops at eight), so passes go on while
	// each one fires: a call with hundreds of null optional fields is repaired, within the change bound.
	const maxChanges = options.maxChanges ?? DEFAULT_ENVELOPE_LIMITS.maxChanges;
	for (let pass = 0; changes.length < maxChanges; pass++) {
		const found = pass === 0 && changes.length === unchanged && !owned ? original : undefined;
		if (found === undefined && check(schema, work)) break;
		if (!runPass(work, found ?? issues(schema, work), context, changes)) break;
	}

	const converted = convertToSchema(schema, work);
	if (!check(schema, converted)) {
		const refused = fail();
		if (changes.length > 0) refused.attempt = { args: work, changes };
		return refused;
	}
	// Alone, a lossless conversion is pi's own to make: the call is valid as the model sent it.
	if (changes.length === 0) return { outcome: "valid", args: value, changes };
	if (converted !== work) {
		changes.push({ ruleId: RULE.convertScalarToSchemaType, note: convertScalarToSchemaTypeNote(toolName) });
	}
	const repaired: EngineResult = {
		outcome: "repaired",
		args: converted,
		changes,
		issueSummary: summarizeIssues(original),
		fingerprint: failureFingerprint(toolName, original),
	};
	return repaired;
}

function unrepairable(
	toolName: string,
	original: readonly ValidationIssue[],
	value: unknown,
	schema: TSchema,
): EngineResult {
	return {
		outcome: "unrepairable",
		args: value,
		changes: [],
		issueSummary: summarizeIssues(original),
		fingerprint: failureFingerprint(toolName, original),
		retryMessage: formatRetryMessage(toolName, original, value, schema),
	};
}

/** One pass over the current issue sites; true when any rule fired. */
function runPass(
	work: Record<string, unknown>,
	found: readonly ValidationIssue[],
	context: RuleContext,
	changes: EngineChange[],
): boolean {
	let fired = false;
	for (const site of collectIssueSites(work, found)) {
		for (const rule of ISSUE_RULES) {
			if (!rule.applies(site, context)) continue;
			changes.push({ ruleId: rule.id, note: rule.apply(site, context) });
			fired = true;
			break;
		}
	}
	return fired;
}

/** The record a root string becomes, or `undefined` when no root repair is safe. */
function repairRootString(
	text: string,
	config: ToolRepairConfig,
	rootAliases: readonly string[],
	schema: TSchema,
	toolName: string,
	changes: EngineChange[],
): Record<string, unknown> | undefined {
	const trimmed = trimJsonWhitespace(text);
	if (trimmed.startsWith("{") && trimmed.endsWith("}")) {
		const parsed = parseModelJson(trimmed);
		if (isRecord(parsed)) {
			changes.push({ ruleId: RULE.parseJsonStringifiedRootObject, note: decodeJsonNoteFor(toolName) });
			return parsed;
		}
	}
	const rootString = config.rootString;
	if (rootString === undefined || readsAsJsonText(text)) return undefined;
	if (readsAsCallText(text, [rootString.field, ...rootAliases, ...Object.keys(propertiesOf(schema) ?? {})]))
		return undefined;
	const wrapInArray = rootString.wrapInArray === true;
	const wrapped: Record<string, unknown> = {};
	defineOwn(wrapped, rootString.field, wrapInArray ? [text] : text);
	changes.push({
		ruleId: RULE.wrapRootStringAsObject,
		note: wrapRootStringAsObjectNote(rootString.field, toolName, wrapInArray),
	});
	return wrapped;
}
