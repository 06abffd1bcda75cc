/**
 * Every rule ID the repair layer can emit, and the stage it belongs to.
 *
 * Rule IDs are a public, stable vocabulary: they appear in repair notes'
 * telemetry, the diagnostics line, `/repair-stats` and the legacy facade's
 * `rulesFired`. They are written here once; every other module imports the
 * constant, and `docs/rules.md` catalogues each one (a test keeps the two in
 * step). Owner-declared structural preprocessors bring their own IDs.
 */

export const RULE = {
	// envelope: the argument text or wrapper as it arrived
	decodeJson: "envelope.decode-json",
	escapeControlCharacter: "envelope.escape-control-character",
	unwrapSingletonObjectArray: "envelope.unwrap-singleton-object-array",
	unwrapFramedJson: "envelope.unwrap-framed-json",
	completeTruncatedObject: "envelope.complete-truncated-object",
	// envelope, relaxed JSON: lossless spellings of JSON that strict parsing rejects
	dropTrailingComma: "envelope.drop-trailing-comma",
	stripEndToken: "envelope.strip-end-token",
	unwrapDoubledBraces: "envelope.unwrap-doubled-braces",
	readPythonLiteral: "envelope.read-python-literal",
	// owner shim: the tool's own `prepareArguments`
	ownerShim: "owner-shim.prepare-arguments",
	// preprocessing: configured, selector-guided rewrites
	exactAlias: "preprocess.exact-alias",
	filesystemPath: "preprocess.filesystem-path",
	filesystemPathArray: "preprocess.filesystem-path-array",
	stringOrArray: "preprocess.string-or-array",
	scalar: "preprocess.scalar",
	stripAnchorBleed: "stripAnchorBleed",
	stripGrammarTokenLeak: "stripGrammarTokenLeak",
	unknownPreprocessorKind: "preprocess.unknown-kind",
	// the built-in `edit` structural preprocessor; the schema-engine form keeps the same ID
	foldFlatEditFields: "foldFlatEditFields",
	// schema repair: guided by the validator's issues
	// the legacy facade's names for `preprocess.filesystem-path` and `preprocess.exact-alias`
	unwrapMarkdownAutoLink: "unwrapMarkdownAutoLink",
	renameAliasedField: "renameAliasedField",
	parseJsonStringifiedRootObject: "parseJsonStringifiedRootObject",
	wrapRootStringAsObject: "wrapRootStringAsObject",
	dropNullOrUndefinedField: "dropNullOrUndefinedField",
	dropEmptyObjectPlaceholder: "dropEmptyObjectPlaceholder",
	parseJsonStringifiedArray: "parseJsonStringifiedArray",
	parseJsonStringifiedObject: "parseJsonStringifiedObject",
	parseJsonWithRawControlCharacters: "parseJsonWithRawControlCharacters",
	unwrapSameNameWrapper: "unwrapSameNameWrapper",
	unwrapSingletonArray: "unwrapSingletonArray",
	rebuildFlattenedKeys: "rebuildFlattenedKeys",
	wrapBareStringAsArray: "wrapBareStringAsArray",
	dropEmptyStringForOptionalField: "dropEmptyStringForOptionalField",
	// the argument object: a wrapper around the real arguments, keys the tool does not declare
	unwrapArgumentWrapper: "unwrapArgumentWrapper",
	reportUndeclaredKeys: "reportUndeclaredKeys",
	// a lossless scalar conversion made while repairing something else
	convertScalarToSchemaType: "convertScalarToSchemaType",
	// the tool name: a leaked name renamed to the one active tool it matches (`repairToolNames`)
	renameLeakedToolName: "renameLeakedToolName",
	// the message: a native call with empty arguments merged with the same call's arguments leaked as text
	mergeSplitCall: "mergeSplitCall",
	// the agent loop: a turn that ran nothing although the model meant to act is continued once
	continueSilentStop: "continueSilentStop",
	// containment: an internal error the layer caught at a boundary and failed closed on
	containedError: "contained-error",
} as const;

export type RuleKey = keyof typeof RULE;
export type RuleId = (typeof RULE)[RuleKey];

/** Where a rule runs; `grammar` is the message-level recovery of tool calls written as text. */
export type RuleStage =
	| "envelope"
	| "owner-shim"
	| "preprocess"
	| "schema-repair"
	| "tool-name"
	| "continuation"
	| "containment"
	| "grammar";

/** The stage of every rule; a rule without a stage does not compile. */
export const RULE_STAGE: Readonly<Record<RuleId, RuleStage>> = {
	[RULE.decodeJson]: "envelope",
	[RULE.escapeControlCharacter]: "envelope",
	[RULE.unwrapSingletonObjectArray]: "envelope",
	[RULE.unwrapFramedJson]: "envelope",
	[RULE.completeTruncatedObject]: "envelope",
	[RULE.dropTrailingComma]: "envelope",
	[RULE.stripEndToken]: "envelope",
	[RULE.unwrapDoubledBraces]: "envelope",
	[RULE.readPythonLiteral]: "envelope",
	[RULE.ownerShim]: "owner-shim",
	[RULE.exactAlias]: "preprocess",
	[RULE.filesystemPath]: "preprocess",
	[RULE.filesystemPathArray]: "preprocess",
	[RULE.stringOrArray]: "preprocess",
	[RULE.scalar]: "preprocess",
	[RULE.stripAnchorBleed]: "preprocess",
	[RULE.stripGrammarTokenLeak]: "preprocess",
	[RULE.unknownPreprocessorKind]: "preprocess",
	[RULE.foldFlatEditFields]: "preprocess",
	[RULE.unwrapMarkdownAutoLink]: "schema-repair",
	[RULE.parseJsonStringifiedRootObject]: "schema-repair",
	[RULE.wrapRootStringAsObject]: "schema-repair",
	[RULE.renameAliasedField]: "schema-repair",
	[RULE.dropNullOrUndefinedField]: "schema-repair",
	[RULE.dropEmptyObjectPlaceholder]: "schema-repair",
	[RULE.parseJsonStringifiedArray]: "schema-repair",
	[RULE.parseJsonStringifiedObject]: "schema-repair",
	[RULE.parseJsonWithRawControlCharacters]: "schema-repair",
	[RULE.unwrapSameNameWrapper]: "schema-repair",
	[RULE.unwrapSingletonArray]: "schema-repair",
	[RULE.rebuildFlattenedKeys]: "schema-repair",
	[RULE.wrapBareStringAsArray]: "schema-repair",
	[RULE.dropEmptyStringForOptionalField]: "schema-repair",
	[RULE.unwrapArgumentWrapper]: "schema-repair",
	[RULE.reportUndeclaredKeys]: "schema-repair",
	[RULE.convertScalarToSchemaType]: "schema-repair",
	[RULE.renameLeakedToolName]: "tool-name",
	[RULE.mergeSplitCall]: "grammar",
	[RULE.continueSilentStop]: "continuation",
	[RULE.containedError]: "containment",
};

/** The prefix of the message-level recovery rule, one ID per grammar family: `grammarRecovery:<family>`. */
export const GRAMMAR_RECOVERY_RULE_PREFIX = "grammarRecovery:";

export function grammarRecoveryRuleId(grammar: string): string {
	return `${GRAMMAR_RECOVERY_RULE_PREFIX}${grammar}`;
}
