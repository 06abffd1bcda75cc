/**
 * Interfaces shared by the extension's parts (overrides, grammar hook,
 * settings, telemetry, commands), so each part can be built and tested alone.
 * Nothing here carries an argument value: every field is value-free metadata.
 */
import type { GrammarPolicyMode, RepairPolicyProfile, UnknownGrammarTextPolicy } from "../../core/types.ts";

/** The three owner kinds telemetry and `/repair-stats` count by. */
export type OwnerKind = "builtin" | "extension" | "mcp";

/** Leaked grammar text that did not become a call: what happened to it, never the text itself. */
export interface LeakTextEvent {
	outcome: "stripped" | "observed";
	/** The grammar families found, in first-seen order. */
	grammars: string[];
	/** How many leaked calls (ranges of markup) were stripped or observed. */
	count: number;
	/** The `grammarRecovery` setting in force. */
	mode: GrammarPolicyMode;
}

/** The user's settings file (`tool-repair/settings.json`); see docs/operations.md. */
export interface RepairSettings {
	/** Default true. */
	showIndicator: boolean;
	/** Default false. */
	showNotes: boolean;
	/** Default "strip". */
	grammarRecovery: GrammarPolicyMode;
	/** Default []. When non-empty it replaces the active tool set for grammar promotion. */
	grammarAllowedTools: string[];
	/** Default "adaptive". */
	policyProfile: RepairPolicyProfile;
	/** Default "preserve". */
	unknownGrammarText: UnknownGrammarTextPolicy;
	/** Default false. Renames a call to an unknown tool when exactly one active tool matches its cleaned name. */
	repairToolNames: boolean;
	/** Default true. Asks once, with a visible note, when a turn ran nothing although it ended with a call written as text. */
	askOnSilentStop: boolean;
}

/** A tool-channel repair outcome (record type A). */
export interface ToolOutcomeEvent {
	tool: string;
	model: string | undefined;
	outcome: "repaired" | "unrepairable";
	rules: string[];
	issues?: string;
	fingerprint?: string;
	profile: string;
	stages: string[];
	/** Owner kind of the tool (built-in, extension or MCP); absent means built-in. */
	owner?: OwnerKind;
}

/** A value-strip rule observed but not applied under `conservative` (record type B). */
export interface ToolObservationEvent {
	tool: string;
	model: string | undefined;
	ruleId: string;
	profile: string;
}

/** A grammar leak promoted to a real call (record type C). */
export interface GrammarRecoveredEvent {
	tool: string;
	model: string | undefined;
	grammar: string;
	profile: string;
	/** The owner kind of the tool the call was promoted to, when known. */
	owner?: OwnerKind;
	/** True when the leak was merged into a native call with empty arguments rather than promoted. */
	split?: boolean;
}

/** Grammar text stripped (type D) or observed (type E) on the message channel. */
export interface GrammarMessageEvent {
	model: string | undefined;
	grammars: string[];
	profile: string;
}

/**
 * A silent stop continued once: whether it was a phantom tool use or a reply
 * of reasoning alone (neither: a leaked call was stripped), and the leak
 * families seen; nothing else.
 */
export interface ContinuationEvent {
	model: string | undefined;
	phantom: boolean;
	reasoningOnly: boolean;
	grammars: string[];
	profile: string;
}

/** An internal error contained at a boundary: the boundary's label and the error's class name, nothing else. */
export interface ContainedErrorEvent {
	label: string;
	error: string;
}

/**
 * The recording points the extension calls. Implementations never throw and
 * never block the tool-call hot path beyond one append.
 */
export interface TelemetryRecorder {
	toolOutcome(event: ToolOutcomeEvent): void;
	toolObservation(event: ToolObservationEvent): void;
	grammarRecovered(event: GrammarRecoveredEvent): void;
	grammarStripped(event: GrammarMessageEvent): void;
	grammarObserved(event: GrammarMessageEvent): void;
	/** Optional so a recorder written for an earlier version still fits. */
	containedError?(event: ContainedErrorEvent): void;
	/** Optional for the same reason. */
	continued?(event: ContinuationEvent): void;
}

/** What the commands need from the running extension. */
export interface SettingsHost {
	/** The live settings object every handler reads. */
	current(): RepairSettings;
	/**
	 * Applies a change to the running session at once and saves it; `notice`
	 * hears of what the user should know about the save (the unreadable file
	 * kept as a backup).
	 */
	update(next: RepairSettings, notice?: (line: string) => void): void;
}
