/**
 * The one structured-data predicate. A string that reads as a Python or JS
 * list or tuple literal (`['a', 'b']`, `("a",)`, a cut `["a", "b"`), a JSON
 * object, or a Java/C-style brace list (`{"-v", "--no-strict"}`, `{1, 2}`),
 * also under layers of JSON string quoting (`"\"['a', 'b']\""`), is data the
 * model wrote as text, never one item: the `string-or-array` preprocessor, the
 * root-string wrap and the engine's array wrap all refuse to wrap it.
 */
import { parseModelJson } from "./json-value.ts";
import { unwrapMarkdownAutoLinks } from "./markdown-links.ts";

// A tuple opens with a quoted item or a number followed by `,` or `)`, or closes at once: `(1|2)` and a subshell stay text.
const TUPLE_OPENING = /^\(\s*(?:\)|(["'])(?:\\.|(?!\1)[^\\])*\1\s*[,)]|-?\d[\d.]*\s*,)/;
// An object or brace list opens with a quote or a number item, or closes at once: a glob's `{src,test}` stays text.
const BRACE_OPENING = /^\{\s*(?:\}|["']|-?\d[\d.]*\s*[,}])/;
// How many layers of quoting are looked through; each layer is a whole JSON string or one pair of quotes.
const MAX_QUOTING_LAYERS = 8;

/** True when `text`, leading whitespace ignored, opens like a list or tuple literal. */
export function readsAsListLiteral(text: string): boolean {
	const trimmed = text.trimStart();
	if (trimmed.startsWith("(")) return TUPLE_OPENING.test(trimmed);
	// A markdown link to itself (`[a.md](http://a.md)`) is a path, not a list.
	return trimmed.startsWith("[") && unwrapMarkdownAutoLinks(trimmed).startsWith("[");
}

/**
 * True when `text` reads as a list, tuple, object or brace-list literal at
 * some layer of quoting: a whole JSON string literal is decoded, and one pair
 * of enclosing `'` or `` ` `` quotes is looked through, up to eight layers.
 */
export function readsAsStructuredData(text: string): boolean {
	let layer = text;
	for (let depth = 0; depth < MAX_QUOTING_LAYERS; depth++) {
		if (readsAsListLiteral(layer) || BRACE_OPENING.test(layer.trimStart())) return true;
		const inner = insideQuotes(layer.trim());
		if (inner === undefined) return false;
		layer = inner;
	}
	return false;
}

/** The text inside one whole JSON string literal or one pair of `'`/`` ` `` quotes; `undefined` otherwise. */
function insideQuotes(text: string): string | undefined {
	const quote = text[0];
	if (text.length < 2 || text.at(-1) !== quote) return undefined;
	if (quote === '"') {
		const parsed = parseModelJson(text);
		return typeof parsed === "string" ? parsed : undefined;
	}
	return quote === "'" || quote === "`" ? text.slice(1, -1) : undefined;
}
