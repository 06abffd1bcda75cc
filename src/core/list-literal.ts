/**
 * The one list-literal predicate. A string that reads as a Python or JS list
 * or tuple literal (`['a', 'b']`, `("a",)`, a cut `["a", "b"`) is a list the
 * model wrote as text, never one item: the `string-or-array` preprocessor, the
 * root-string wrap and the engine's array wrap all refuse to wrap it.
 */
import { unwrapMarkdownAutoLinks } from "./markdown-links.ts";

// A tuple opens with a quoted item or a number followed by `,` or `)`, or closes at once: `(1|2)` and a subshell stay text.
const TUPLE_OPENING = /^\(\s*(?:\)|(["'])(?:\\.|(?!\1)[^\\])*\1\s*[,)]|-?\d[\d.]*\s*,)/;

/** True when `text`, leading whitespace ignored, opens like a list or tuple literal. */
export function readsAsListLiteral(text: string): boolean {
	const trimmed = text.trimStart();
	if (trimmed.startsWith("(")) return TUPLE_OPENING.test(trimmed);
	// A markdown link to itself (`[a.md](http://a.md)`) is a path, not a list.
	return trimmed.startsWith("[") && unwrapMarkdownAutoLinks(trimmed).startsWith("[");
}
