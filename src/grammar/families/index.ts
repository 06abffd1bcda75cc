/**
 * The family registry: every scan step in collection order (the original ten
 * families' order, with `harmony`, `gemma` and `kimi-xtml` appended last). The
 * order matters only for exact range ties at selection, where the earlier step wins.
 *
 * A step runs when any of its grammars is enabled; steps that serve several
 * grammars (the `<tool_call>` wrapper) check `context.enabled` themselves.
 */
import type { FamilyParser, GrammarName } from "../types.ts";
import { parseDsml } from "./dsml.ts";
import { parseGemma } from "./gemma.ts";
import { parseGranite } from "./granite.ts";
import { parseHarmony } from "./harmony.ts";
import { parseInvoke } from "./invoke.ts";
import { parseKimi } from "./kimi.ts";
import { parseKimiXtml } from "./kimi-xtml.ts";
import { parseLlama } from "./llama.ts";
import { parseMinimaxText } from "./minimax-text.ts";
import { parseMistral } from "./mistral.ts";
import { parseOlmo } from "./olmo.ts";
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
	{ id: "kimi", grammars: ["kimi"], parse: parseKimi },
	{ id: "mistral", grammars: ["mistral"], parse: parseMistral },
	{ id: "minimax-text", grammars: ["minimax-text"], parse: parseMinimaxText },
	{ id: "invoke", grammars: ["invoke"], parse: parseInvoke },
	{ id: "tool-call-wrapper", grammars: ["qwen", "glm", "granite"], parse: parseToolCallWrappers },
	{ id: "qwen", grammars: ["qwen"], parse: parseQwen },
	{ id: "granite", grammars: ["granite"], parse: parseGranite },
	{ id: "llama", grammars: ["llama"], parse: parseLlama },
	{ id: "olmo", grammars: ["olmo"], parse: parseOlmo },
	{ id: "harmony", grammars: ["harmony"], parse: parseHarmony },
	{ id: "gemma", grammars: ["gemma"], parse: parseGemma },
	{ id: "kimi-xtml", grammars: ["kimi-xtml"], parse: parseKimiXtml },
];
