/**
 * Family `kimi-xtml`: Kimi K3's XTML tool channel, which K3 prints as text
 * when the serving side has no K3 parser (colibri#1143, sigit#92):
 *
 *   <|open|>tools<|sep|>
 *   <|open|>call tool="read" index="1"<|sep|>
 *   <|open|>argument key="path" type="string"<|sep|>src/a.ts<|close|>argument<|sep|>
 *   <|open|>argument key="limit" type="number"<|sep|>20<|close|>argument<|sep|>
 *   <|close|>call<|sep|>
 *   <|close|>tools<|sep|>
 *
 * A call's arguments are either `argument` elements typed by their `type`
 * attribute (`string` is the text verbatim; `number`, `integer`, `boolean`,
 * `null`, `object` and `array` must be exactly a JSON value of that type; no
 * `type` keeps the bytes and leaves the schema to decide), or one `json` element holding the
 * argument object. A `tools` block is a call only when it is closed and every
 * call in it reads cleanly: a named tool, keyed arguments, values of their
 * declared type, no stray text between elements, no key twice. Anything else
 * (an unclosed block, a wrong type, a nested token) refuses the whole block:
 * its tags become strip-only markers and nothing runs. A block inside K3's
 * `think` channel is reasoning: observed, never run.
 *
 * The tokens are special tokens and matched exactly (case-sensitive).
 *
 * Linear: one forward pass over the `<|` occurrences reads every tag (a tag's
 * header ends at the next `<|`, so no header is read twice); closers are found
 * in next-closer tables built in one backward pass, and the block walk only
 * moves forward.
 */
import {
	argumentsFromJsonBody,
	codeMinus,
	codeUnderscore,
	defineOwn,
	forwardFinder,
	isAsciiLetter,
	isBlankText,
	isDigit,
	isPlainObject,
	nextCloserTable,
	parseModelJson,
	readValueBytes,
} from "../scan.ts";
import type { GrammarCandidate, ScanContext } from "../types.ts";

const OPEN = "<|open|>";
const CLOSE = "<|close|>";
const SEP = "<|sep|>";

/** The elements of the tool channel; other channels (`think`, `response`, `message`) are never stripped. */
const TOOL_ELEMENTS: ReadonlySet<string> = new Set(["tools", "call", "argument", "json"]);

interface XtmlTag {
	start: number;
	/** After `<|sep|>`; for a tag cut off before it, where its header stops. */
	end: number;
	name: string;
	closing: boolean;
	/** The header ends with `<|sep|>`. */
	complete: boolean;
	/** Attribute text (after the name, before `<|sep|>`). */
	attrStart: number;
	attrEnd: number;
}

function isNameChar(code: number): boolean {
	return isAsciiLetter(code) || isDigit(code) || code === codeUnderscore || code === codeMinus;
}

/** Every XTML tag, ascending: one pass over the `<|` occurrences. */
function findTags(text: string): XtmlTag[] {
	const tags: XtmlTag[] = [];
	if (!text.includes(OPEN) && !text.includes(CLOSE)) return tags;
	const nextToken = forwardFinder(text, "<|");
	const nextNewline = forwardFinder(text, "\n");
	let at = nextToken(0);
	while (at !== -1) {
		const closing = text.startsWith(CLOSE, at);
		if (!closing && !text.startsWith(OPEN, at)) {
			at = nextToken(at + 2);
			continue;
		}
		const nameStart = at + (closing ? CLOSE.length : OPEN.length);
		let nameEnd = nameStart;
		while (nameEnd < text.length && isNameChar(text.charCodeAt(nameEnd))) nameEnd++;
		const following = nextToken(nameStart);
		const headerEnd = following === -1 ? text.length : following;
		const complete = following !== -1 && text.startsWith(SEP, following) && nameEnd > nameStart;
		// A cut-off header is debris up to its line end at most, never the prose after it.
		const newline = nextNewline(nameStart);
		const debrisEnd = newline !== -1 && newline < headerEnd ? newline : headerEnd;
		tags.push({
			start: at,
			end: complete ? headerEnd + SEP.length : debrisEnd,
			name: text.slice(nameStart, nameEnd).toLowerCase(),
			closing,
			complete,
			attrStart: nameEnd,
			attrEnd: complete ? headerEnd : debrisEnd,
		});
		at = following === -1 ? -1 : nextToken(complete ? headerEnd + SEP.length : following);
	}
	return tags;
}

const ENTITIES: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", "#39": "'" };

/** XML entity references in an attribute value decoded (K3's renderer escapes `&`, `<`, `>` and quotes there). */
function decodeEntities(value: string): string {
	if (!value.includes("&")) return value;
	return value.replace(/&(amp|lt|gt|quot|apos|#39);/g, (match, name: string) => ENTITIES[name] ?? match);
}

/** `attr="…"` inside a tag header, entity-decoded; undefined when absent. */
function attribute(text: string, tag: XtmlTag, attr: string): string | undefined {
	const header = text.slice(tag.attrStart, tag.attrEnd);
	const pattern = new RegExp(`(?:^|\\s)${attr}\\s*=\\s*"([^"]*)"`);
	const match = pattern.exec(header);
	return match?.[1] === undefined ? undefined : decodeEntities(match[1]);
}

/** Declared argument types other than `string`, each with the test its JSON value must pass. */
const TYPE_TESTS: Readonly<Record<string, (value: unknown) => boolean>> = {
	number: (value) => typeof value === "number",
	float: (value) => typeof value === "number",
	integer: (value) => Number.isInteger(value),
	boolean: (value) => typeof value === "boolean",
	null: (value) => value === null,
	object: (value) => isPlainObject(value),
	array: (value) => Array.isArray(value),
};

/** The value of one argument of declared `type`: the text itself for `string`, else exactly a JSON value of that type. */
function typedValue(raw: string, type: string): { ok: true; value: unknown } | { ok: false } {
	if (type === "string") return { ok: true, value: raw };
	const test = Object.hasOwn(TYPE_TESTS, type) ? TYPE_TESTS[type] : undefined;
	if (!test) return { ok: false };
	const value = parseModelJson(raw.trim());
	return value !== undefined && test(value) ? { ok: true, value } : { ok: false };
}

interface XtmlCall {
	name: string;
	arguments: Record<string, unknown>;
	rawArguments: Record<string, string>;
}

/** The call between tag indexes `open` and `close`, or undefined when it does not read cleanly. */
function readCall(text: string, tags: readonly XtmlTag[], open: number, close: number): XtmlCall | undefined {
	const opener = tags[open] as XtmlTag;
	const name = attribute(text, opener, "tool")?.trim();
	if (!name) return undefined;
	const args: Record<string, unknown> = {};
	const raw: Record<string, string> = {};
	let cursor = opener.end;
	let k = open + 1;
	let sawJson = false;
	let sawArgument = false;
	while (k < close) {
		const tag = tags[k] as XtmlTag;
		const end = tags[k + 1];
		// Every element is `<|open|>X…<|sep|>body<|close|>X<|sep|>` with no tag inside its body.
		if (!tag.complete || tag.closing || k + 1 >= close || !end?.complete || !end.closing || end.name !== tag.name) {
			return undefined;
		}
		if (!isBlankText(text, cursor, tag.start)) return undefined;
		const body = text.slice(tag.end, end.start);
		if (tag.name === "argument") {
			const key = attribute(text, tag, "key");
			if (key === undefined || key === "" || Object.hasOwn(args, key)) return undefined;
			const type = attribute(text, tag, "type")?.trim().toLowerCase();
			if (type === undefined) {
				// The separator tokens delimit the value, so all of its bytes are the model's.
				const read = readValueBytes(body, "strict");
				defineOwn(args, key, read.value);
				defineOwn(raw, key, read.raw);
			} else {
				const typed = typedValue(body, type);
				if (!typed.ok) return undefined;
				defineOwn(args, key, typed.value);
			}
			sawArgument = true;
		} else if (tag.name === "json") {
			if (sawJson || sawArgument) return undefined;
			const parsed = argumentsFromJsonBody(body);
			if (Object.keys(parsed).length === 0 && body.trim() !== "{}") return undefined;
			for (const [key, value] of Object.entries(parsed)) defineOwn(args, key, value);
			sawJson = true;
		} else {
			return undefined;
		}
		cursor = end.end;
		k += 2;
	}
	if (sawJson && sawArgument) return undefined;
	if (!isBlankText(text, cursor, (tags[close] as XtmlTag).start)) return undefined;
	return { name, arguments: args, rawArguments: raw };
}

/** The calls of the block between tag indexes `open` and `close`, or undefined when one does not read. */
function readBlock(text: string, tags: readonly XtmlTag[], closeCall: Int32Array, open: number, close: number) {
	const calls: XtmlCall[] = [];
	let cursor = (tags[open] as XtmlTag).end;
	let k = open + 1;
	while (k < close) {
		const tag = tags[k] as XtmlTag;
		if (!tag.complete || tag.closing || tag.name !== "call" || !isBlankText(text, cursor, tag.start)) return undefined;
		const end = closeCall[k + 1] ?? -1;
		if (end === -1 || end >= close) return undefined;
		const call = readCall(text, tags, k, end);
		if (!call) return undefined;
		calls.push(call);
		cursor = (tags[end] as XtmlTag).end;
		k = end + 1;
	}
	if (calls.length === 0 || !isBlankText(text, cursor, (tags[close] as XtmlTag).start)) return undefined;
	return calls;
}

/** The `think` channel spans: opener to closer (or the end); a closer with no opener covers what precedes it. */
function thinkSpans(tags: readonly XtmlTag[], length: number): Array<{ start: number; end: number }> {
	const spans: Array<{ start: number; end: number }> = [];
	let openAt = -1;
	let covered = 0;
	for (const tag of tags) {
		if (!tag.complete || tag.name !== "think") continue;
		if (!tag.closing) {
			if (openAt === -1) openAt = tag.start;
			continue;
		}
		const start = openAt === -1 ? covered : openAt;
		spans.push({ start, end: tag.end });
		covered = tag.end;
		openAt = -1;
	}
	if (openAt !== -1) spans.push({ start: openAt, end: length });
	return spans;
}

/** Every Kimi K3 XTML call in the scanned text. */
export function parseKimiXtml(context: ScanContext): GrammarCandidate[] {
	const { text } = context;
	const tags = findTags(text);
	if (tags.length === 0) return [];
	const closeTools = nextCloserTable(tags, "tools");
	const closeCall = nextCloserTable(tags, "call");
	const think = thinkSpans(tags, text.length);
	let span = 0;
	const inThink = (offset: number): boolean => {
		while (span < think.length && (think[span]?.end ?? 0) <= offset) span++;
		const current = think[span];
		return current !== undefined && current.start <= offset;
	};
	const found: GrammarCandidate[] = [];
	const markers: GrammarCandidate[] = [];
	let k = 0;
	while (k < tags.length) {
		const tag = tags[k] as XtmlTag;
		if (context.isInsideFence(tag.start)) {
			k++;
			continue;
		}
		const reasoning = inThink(tag.start);
		if (tag.complete && !tag.closing && tag.name === "tools") {
			const close = closeTools[k + 1] ?? -1;
			const calls = close === -1 ? undefined : readBlock(text, tags, closeCall, k, close);
			if (calls && close !== -1) {
				const end = (tags[close] as XtmlTag).end;
				for (const call of calls) {
					const candidate: GrammarCandidate = {
						name: call.name,
						arguments: call.arguments,
						grammar: "kimi-xtml",
						start: tag.start,
						end,
					};
					if (Object.keys(call.rawArguments).length > 0) candidate.rawArguments = call.rawArguments;
					if (reasoning) candidate.reasoning = true;
					found.push(candidate);
				}
				k = close + 1;
				continue;
			}
		}
		if (TOOL_ELEMENTS.has(tag.name)) {
			const marker: GrammarCandidate = {
				name: "",
				arguments: {},
				grammar: "kimi-xtml",
				start: tag.start,
				end: tag.end,
				stripOnly: true,
			};
			if (reasoning) marker.reasoning = true;
			markers.push(marker);
		}
		k++;
	}
	return [...found, ...markers];
}
