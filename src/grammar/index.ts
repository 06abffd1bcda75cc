/**
 * `pi-repair-layer/grammar`: grammar-leak detection and recovery, for tool
 * calls a model wrote as text. Pure: no pi imports, no I/O.
 */
export { GRAMMAR_RECOVERY_MODELS, modelLeaksGrammar } from "./models.ts";
export { parseToolGrammarLeaks } from "./parse.ts";
export { recoverGrammarLeaks } from "./recover.ts";
export type {
	ContainedErrorReporter,
	GrammarName,
	GrammarRecoveryMode,
	GrammarRecoveryOptions,
	GrammarRecoveryResult,
	MinimalAssistantMessage,
	RecoveredToolCall,
} from "./types.ts";
export { GRAMMAR_NAMES } from "./types.ts";
