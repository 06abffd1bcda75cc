/**
 * Which tools a leaked call may become. Text never becomes code: a leak is
 * never promoted into a tool that runs a script it is given (pi's `codemode`,
 * or any tool whose parameters take a `code` or `script` text), because a
 * script reaches every other tool at once. Collapsed DSML debris, the weakest
 * sign of a call, is promoted only into one of pi's own built-ins the user
 * enabled (the caller names them; by default pi's built-in names).
 */
import { BUILTIN_TOOL_NAMES } from "../core/builtin-tables.ts";
import { isPlainObject } from "./scan.ts";
import type { GrammarCandidate } from "./types.ts";

/** pi's code-running tool: a script it runs calls the other tools itself. */
const SCRIPT_TOOL_NAMES: ReadonlySet<string> = new Set(["codemode"]);

/** Parameter names that hand the tool a program to run. */
const SCRIPT_FIELDS = ["code", "script"] as const;

/** True when the tool runs a script it is given: by name, or by a `code`/`script` parameter. */
export function runsScripts(name: string, schema: unknown): boolean {
	if (SCRIPT_TOOL_NAMES.has(name)) return true;
	if (!isPlainObject(schema) || !isPlainObject(schema.properties)) return false;
	const properties = schema.properties;
	return SCRIPT_FIELDS.some((field) => Object.hasOwn(properties, field));
}

const DEFAULT_DEBRIS_TOOLS: ReadonlySet<string> = new Set(BUILTIN_TOOL_NAMES);

/** True when the candidate may be promoted into `candidate.name` (whose schema is `schema`). */
export function mayReceiveLeak(
	candidate: Pick<GrammarCandidate, "name" | "stripOnly">,
	schema: unknown,
	debrisTools: ReadonlySet<string> = DEFAULT_DEBRIS_TOOLS,
): boolean {
	if (runsScripts(candidate.name, schema)) return false;
	return candidate.stripOnly !== true || debrisTools.has(candidate.name);
}
