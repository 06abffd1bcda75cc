/**
 * Alias moves: a value sent under a known alias of a missing canonical key
 * moves to that key, in one copied record; the first usable alias in the
 * list wins.
 */
import { trimJsonWhitespace } from "../json-text.ts";
import { defineOwn, isRecord, parseModelJson } from "../json-value.ts";
import { parseSelector, type SelectorSegment } from "../selectors.ts";
import type { AliasPreprocessor } from "../types.ts";
import { type Rewrite, shallowCopy } from "./copy-on-write.ts";

interface AliasTarget {
	parent: readonly SelectorSegment[];
	canonical: string;
}

/** The records that hold the canonical key, and its name; `undefined` for the root or a wildcard, which name no key. */
export function aliasTarget(preprocessor: AliasPreprocessor): AliasTarget | undefined {
	const segments = parseSelector(preprocessor.selector);
	const last = segments.at(-1);
	if (last === undefined || last.kind !== "key") return undefined;
	return { parent: segments.slice(0, -1), canonical: last.key };
}

/** The alias whose value moves onto the missing canonical key of `record`, if any. */
export function chosenAlias(record: unknown, canonical: string, preprocessor: AliasPreprocessor): string | undefined {
	if (!isRecord(record) || !canonicalIsMissing(record[canonical], preprocessor)) return undefined;
	return preprocessor.aliases.find((name) => name in record && aliasValueUsable(record[name], preprocessor));
}

export function moveAlias(
	record: unknown,
	canonical: string,
	preprocessor: AliasPreprocessor,
	toolName: string,
): Rewrite | undefined {
	const alias = chosenAlias(record, canonical, preprocessor);
	if (alias === undefined) return undefined;
	const source = record as Record<string, unknown>;
	const moved = shallowCopy(source) as Record<string, unknown>;
	delete moved[alias];
	defineOwn(moved, canonical, source[alias]);
	return { value: moved, note: aliasNote(alias, canonical, toolName) };
}

function canonicalIsMissing(value: unknown, preprocessor: AliasPreprocessor): boolean {
	if (value === undefined || value === null) {
		return true;
	}
	return preprocessor.emptyEquivalentToMissing === true && value === "";
}

function aliasValueUsable(value: unknown, preprocessor: AliasPreprocessor): boolean {
	if (value === "") {
		return false;
	}
	switch (preprocessor.accepts) {
		case undefined:
			return value !== undefined && value !== null;
		// A list or record sent as its JSON text (pi#5698) is that container; the schema repair parses it once moved.
		case "array":
			return Array.isArray(value) || Array.isArray(parsedText(value));
		case "object":
			return isRecord(value) || isRecord(parsedText(value));
		case "string":
		case "number":
		case "boolean":
			return typeof value === preprocessor.accepts;
	}
}

/** The value a JSON container text encodes; `undefined` for anything else. */
function parsedText(value: unknown): unknown {
	if (typeof value !== "string") return undefined;
	const trimmed = trimJsonWhitespace(value);
	const first = trimmed[0];
	return first === "[" || first === "{" ? parseModelJson(trimmed) : undefined;
}

function aliasNote(alias: string, canonical: string, toolName: string): string {
	return `The ${toolName} input used the key "${alias}" where the canonical key is "${canonical}"; the value was moved to "${canonical}". Use "${canonical}" in future calls.`;
}
