/**
 * MiniMax M3's element-style arguments, read as the model wrote them.
 *
 * M3 writes each argument as an element named by its key (`<path>src</path>`)
 * instead of a `parameter` tag; a mapping becomes child elements named by
 * their keys, a list `<item>` children, a string its text verbatim (never
 * escaped), a number or boolean its JSON text. Its namespace token
 * `]<]minimax[>[` stands before every structural tag (ml-explore/mlx-lm#1416,
 * smg-project/smg#1815, vLLM's MiniMax M3 parser), so when the token is there,
 * only a tag behind it is structure: `<div>` in a string is the string's
 * text. Without the token, any `<name>` tag is structure, so a tag inside a
 * leaf's text could be either and refuses the body.
 *
 * A body is read only when it is elements from end to end; anything else
 * refuses it (undefined), so no parameter is ever silently dropped: text
 * between elements or beside child elements, an element left open, a closer
 * without its opener, a key twice, a leaf that holds its own closing tag, or
 * nesting past `MAX_ELEMENT_DEPTH`.
 *
 * Without a schema, `<item>` children make a list and other children an
 * object; with one, `schema-typing.ts` reads the element's source again and
 * types it from the schema (a nested element the schema does not declare is
 * then refused there). Leaf values are the text verbatim.
 *
 * Linear per nesting level: every search moves forward from the element's
 * start, and the depth is capped.
 */
import {
	codeColon,
	codeDot,
	codeGreaterThan,
	codeLessThan,
	codeMinus,
	codeSlash,
	defineOwn,
	isIdentifierPart,
	skipWhitespace,
} from "../scan.ts";

/** MiniMax M3's namespace token, written before every tag of its tool calls. */
export const M3_NAMESPACE = "]<]minimax[>[";
/** Element nesting deeper than this is refused rather than read. */
const MAX_ELEMENT_DEPTH = 8;

/** One element's content: its text, or its child elements; `inner` is the content exactly as written. */
export interface ElementNode {
	inner: string;
	/** The text verbatim, when the element holds no child element. */
	text?: string;
	/** The child elements in order, when it holds some. */
	children?: Array<{ name: string; node: ElementNode }>;
}

function isElementNameChar(code: number): boolean {
	return isIdentifierPart(code) || code === codeMinus || code === codeDot || code === codeColon;
}

/** Reads elements of one body; `namespaced` when the body carries the M3 token, so only tags behind it are structure. */
class ElementReader {
	private readonly body: string;
	private readonly namespaced: boolean;
	private readonly prefix: string;

	constructor(body: string, namespaced: boolean) {
		this.body = body;
		this.namespaced = namespaced;
		this.prefix = namespaced ? M3_NAMESPACE : "";
	}

	/** The end of a tag name starting at `at` when `>` follows it directly, else -1. */
	private nameEnd(at: number): number {
		const { body } = this;
		let i = at;
		while (i < body.length && isElementNameChar(body.charCodeAt(i))) i++;
		return i > at && body.charCodeAt(i) === codeGreaterThan ? i : -1;
	}

	/** The element opener `<name>` (behind the token when namespaced) at `at`: its name and the offset after `>`. */
	openerAt(at: number): { name: string; end: number } | undefined {
		const { body, prefix } = this;
		if (!body.startsWith(prefix, at)) return undefined;
		const lt = at + prefix.length;
		if (body.charCodeAt(lt) !== codeLessThan) return undefined;
		const end = this.nameEnd(lt + 1);
		return end === -1 ? undefined : { name: body.slice(lt + 1, end), end: end + 1 };
	}

	/** True when an element opener or closer (`<name>`, `</name>`) stands in `[from, to)`. */
	private holdsTag(from: number, to: number): boolean {
		const { body } = this;
		for (let lt = body.indexOf("<", from); lt !== -1 && lt < to; lt = body.indexOf("<", lt + 1)) {
			const name = body.charCodeAt(lt + 1) === codeSlash ? lt + 2 : lt + 1;
			if (this.nameEnd(name) !== -1) return true;
		}
		return false;
	}

	private closerOf(name: string): string {
		return `${this.prefix}</${name}>`;
	}

	/**
	 * Child elements from `at` to `stop` (the offset of the closer that ends
	 * them, or the body's end), whitespace between them allowed and nothing
	 * else. Undefined when anything else stands there.
	 */
	children(
		at: number,
		stop: (i: number) => boolean,
		depth: number,
	): { children: ElementNode["children"]; end: number } | undefined {
		if (depth > MAX_ELEMENT_DEPTH) return undefined;
		const children: NonNullable<ElementNode["children"]> = [];
		let i = skipWhitespace(this.body, at);
		while (!stop(i)) {
			const opener = this.openerAt(i);
			if (!opener) return undefined;
			const read = this.element(opener.end, opener.name, depth + 1);
			if (!read) return undefined;
			children.push({ name: opener.name, node: read.node });
			i = skipWhitespace(this.body, read.end);
		}
		return { children, end: i };
	}

	/** The element `name` whose content starts at `at`, up to and including its closer. */
	element(at: number, name: string, depth: number): { node: ElementNode; end: number } | undefined {
		const { body } = this;
		const closer = this.closerOf(name);
		// Namespaced, the next token decides: the element's closer (a leaf) or a child opener; plain, the first tag does.
		const next = this.namespaced ? body.indexOf(M3_NAMESPACE, at) : skipWhitespace(body, at);
		if (next === -1) return undefined;
		if (this.openerAt(next)) {
			if (body.slice(at, next).trim() !== "") return undefined;
			const read = this.children(next, (i) => i >= body.length || body.startsWith(closer, i), depth);
			if (!read || !body.startsWith(closer, read.end)) return undefined;
			return { node: { inner: body.slice(at, read.end), children: read.children }, end: read.end + closer.length };
		}
		const close = this.namespaced ? (body.startsWith(closer, next) ? next : -1) : body.indexOf(closer, at);
		if (close === -1) return undefined;
		const text = body.slice(at, close);
		// A leaf that holds its own closing tag could end at either one: ambiguous.
		if (text.includes(`</${name}>`)) return undefined;
		// Without the token, a tag in a leaf may be structure or text: text beside elements, or a lost opener.
		if (!this.namespaced && this.holdsTag(at, close)) return undefined;
		return { node: { inner: text, text }, end: close + closer.length };
	}
}

/**
 * The value of a node without a schema: its text, a list of `<item>`
 * children, or an object of the other children; undefined when an object
 * would hold a key twice.
 */
function plainValueOf(node: ElementNode): unknown {
	if (node.children === undefined) return node.text;
	const values: unknown[] = [];
	for (const child of node.children) {
		const value = plainValueOf(child.node);
		if (value === undefined) return undefined;
		values.push(value);
	}
	if (node.children.every((child) => child.name === "item")) return values;
	const object: Record<string, unknown> = {};
	for (const [index, child] of node.children.entries()) {
		if (Object.hasOwn(object, child.name)) return undefined;
		defineOwn(object, child.name, values[index]);
	}
	return object;
}

/** True when the body carries M3's namespace token. */
function isNamespaced(body: string): boolean {
	return body.includes(M3_NAMESPACE);
}

/**
 * Element-style arguments of an invoke body: each top-level element's value
 * (text, or the schema-less reading of its children) in `args`, and in `raw`
 * a leaf's trimmed text or an element's content exactly as written, so the
 * schema can type both later. Undefined when the body is not exactly a
 * sequence of elements.
 */
export function readElementArguments(
	rawBody: string,
): { args: Record<string, unknown>; raw: Record<string, string> } | undefined {
	const namespaced = isNamespaced(rawBody);
	// The token also precedes the invoke closer, which ends the body.
	const trimmed = rawBody.trimEnd();
	const body = namespaced && trimmed.endsWith(M3_NAMESPACE) ? trimmed.slice(0, -M3_NAMESPACE.length) : rawBody;
	const reader = new ElementReader(body, namespaced);
	if (!reader.openerAt(skipWhitespace(body, 0))) return undefined;
	const read = reader.children(0, (i) => i >= body.length, 0);
	if (!read?.children) return undefined;
	const args: Record<string, unknown> = {};
	const raw: Record<string, string> = {};
	for (const { name, node } of read.children) {
		const value = plainValueOf(node);
		if (value === undefined || Object.hasOwn(args, name)) return undefined;
		defineOwn(args, name, value);
		defineOwn(raw, name, node.text === undefined ? node.inner : node.text.trim());
	}
	return { args, raw };
}

/** True when a parameter's source text is element markup (it starts with a tag or the M3 token). */
export function isElementSource(source: string): boolean {
	const first = skipWhitespace(source, 0);
	return source.startsWith(M3_NAMESPACE, first) || source.charCodeAt(first) === codeLessThan;
}

/**
 * A parameter's element content (`raw` of `readElementArguments`) read
 * again as a node with child elements; undefined when it is not exactly a
 * sequence of elements.
 */
export function readElementContent(source: string): ElementNode | undefined {
	const reader = new ElementReader(source, isNamespaced(source));
	const read = reader.children(0, (i) => i >= source.length, 0);
	if (!read?.children || read.children.length === 0) return undefined;
	return { inner: source, children: read.children };
}
