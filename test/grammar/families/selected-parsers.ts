/**
 * The wrapper-sharing family parsers (dsml, granite, invoke, qwen, glm) as the fixture runner sees them: the
 * family's scan steps over a text with every family enabled, selected
 * (one candidate per overlapping range) and narrowed to the family's own label. The `<tool_call>` wrapper
 * serves qwen, glm and granite at once, so each of those picks its share.
 */
import { parseDsml } from "../../../src/grammar/families/dsml.ts";
import { parseGranite } from "../../../src/grammar/families/granite.ts";
import { parseInvoke } from "../../../src/grammar/families/invoke.ts";
import { parseQwen } from "../../../src/grammar/families/qwen.ts";
import { parseToolCallWrappers } from "../../../src/grammar/families/tool-call-wrapper.ts";
import { selectCandidates } from "../../../src/grammar/select.ts";
import type { FamilyParser, GrammarName } from "../../../src/grammar/types.ts";

function selected(grammar: GrammarName, steps: readonly FamilyParser[]): FamilyParser {
	return (context) =>
		selectCandidates(steps.flatMap((step) => step(context))).filter((candidate) => candidate.grammar === grammar);
}

export const dsmlParser = selected("dsml", [parseDsml]);
export const invokeParser = selected("invoke", [parseInvoke]);
export const qwenParser = selected("qwen", [parseToolCallWrappers, parseQwen]);
export const glmParser = selected("glm", [parseToolCallWrappers]);
export const graniteParser = selected("granite", [parseToolCallWrappers, parseGranite]);
