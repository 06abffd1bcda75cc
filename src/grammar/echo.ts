/**
 * Echoes: call text the model did not write itself. A file the model read, a
 * command's output or the user's own message can hold leak markup; when the
 * reply repeats it, that is data being quoted back, never a call, wherever it
 * stands in the reply.
 *
 * An index over the texts of the current turn's tool results and the user's
 * message answers "does this call text appear there?" two ways: the call's
 * text with its whitespace runs folded to one space is a substring of a
 * source folded the same way, or a call with the same name and arguments is
 * written in a source (in any family's grammar, quoted or not).
 */
import { stableSerialize } from "../core/stable-serialize.ts";
import { collectCandidates } from "./parse.ts";
import { isWhitespace, mayHoldMarkup } from "./scan.ts";
import type { EchoIndex, GrammarName, ScanContext } from "./types.ts";
import { GRAMMAR_NAMES } from "./types.ts";

/** `text` with every whitespace run folded to one space and the ends trimmed. */
export function foldWhitespace(text: string): string {
	const out: string[] = [];
	let chunk = 0;
	let i = 0;
	while (i < text.length) {
		if (!isWhitespace(text.charCodeAt(i))) {
			i++;
			continue;
		}
		let j = i + 1;
		while (j < text.length && isWhitespace(text.charCodeAt(j))) j++;
		out.push(text.slice(chunk, i), " ");
		chunk = j;
		i = j;
	}
	out.push(text.slice(chunk));
	return out.join("").trim();
}

function callKey(name: string, args: unknown): string {
	return `${name}\u0000${stableSerialize(args)}`;
}

/** Every call any family reads in `text`, quoted or not: a source quotes what it likes. */
function callKeysIn(text: string, keys: Set<string>): void {
	if (!mayHoldMarkup(text)) return;
	const context: ScanContext = {
		text,
		isInsideFence: () => false,
		enabled: new Set<GrammarName>(GRAMMAR_NAMES),
	};
	for (const candidate of collectCandidates(context)) {
		if (!candidate.stripOnly) keys.add(callKey(candidate.name, candidate.arguments));
	}
}

/** The echo index of the given source texts; built lazily, on the first question. */
export function createEchoIndex(sources: readonly string[]): EchoIndex {
	const texts = sources.filter((source) => typeof source === "string" && source !== "");
	let folded: string[] | undefined;
	let keys: Set<string> | undefined;
	return {
		echoes(callText, call) {
			if (texts.length === 0) return false;
			const needle = foldWhitespace(callText);
			folded ??= texts.map(foldWhitespace);
			if (needle !== "" && folded.some((source) => source.includes(needle))) return true;
			if (call === undefined) return false;
			if (keys === undefined) {
				keys = new Set();
				for (const source of texts) callKeysIn(source, keys);
			}
			return keys.has(callKey(call.name, call.arguments));
		},
	};
}

/** No sources: nothing is an echo. */
export const NO_ECHOES: EchoIndex = { echoes: () => false };
