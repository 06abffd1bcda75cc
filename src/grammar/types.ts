/**
 * Types shared by the grammar-leak parsers, the candidate selection and the
 * recovery driver. Pure data: no pi imports.
 */

/** Family names in their fixed order: the original ten, then `harmony`, `gemma` and `kimi-xtml` (Kimi K3). */
import type { GrammarPolicyMode } from "../core/types.ts";
export const GRAMMAR_NAMES = [
	"dsml",
	"invoke",
	"qwen",
	"kimi",
	"mistral",
	"llama",
	"glm",
	"granite",
	"minimax-text",
	"olmo",
	"harmony",
	"gemma",
	"kimi-xtml",
] as const;

export type GrammarName = (typeof GRAMMAR_NAMES)[number];

/** The core policy's grammar mode, under the grammar module's own name. */
export type GrammarRecoveryMode = GrammarPolicyMode;

/** A call recognised in text, as `parseToolGrammarLeaks` reports it. */
export interface RecoveredToolCall {
	name: string;
	arguments: Record<string, unknown>;
	grammar: GrammarName;
}

/** A family parser's raw finding: a call (or a strip-only marker) and the text range it occupies. */
export interface GrammarCandidate extends RecoveredToolCall {
	/** Start offset (inclusive) in the scanned text. */
	start: number;
	/** End offset (exclusive) in the scanned text. */
	end: number;
	/** A dangling marker or half-written markup: removable text, never a call. */
	stripOnly?: boolean;
	/** Found in the model's reasoning (e.g. harmony's `analysis` channel): observed, never promoted. */
	reasoning?: boolean;
	/**
	 * Optional (added by grammar part 1 for schema typing): for argument keys
	 * whose value was coerced from text (loose coercion or JSON-or-string), the
	 * trimmed source text. When the tool's schema wants a string there, the
	 * driver uses this text instead of the coerced value, so `"5"` or
	 * `{"a":1}` written for a string field stays exactly that text. Parsers
	 * that leave it out still work: values are then typed from what they are.
	 */
	rawArguments?: Record<string, string>;
	/**
	 * Collapsed DSML debris that names a tool and holds one value: the value,
	 * and the parameter name written with it, if any. Such a candidate stays
	 * strip-only; the driver runs it only when the tool's schema has exactly
	 * one property, a string, named like the parameter when one is written:
	 * then the value can go nowhere else.
	 */
	soleValue?: { value: string; key?: string };
	/** What is stripped instead of the whole range when a `soleValue` candidate does not run: its tags, not its value. */
	markers?: ReadonlyArray<{ start: number; end: number }>;
}

/** Shared, precomputed facts about one scanned text, handed to every family parser. */
export interface ScanContext {
	readonly text: string;
	/**
	 * True when `offset` lies in quoted text: fenced or indented code, an inline
	 * code span, a blockquote or `<pre>` (the name is older than the rule).
	 */
	isInsideFence(offset: number): boolean;
	/** The families enabled for this scan. */
	readonly enabled: ReadonlySet<GrammarName>;
}

/** One family's parser. Must be linear in `context.text.length`; a throw is a bug, contained and reported by the caller. */
export type FamilyParser = (context: ScanContext) => GrammarCandidate[];

export interface MinimalAssistantMessage {
	role: string;
	content: Array<
		| { type: "text"; text: string; [key: string]: unknown }
		| { type: "thinking"; thinking: string; [key: string]: unknown }
		| { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown>; [key: string]: unknown }
		| Record<string, unknown>
	>;
	stopReason?: string;
	[key: string]: unknown;
}

/**
 * Told of an internal error the grammar layer contained at its entry point
 * (`label` names the entry point), so the caller can log and count it. Must
 * not throw; what it records must carry no argument value (the error's
 * message may quote one).
 */
export type ContainedErrorReporter = (label: string, error: unknown) => void;

/** What the provenance rule asks of the echo sources. */
export interface EchoIndex {
	/** True when `callText` (the leak's exact text) or the call it spells also appears in a source. */
	echoes(callText: string, call?: { name: string; arguments: Record<string, unknown> }): boolean;
}

export interface GrammarRecoveryOptions {
	mode: GrammarRecoveryMode;
	knownTools: Set<string>;
	/** Default: all families. */
	grammars?: readonly GrammarName[];
	/** Default true. */
	requireKnownTool?: boolean;
	/** Default "preserve". */
	unknownToolText?: "preserve" | "strip";
	/**
	 * Parameter schemas of known tools (plain JSON Schema or TypeBox). When a
	 * tool's schema is known, textual values are typed from it: `"5"` for an
	 * integer field becomes 5, while JSON-looking text for a string field stays text.
	 */
	toolSchemas?: ReadonlyMap<string, unknown>;
	/**
	 * Texts the model did not write: the current turn's tool results and the
	 * user's message. A leak that repeats one of them is an echo, never a call.
	 */
	echoSources?: readonly string[];
	/**
	 * The tools collapsed DSML debris may be promoted into: pi's own built-ins
	 * the user enabled. Default: pi's built-in tool names.
	 */
	debrisTools?: ReadonlySet<string>;
	/** Clock for promoted call IDs; default `Date.now`. */
	now?: () => number;
	/** Told of an internal error contained here (the message is then returned unchanged). */
	onContainedError?: ContainedErrorReporter;
}

export interface GrammarRecoveryResult {
	changed: boolean;
	recoveredCalls: RecoveredToolCall[];
	strippedGrammars: GrammarName[];
	strippedRanges: number;
	promoted: boolean;
	observed: boolean;
	detectedGrammars: GrammarName[];
	detectedRanges: number;
	promotedCallIds: string[];
	message: MinimalAssistantMessage;
}
