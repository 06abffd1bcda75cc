/**
 * The family registry: every scan step in collection order (extension-contract
 * §2.6, with `harmony` and `gemma` appended last, decisions §5.1). The order
 * matters only for exact range ties at selection, where the earlier step wins.
 *
 * A step runs when any of its grammars is enabled; steps that serve several
 * grammars (the `<tool_call>` wrapper) check `context.enabled` themselves.
 */
import type { FamilyParser, GrammarName } from "../types.ts";
import { parseDsml } from "./dsml.ts";
import { parseGranite } from "./granite.ts";
import { parseInvoke } from "./invoke.ts";
import { parseQwen } from "./qwen.ts";
import { parseToolCallWrappers } from "./tool-call-wrapper.ts";

export interface FamilyStep {
	/** Label for tests and benchmarks. */
	id: string;
	grammars: readonly GrammarName[];
	parse: FamilyParser;
}

export const FAMILY_STEPS: readonly FamilyStep[] = [
	{ id: "dsml", grammars: ["dsml"], parse: parseDsml },
	{ id: "invoke", grammars: ["invoke"], parse: parseInvoke },
	{ id: "tool-call-wrapper", grammars: ["qwen", "glm", "granite"], parse: parseToolCallWrappers },
	{ id: "qwen", grammars: ["qwen"], parse: parseQwen },
	{ id: "granite", grammars: ["granite"], parse: parseGranite },
];
