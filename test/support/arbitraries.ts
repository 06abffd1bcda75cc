/**
 * fast-check arbitraries for tool-call arguments, shared by the core
 * property tests, the fuzz campaign and the drift test against pi's own
 * validator.
 *
 * `validArgs(tool)` builds arguments pi's schema accepts; `malformedArgs(tool)`
 * takes valid arguments and applies one or more of the classic model
 * mistakes (aliases, nulls, stringified arrays, flat edit fields, root
 * strings, encoded or truncated envelopes, markdown links, singleton arrays);
 * `hostileJson` produces arbitrary JSON with the awkward keys and characters
 * (`__proto__`, `constructor`, NUL) the pipeline must treat as inert data.
 */
import fc from "fast-check";
import {
	BUILTIN_TOOL_NAMES,
	type BuiltinToolName,
	COMMAND_ALIASES,
	CONTENT_ALIASES,
	EDITS_ALIASES,
	FIND_PATTERN_ALIASES,
	GREP_PATTERN_ALIASES,
	LS_PATH_ALIASES,
	NEW_TEXT_ALIASES,
	OLD_TEXT_ALIASES,
	PATH_ALIASES,
} from "../../src/core/builtin-tables.ts";

export const builtinToolName: fc.Arbitrary<BuiltinToolName> = fc.constantFrom(...BUILTIN_TOOL_NAMES);

/** Model IDs that switch the gated preprocessors on and off. */
export const modelId: fc.Arbitrary<string | undefined> = fc.constantFrom(
	undefined,
	"glm-4.6",
	"kimi-k2-instruct",
	"MiniMax-M2",
	"claude-opus-4-8",
	"gpt-5",
);

export const policyProfile = fc.constantFrom("conservative" as const, "adaptive" as const, "recover" as const);

const awkwardKey = fc.constantFrom("__proto__", "constructor", "prototype", "toString", "\u0000", "a\u0000b", "");
/** Object keys: mostly ordinary identifiers, sometimes the awkward ones. */
export const objectKey: fc.Arbitrary<string> = fc.oneof(
	{ weight: 6, arbitrary: fc.string({ minLength: 1, maxLength: 8 }) },
	{ weight: 2, arbitrary: fc.constantFrom("path", "command", "edits", "content", "pattern", "limit", "offset") },
	{ weight: 1, arbitrary: awkwardKey },
);

const text = fc.oneof(
	{ weight: 5, arbitrary: fc.string({ maxLength: 24 }) },
	{
		weight: 1,
		arbitrary: fc.constantFrom("\u0000", "line\nbreak", "[a.md](http://a.md)", "^/x$", "  padded  ", "[1, 2]"),
	},
);

/** Arbitrary JSON values with awkward keys; objects are built so `__proto__` stays an own data key. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
	value: fc.oneof(
		{ depthSize: "small", withCrossShrink: true },
		fc.constant(null),
		fc.boolean(),
		fc.integer(),
		fc.double({ noNaN: true, noDefaultInfinity: true }),
		text,
		fc.array(tie("value"), { maxLength: 4 }),
		fc
			.array(fc.tuple(objectKey, tie("value")), { maxLength: 5 })
			.map((entries) =>
				JSON.parse(`{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? "null"}`).join(",")}}`),
			),
	),
})).value;

const pathText = fc.oneof(
	fc.constantFrom("/etc/hosts", "src/index.ts", "./a b/c.txt", "/tmp/x"),
	fc.string({ maxLength: 16 }),
);
const anyText = fc.string({ maxLength: 40 });
const count = fc.integer({ min: 0, max: 5000 });
const edit = fc.record({ oldText: anyText, newText: anyText });

function optional<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
	return fc.option(arbitrary, { nil: undefined });
}

function compact(record: Record<string, unknown>): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(record)) if (value !== undefined) out[key] = value;
	return out;
}

const shell = fc.record({ command: anyText, timeout: optional(count) }).map(compact);

const VALID: Record<BuiltinToolName, fc.Arbitrary<Record<string, unknown>>> = {
	read: fc.record({ path: pathText, offset: optional(count), limit: optional(count) }).map(compact),
	bash: shell,
	powershell: shell,
	edit: fc.record({ path: pathText, edits: fc.array(edit, { minLength: 1, maxLength: 4 }) }),
	write: fc.record({ path: pathText, content: fc.string({ maxLength: 200 }) }),
	grep: fc
		.record({
			pattern: anyText,
			path: optional(pathText),
			glob: optional(anyText),
			ignoreCase: optional(fc.boolean()),
			literal: optional(fc.boolean()),
			context: optional(count),
			limit: optional(count),
		})
		.map(compact),
	find: fc.record({ pattern: anyText, path: optional(pathText), limit: optional(count) }).map(compact),
	ls: fc.record({ path: optional(pathText), limit: optional(count) }).map(compact),
};

/** Arguments pi's schema for `tool` accepts as they stand. */
export function validArgs(tool: BuiltinToolName): fc.Arbitrary<Record<string, unknown>> {
	return VALID[tool];
}

const ALIASES: Partial<Record<BuiltinToolName, Record<string, readonly string[]>>> = {
	read: { path: PATH_ALIASES },
	bash: { command: COMMAND_ALIASES },
	powershell: { command: COMMAND_ALIASES },
	edit: { path: PATH_ALIASES, edits: EDITS_ALIASES },
	write: { path: PATH_ALIASES, content: CONTENT_ALIASES },
	grep: { pattern: GREP_PATTERN_ALIASES },
	find: { pattern: FIND_PATTERN_ALIASES },
	ls: { path: LS_PATH_ALIASES },
};

type Mistake = (args: Record<string, unknown>, tool: BuiltinToolName, pick: number) => unknown;

const MISTAKES: readonly Mistake[] = [
	// An alias instead of the canonical key.
	(args, tool, pick) => {
		const table = ALIASES[tool] ?? {};
		const fields = Object.keys(table).filter((field) => field in args);
		const field = fields[pick % Math.max(fields.length, 1)];
		if (field === undefined) return args;
		const aliases = table[field] ?? [];
		const alias = aliases[pick % aliases.length] as string;
		const { [field]: value, ...rest } = args;
		return { ...rest, [alias]: value };
	},
	// A null optional.
	(args, tool) => ({ ...args, [tool === "bash" || tool === "powershell" ? "timeout" : "limit"]: null }),
	// A JSON-stringified array.
	(args) => ("edits" in args ? { ...args, edits: JSON.stringify(args.edits) } : args),
	// Flat edit fields instead of `edits`.
	(args, _tool, pick) => {
		if (!Array.isArray(args.edits)) return args;
		const first = args.edits[0] as { oldText: string; newText: string };
		const { edits: _edits, ...rest } = args;
		return {
			...rest,
			[OLD_TEXT_ALIASES[pick % 12] as string]: first.oldText,
			[NEW_TEXT_ALIASES[pick % 12] as string]: first.newText,
		};
	},
	// Inner aliases inside each edit.
	(args) =>
		Array.isArray(args.edits)
			? {
					...args,
					edits: args.edits.map((e: { oldText: string; newText: string }) => ({
						old_string: e.oldText,
						new_string: e.newText,
					})),
				}
			: args,
	// The envelope as JSON text, once or twice.
	(args, _tool, pick) => (pick % 2 === 0 ? JSON.stringify(args) : JSON.stringify(JSON.stringify(args))),
	// A truncated envelope.
	(args, _tool, pick) => {
		const json = JSON.stringify(args);
		return json.slice(0, Math.max(1, json.length - 1 - (pick % 6)));
	},
	// A singleton array around the object.
	(args) => [args],
	// A bare root string: the single string field's value.
	(args) => args.command ?? args.pattern ?? args.path ?? "",
	// A markdown auto-link around the path.
	(args) =>
		typeof args.path === "string" && args.path !== "" ? { ...args, path: `[${args.path}](http://${args.path})` } : args,
	// A number where a string is wanted.
	(args) => ("path" in args ? { ...args, path: 4164 } : args),
	// A numeric string where a number is wanted.
	(args) => ("limit" in args ? { ...args, limit: String(args.limit) } : { ...args, limit: "12" }),
	// Regex anchors leaked around the path.
	(args) => (typeof args.path === "string" ? { ...args, path: `^${args.path}$` } : args),
	// Grammar tokens leaked into a key and its value.
	(args) => {
		const [key, value] = Object.entries(args)[0] ?? ["path", "/x"];
		const { [key]: _dropped, ...rest } = args;
		return {
			...rest,
			[`<arg_key>${key}</arg_key>`]: typeof value === "string" ? `<arg_value>${value}</arg_value>` : value,
		};
	},
];

/** Valid arguments with one or two classic mistakes applied. */
export function malformedArgs(tool: BuiltinToolName): fc.Arbitrary<unknown> {
	return fc
		.tuple(
			validArgs(tool),
			fc.array(fc.tuple(fc.nat(MISTAKES.length - 1), fc.nat(100)), { minLength: 1, maxLength: 2 }),
		)
		.map(([args, picks]) => {
			let value: unknown = args;
			for (const [index, pick] of picks) {
				if (typeof value !== "object" || value === null || Array.isArray(value)) break;
				value = (MISTAKES[index] as Mistake)(value as Record<string, unknown>, tool, pick);
			}
			return value;
		});
}

/** JSON text cut off at an arbitrary point, sometimes with a raw control character inside. */
export const truncatedJsonText: fc.Arbitrary<string> = fc
	.tuple(hostileJson, fc.nat(), fc.boolean())
	.map(([value, cut, control]) => {
		const json = JSON.stringify({ path: "/x", value }) ?? "{}";
		const cutText = json.slice(0, 1 + (cut % json.length));
		return control ? cutText.replace("/x", "/\nx") : cutText;
	});

/** Any tool-call input: valid, malformed, hostile JSON, nested JSON text or truncated text. */
export function anyInput(tool: BuiltinToolName): fc.Arbitrary<unknown> {
	return fc.oneof(
		{ weight: 3, arbitrary: validArgs(tool) },
		{ weight: 4, arbitrary: malformedArgs(tool) },
		{ weight: 2, arbitrary: hostileJson },
		{ weight: 1, arbitrary: hostileJson.map((value) => JSON.stringify(JSON.stringify(value) ?? "null")) },
		{ weight: 1, arbitrary: truncatedJsonText },
	);
}

/** Framing that can stand before JSON text: invisible characters, words, quotes, parentheses, fences, tags. */
const JSON_PREFIXES = [
	"\u200b",
	"\ufeff",
	"\u2060",
	"\u0000",
	"\u0007",
	"json ",
	"json\n",
	"JSON: ",
	"Arguments:\n",
	"(",
	"'",
	"`",
	'"',
	"```json\n",
	"~~~\n",
	"<tool_call>",
	"<tool_call>\n",
	"<|tool_call|>",
	"  \u200b ",
] as const;

/** The closings that may follow a framed text; an empty one leaves the framing open. */
const JSON_SUFFIXES = ["", "'", "`", '"', ")", "\n```", "\n~~~", "</tool_call>", " and more"] as const;

/** One prefixed, framed or cut JSON text, and whether it is exactly one fence or quoting layer around a complete object. */
export interface FramedJson {
	text: string;
	onceFramedObject: boolean;
}

/**
 * JSON text behind one or two prefixes, sometimes closed, sometimes cut:
 * never a tool's single string field. Exactly one enclosing markdown fence or
 * quoting layer around a complete object is flagged, since that one may be
 * decoded.
 */
export function framedJson(tool: BuiltinToolName): fc.Arbitrary<FramedJson> {
	const body = fc.oneof(
		validArgs(tool).map((args) => JSON.stringify(args)),
		validArgs(tool).map((args) => JSON.stringify([args])),
	);
	return fc
		.tuple(
			body,
			fc.array(fc.constantFrom(...JSON_PREFIXES), { minLength: 1, maxLength: 2 }),
			fc.constantFrom(...JSON_SUFFIXES),
			fc.option(fc.nat(), { nil: undefined }),
		)
		.map(([json, prefixes, suffix, cut]) => {
			// A cut keeps at least the opening bracket: the text always starts like JSON after its framing.
			const inner = cut === undefined ? json : json.slice(0, 1 + (cut % (json.length - 1)));
			const text = `${prefixes.join("")}${inner}${suffix}`;
			return { text, onceFramedObject: isOnceFramedObject(prefixes, inner, suffix) };
		});
}

const ONCE_FRAMES: ReadonlyArray<readonly [string, string]> = [
	["'", "'"],
	["`", "`"],
	['"', '"'],
	["```json\n", "\n```"],
	["~~~\n", "\n~~~"],
];

function isOnceFramedObject(prefixes: readonly string[], inner: string, suffix: string): boolean {
	if (prefixes.length !== 1 || !inner.startsWith("{")) return false;
	try {
		JSON.parse(inner);
	} catch {
		return false;
	}
	return ONCE_FRAMES.some(([open, close]) => prefixes[0] === open && suffix === close);
}

/** The text of an object with a list cut after some complete items: the list's length is unknown. */
export const cutListText: fc.Arbitrary<string> = fc
	.tuple(
		fc.constantFrom("edits", "paths", "args", "include"),
		fc.array(
			fc.oneof(
				fc.record({ oldText: fc.string({ maxLength: 8 }), newText: fc.string({ maxLength: 8 }) }),
				fc.string({ maxLength: 8 }),
				fc.boolean(),
				fc.constant(null),
			),
			{ minLength: 1, maxLength: 4 },
		),
		fc.boolean(),
		fc.constantFrom("", " ", "\n"),
	)
	.map(([key, items, pathFirst, trailing]) => {
		const list = JSON.stringify(items);
		const open = `"${key}":${list.slice(0, -1)}${trailing}`;
		return pathFirst ? `{"path":"/a",${open}` : `{${open}`;
	});

/**
 * One meaning-changing conversion: a boolean in a string field (content,
 * command, path, edit text), number text that is not decimal JSON where a
 * number is wanted, or `null` anywhere. The layer must never make it.
 */
export function conversionBait(tool: BuiltinToolName): fc.Arbitrary<Record<string, unknown>> {
	const numberText = fc.constantFrom("0x10", "1e3", " 5 ", "5 ", "+5", "05", "", "Infinity", "5.", ".5", "1_000", "٣");
	return fc.tuple(validArgs(tool), fc.boolean(), numberText, fc.nat()).map(([args, flag, number, pick]) => {
		const out: Record<string, unknown> = { ...args };
		const strings = ["path", "command", "content", "pattern"].filter((key) => typeof out[key] === "string");
		const numbers = ["limit", "offset", "timeout", "context"];
		switch (pick % 4) {
			case 0:
				if (strings.length > 0) out[strings[pick % strings.length]!] = flag;
				break;
			case 1:
				out[numbers[pick % numbers.length]!] = number;
				break;
			case 2:
				if (Array.isArray(out.edits)) {
					out.edits = (out.edits as Record<string, unknown>[]).map((e, i) =>
						i === 0 ? { ...e, [pick % 2 === 0 ? "oldText" : "newText"]: flag } : e,
					);
				} else if (strings.length > 0) out[strings[0]!] = flag;
				break;
			default:
				out[strings[0] ?? "path"] = null;
		}
		return out;
	});
}
