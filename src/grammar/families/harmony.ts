/**
 * Family `harmony`: gpt-oss's harmony channel format, as gpt-oss chat templates write it.
 *
 * A harmony message is `<|start|>HEADER<|message|>BODY<|end|>`; a call is an
 * assistant message addressed to a function and ended by `<|call|>`:
 *
 *     <|start|>assistant<|channel|>commentary to=functions.read <|constrain|>json<|message|>{"path":"README.md"}<|call|>
 *
 * Recognised variants: the recipient in the role part
 * (`<|start|>assistant to=functions.read<|channel|>commentary json<|message|>`)
 * or in the channel part; `<|constrain|>json`, a plain `json` word or no
 * content type; a missing `<|start|>assistant` (the header then starts at
 * `<|channel|>`); `<|end|>` instead of `<|call|>`; a missing terminator, but
 * only at the very end of the text and only after a complete JSON body.
 *
 * Rules: only a recipient `to=functions.NAME` makes a call (NAME keeps its
 * dots; the driver matches it against the tool set). Channel `commentary` (or
 * none) carries calls; a call in `analysis` is the model's reasoning and is
 * reported with `reasoning: true` (observed, never promoted); `final` is the
 * answer and never a call; other channels are not calls. The body must be a
 * JSON object, used as the arguments as is. A function-addressed commentary
 * header whose body is missing or cut off is a dangling marker: a strip-only
 * candidate over the header (the half-written body text stays). A header cut
 * off by the end of the text counts only while it holds nothing but header
 * words (a recipient, `json`), so prose that merely quotes one is left alone.
 *
 * A body ends at the next harmony token (`<|end|>`, `<|call|>`, `<|start|>`,
 * …), so a restarted message after a truncated one is still read, and the scan
 * resumes there.
 *
 * Linear: the walk visits each `<|` once from a forward-only cursor; a header
 * is at most a few short single-line segments; the body's brace match uses the
 * context's shared, budgeted `BracketMatcher`, limited to the body.
 */
import {
	bracketMatcherFor,
	codeOpeningBrace,
	isPlainObject,
	isWhitespace,
	parseModelJson,
	readIdentifier,
	skipWhitespace,
} from "../scan.ts";
import type { GrammarCandidate, ScanContext } from "../types.ts";

const TOKENS = {
	start: "<|start|>",
	channel: "<|channel|>",
	constrain: "<|constrain|>",
	message: "<|message|>",
	call: "<|call|>",
	end: "<|end|>",
	return: "<|return|>",
} as const;

type TokenName = keyof typeof TOKENS;

const TOKEN_NAMES = Object.keys(TOKENS) as TokenName[];

/** Longest header segment we accept; real headers are a few words. */
const MAX_SEGMENT = 256;
/** At most start, channel and constrain segments before `<|message|>`. */
const MAX_SEGMENTS = 4;
/** A segment holds a role or channel, a recipient and a content type at most; more words is prose. */
const MAX_WORDS = 3;

const RECIPIENT = "to=";
const FUNCTIONS = "functions.";

function tokenAt(text: string, at: number): TokenName | undefined {
	for (const name of TOKEN_NAMES) if (text.startsWith(TOKENS[name], at)) return name;
	return undefined;
}

/**
 * End of a harmony token cut off by the end of the text at `at` (trailing
 * whitespace aside), or -1 when the text goes on.
 */
function cutTokenEnd(text: string, at: number): number {
	if (text.length - at >= 32) return -1;
	const rest = text.slice(at).trimEnd();
	return TOKEN_NAMES.some((name) => TOKENS[name].startsWith(rest)) ? at + rest.length : -1;
}

/** Offset of the next harmony token at or after `from`, or the text length. */
function nextTokenOffset(text: string, from: number): number {
	let at = text.indexOf("<|", from);
	while (at !== -1) {
		if (tokenAt(text, at) !== undefined) return at;
		at = text.indexOf("<|", at + 2);
	}
	return text.length;
}

interface Header {
	/** Offset just after `<|message|>`, or where the text stops when the header is cut off. */
	end: number;
	/** The text ended inside the header. */
	cut: boolean;
	startedWithStart: boolean;
	role: string | undefined;
	channel: string | undefined;
	recipient: string | undefined;
}

function words(segment: string): string[] {
	const out: string[] = [];
	let i = 0;
	while (i < segment.length) {
		while (i < segment.length && isWhitespace(segment.charCodeAt(i))) i++;
		const from = i;
		while (i < segment.length && !isWhitespace(segment.charCodeAt(i))) i++;
		if (i > from) out.push(segment.slice(from, i));
	}
	return out;
}

/** After the role or channel name, a header holds only a recipient and a content type. */
function isHeaderTailWord(word: string): boolean {
	return word.startsWith(RECIPIENT) || word === "json";
}

/** Reads the header opening with `<|start|>` or `<|channel|>` at `at`; undefined when it is not one. */
function readHeader(text: string, at: number): Header | undefined {
	const header: Header = {
		end: text.length,
		cut: false,
		startedWithStart: false,
		role: undefined,
		channel: undefined,
		recipient: undefined,
	};
	let pos = at;
	for (let segments = 0; segments < MAX_SEGMENTS; segments++) {
		const token = tokenAt(text, pos);
		if (token === undefined) {
			const cutEnd = segments > 0 ? cutTokenEnd(text, pos) : -1;
			return cutEnd === -1 ? undefined : { ...header, cut: true, end: cutEnd };
		}
		if (token === "message") {
			if (segments === 0) return undefined;
			return { ...header, end: pos + TOKENS.message.length };
		}
		if (token === "start" ? segments > 0 : token !== "channel" && token !== "constrain") return undefined;
		if (token === "channel" && header.channel !== undefined) return undefined;
		const segStart = pos + TOKENS[token].length;
		const next = text.indexOf("<|", segStart);
		const segEnd = next === -1 ? text.length : next;
		if (segEnd - segStart > MAX_SEGMENT) return undefined;
		// Headers are one line: a line break is allowed only where the text ends.
		let segment = text.slice(segStart, segEnd);
		const lineBreak = segment.indexOf("\n");
		const ends = next === -1 || lineBreak !== -1;
		if (lineBreak !== -1) {
			if (skipWhitespace(text, segStart + lineBreak) !== text.length) return undefined;
			segment = segment.slice(0, lineBreak);
		}
		const parts = words(segment);
		if (parts.length > MAX_WORDS) return undefined;
		if (token === "start") {
			header.startedWithStart = true;
			header.role = parts[0];
		} else if (token === "channel") {
			header.channel = parts[0] ?? "";
		}
		for (const word of parts) if (word.startsWith(RECIPIENT)) header.recipient = word.slice(RECIPIENT.length);
		if (ends) {
			// A header cut off by the end of the text is markup only while its words are header words.
			const tail = token === "constrain" ? parts : parts.slice(1);
			if (!tail.every(isHeaderTailWord)) return undefined;
			return { ...header, cut: true, end: segStart + segment.trimEnd().length };
		}
		pos = next;
	}
	return undefined;
}

/** Tool name of a `functions.NAME` recipient, or undefined for any other recipient. */
function functionName(recipient: string | undefined): string | undefined {
	if (recipient === undefined || !recipient.startsWith(FUNCTIONS)) return undefined;
	const ident = readIdentifier(recipient, FUNCTIONS.length);
	return ident && ident.end === recipient.length ? ident.name : undefined;
}

type ChannelKind = "call" | "reasoning" | "none";

function channelKind(header: Header): ChannelKind {
	if (header.startedWithStart && header.role !== undefined && header.role !== "assistant") return "none";
	if (header.channel === undefined || header.channel === "commentary") return "call";
	if (header.channel === "analysis") return "reasoning";
	return "none";
}

interface Step {
	found?: GrammarCandidate;
	resume: number;
}

/** Reads the body after a function-addressed header; `at` is the header start. */
function readCall(context: ScanContext, at: number, header: Header, name: string, kind: ChannelKind): Step {
	const text = context.text;
	const dangling: GrammarCandidate = {
		name: "",
		arguments: {},
		grammar: "harmony",
		start: at,
		end: header.end,
		stripOnly: true,
	};
	const danglingStep = (resume: number): Step => (kind === "call" ? { found: dangling, resume } : { resume });
	if (header.cut) return danglingStep(text.length);
	const bodyEnd = nextTokenOffset(text, header.end);
	const body = skipWhitespace(text, header.end, bodyEnd);
	if (body === bodyEnd) return bodyEnd === text.length ? danglingStep(bodyEnd) : { resume: bodyEnd };
	if (text.charCodeAt(body) !== codeOpeningBrace) return { resume: bodyEnd };
	const close = bracketMatcherFor(context).closeOf("{", body, bodyEnd);
	if (close === -1) return danglingStep(bodyEnd);
	const parsed = parseModelJson(text.slice(body, close));
	if (!isPlainObject(parsed)) return { resume: bodyEnd };
	if (skipWhitespace(text, close, bodyEnd) !== bodyEnd) return { resume: bodyEnd };
	let end = close;
	if (bodyEnd < text.length) {
		const terminator = tokenAt(text, bodyEnd);
		if (terminator !== "call" && terminator !== "end") return { resume: bodyEnd };
		end = bodyEnd + TOKENS[terminator].length;
	}
	const found: GrammarCandidate = { name, arguments: parsed, grammar: "harmony", start: at, end };
	if (kind === "reasoning") found.reasoning = true;
	return { found, resume: end };
}

/** Every Harmony call in the scanned text. */
export function parseHarmony(context: ScanContext): GrammarCandidate[] {
	const text = context.text;
	const out: GrammarCandidate[] = [];
	let cursor = 0;
	while (cursor < text.length) {
		const at = text.indexOf("<|", cursor);
		if (at === -1) break;
		const token = tokenAt(text, at);
		if (token !== "start" && token !== "channel") {
			cursor = at + 2;
			continue;
		}
		const header = readHeader(text, at);
		if (!header) {
			cursor = at + TOKENS[token].length;
			continue;
		}
		const name = functionName(header.recipient);
		const kind = channelKind(header);
		if (name === undefined || kind === "none" || context.isInsideFence(at)) {
			cursor = header.end;
			continue;
		}
		const step = readCall(context, at, header, name, kind);
		if (step.found) out.push(step.found);
		cursor = Math.max(step.resume, at + 2);
	}
	return out;
}
