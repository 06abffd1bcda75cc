/**
 * Which models print tool calls as text, so recovery runs only where leaks
 * are known to happen. Short, anchored-free literal patterns tested once per
 * message, so there is no backtracking concern.
 */

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

/** True when the model id belongs to a family that leaks tool grammar as text. */
export function modelLeaksGrammar(modelId: string | undefined): boolean {
	if (typeof modelId !== "string" || modelId === "") return false;
	return GRAMMAR_RECOVERY_MODELS.some((pattern) => pattern.test(modelId));
}
