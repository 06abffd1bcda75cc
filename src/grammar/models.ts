/**
 * Which grammar families are looked for in a model's text.
 *
 * Families whose markup opens with a sentinel no ordinary reply contains are
 * looked for whatever the model id says: a leak from `local-model`,
 * `coder:30b` or a renamed gateway model is as plain as one from the model
 * the family is named after. Families whose markup could be ordinary text (a
 * `<tool_call>` tag around JSON, a `name(arg=…)` line, bare JSON) are looked
 * for only for a model id of a family known to leak it, or one the user
 * names in the `leakModels` setting: from any other model such text is the
 * answer, not a call.
 *
 * The model-id patterns are short literals tested once per message, so there
 * is no backtracking concern; user patterns are matched as plain substrings,
 * never compiled into regular expressions.
 */
import { GRAMMAR_NAMES, type GrammarName } from "./types.ts";

/** Case-insensitive model-id patterns of families known to leak their tool grammar. */
export const GRAMMAR_RECOVERY_MODELS: readonly RegExp[] = [
	/glm/i,
	/kimi/i,
	/minimax/i,
	/qwen/i,
	/mistral/i,
	/llama/i,
	/granite/i,
	/olmo/i,
	/deepseek/i,
	/gpt-oss/i,
	/gemma/i,
];

/**
 * The families detected for every model id, each with the reason its
 * sentinel cannot be ordinary text. A family missing here is gated by the
 * model id (the reason is in `AMBIGUOUS_GRAMMARS`).
 */
export const UNAMBIGUOUS_GRAMMARS: Readonly<Partial<Record<GrammarName, string>>> = {
	dsml: "its tags carry the fullwidth bars `｜DSML｜`, which no prose, code or markup language writes",
	kimi: "its `<|tool_calls_section_begin|>` and `<|tool_call_begin|>` tokens are special tokens of the Kimi tokenizer",
	"kimi-xtml": "its `<|open|>` … `<|sep|>` tags are special tokens of the Kimi K3 tokenizer",
	harmony: "a call needs harmony's `<|channel|>` and `<|message|>` tokens and a `to=functions.NAME` recipient",
	gemma: "its `<|tool_call>` … `<tool_call|>` tokens, with the bars on opposite sides, are Gemma's special tokens",
	invoke:
		'every shape needs the `invoke name="…">` element with `parameter name=` or keyed child elements, the MiniMax and Anthropic tool-call envelope, which is no construct of prose or of a programming language',
};

/**
 * The families gated by the model id, each with the text it could be
 * mistaken for. Listed so that every family is classified once, here.
 */
export const AMBIGUOUS_GRAMMARS: Readonly<Partial<Record<GrammarName, string>>> = {
	qwen: "a `<tool_call>` tag around JSON is a generic prompt convention many models and documents use",
	glm: "it is read inside the same generic `<tool_call>` wrapper",
	granite: "its calls are bare `name(arg=…)` lines, which is ordinary Python",
	mistral: "besides `[TOOL_CALLS]` it reads bare JSON objects naming a function, which is ordinary data",
	llama: "besides `<|python_tag|>` it reads bare JSON calls, which is ordinary data",
	olmo: "its `<function_calls>` block holds `name(arg=…)` lines, which is ordinary Python",
	"minimax-text": "`<function_call>` around `functions.NAME(…)` is a generic tag around a JavaScript call",
};

/** The model-id patterns of the `leakModels` setting: case-insensitive substrings. */
export type LeakModelPatterns = readonly string[];

/** True when the model id belongs to a family that leaks tool grammar as text. */
export function modelLeaksGrammar(modelId: string | undefined): boolean {
	if (typeof modelId !== "string" || modelId === "") return false;
	return GRAMMAR_RECOVERY_MODELS.some((pattern) => pattern.test(modelId));
}

/** True when the model id contains one of the user's `leakModels` patterns (case-insensitive). */
export function modelNamedInLeakModels(modelId: string | undefined, leakModels: LeakModelPatterns = []): boolean {
	if (typeof modelId !== "string" || modelId === "") return false;
	const id = modelId.toLowerCase();
	return leakModels.some((pattern) => pattern !== "" && id.includes(pattern.toLowerCase()));
}

const ALL_GRAMMARS: readonly GrammarName[] = GRAMMAR_NAMES;
const SENTINEL_GRAMMARS: readonly GrammarName[] = GRAMMAR_NAMES.filter((name) => name in UNAMBIGUOUS_GRAMMARS);

/**
 * The families to look for in a message of `modelId`: all of them for a
 * family known to leak or a model named in `leakModels`, else only the
 * families whose sentinels are unambiguous.
 */
export function leakGrammarsFor(
	modelId: string | undefined,
	leakModels: LeakModelPatterns = [],
): readonly GrammarName[] {
	if (modelLeaksGrammar(modelId) || modelNamedInLeakModels(modelId, leakModels)) return ALL_GRAMMARS;
	return SENTINEL_GRAMMARS;
}
