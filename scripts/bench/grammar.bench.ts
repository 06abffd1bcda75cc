/**
 * Grammar-leak parsing speed: `parseToolGrammarLeaks` over prose, prose with
 * a leaked call every ~10 KB (cycling through every family and the late-2026
 * dialects: DeepSeek V4.1 DSML, MiniMax M3 elements, Llama 4 blocks), and
 * markdown full of fenced code blocks, at 10 KB, 100 KB and 1 MB, with MB/s
 * and the scaling exponent of each size step (1.0 = linear). Then every
 * family step on 1 MB adversarial inputs, and µs per call at the sizes
 * models write (4, 16 and 64 KB). Targets: exponent <= 1.1 at every step,
 * 1 MB of fenced markdown under 20 ms.
 *
 * Run: `npm run bench -- grammar`.
 */

import { FAMILY_STEPS } from "../../src/grammar/families/index.ts";
import { createScanContext } from "../../src/grammar/fences.ts";
import { parseToolGrammarLeaks } from "../../src/grammar/index.ts";
import { batchTimes, printTable, scalingExponent } from "./harness.ts";

/**
 * Fastest of `runs` calls, in milliseconds of this process's CPU time (user +
 * system), not wall time: on a shared, loaded machine wall time mostly
 * measures waiting for a core. The minimum is the figure closest to the
 * code's own cost, and the one the exponents use.
 */
function fastest(fn: () => unknown, runs: number): number {
	let best = Number.POSITIVE_INFINITY;
	for (let i = 0; i < runs; i++) {
		const start = process.cpuUsage();
		fn();
		const used = process.cpuUsage(start);
		best = Math.min(best, (used.user + used.system) / 1000);
	}
	return best;
}

const KB = 1024;
/** 4 MB on top of the three target sizes: past the CPU caches, it shows the exponent of the algorithm alone. */
const SIZES = [10 * KB, 100 * KB, 1024 * KB, 4096 * KB] as const;

/** A small deterministic generator, so every run scans the same text. */
function random(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state * 1664525 + 1013904223) >>> 0;
		return state / 2 ** 32;
	};
}

/** Words and short phrases; parenthesised asides stay balanced, as in real prose. */
const WORDS: readonly string[] = [
	..."the model reads a file then it writes the summary and runs tests we check before we call it done".split(" "),
	"don't worry",
	"(it's fine)",
	"src/index.ts,",
	"README.md",
	"package.json:",
	"it's 5 steps;",
	'"quoted"',
	"[see notes]",
	"{braces}",
];

/**
 * Exactly `size` characters of prose. Whole words only (the tail is padded
 * with spaces), so a parenthesised aside is never cut open at the end: an
 * unclosed paren is an adversarial input of its own, measured below.
 */
function prose(size: number, seed = 1): string {
	const next = random(seed);
	const parts: string[] = [];
	let length = 0;
	for (;;) {
		const word = WORDS[Math.floor(next() * WORDS.length)] ?? "x";
		const sep = next() < 0.08 ? ".\n" : next() < 0.02 ? "\n\n" : " ";
		if (length + word.length + sep.length > size) break;
		parts.push(word, sep);
		length += word.length + sep.length;
	}
	return parts.join("") + " ".repeat(size - length);
}

const BAR = "\uff5c";
const LEAKS: readonly string[] = [
	`<${BAR}DSML${BAR}tool_calls>\n<${BAR}DSML${BAR}invoke name="read">\n<${BAR}DSML${BAR}parameter name="path" string="true">a.md</${BAR}DSML${BAR}parameter>\n</${BAR}DSML${BAR}invoke>\n</${BAR}DSML${BAR}tool_calls>`,
	'<minimax:tool_call>\n<invoke name="read">\n<parameter name="path">a.md</parameter>\n</invoke>\n</minimax:tool_call>',
	"<tool_call>\n<function=read>\n<parameter=path>a.md</parameter>\n</function>\n</tool_call>",
	'<|tool_calls_section_begin|><|tool_call_begin|>functions.read:0<|tool_call_argument_begin|>{"path": "a.md"}<|tool_call_end|><|tool_calls_section_end|>',
	'[TOOL_CALLS] [{"name": "read", "arguments": {"path": "a.md"}}]',
	'<|python_tag|>{"name": "read", "parameters": {"path": "a.md"}}',
	"<tool_call>read\n<arg_key>path</arg_key>\n<arg_value>a.md</arg_value>\n</tool_call>",
	'<tool_call>{"name": "read", "arguments": {"path": "a.md"}}</tool_call>',
	'<function_call>```typescript\nfunctions.read({"path": "a.md"})\n```',
	'<function_calls>\nread(path="a.md")\n</function_calls>',
	'<|start|>assistant<|channel|>commentary to=functions.read <|constrain|>json<|message|>{"path":"a.md"}<|call|>',
	'<|tool_call>call:read{path:<|"|>a.md<|"|>}<tool_call|>',
	'<|open|>tools<|sep|><|open|>call tool="read" index="1"<|sep|><|open|>argument key="path" type="string"<|sep|>a.md<|close|>argument<|sep|><|open|>argument key="limit" type="number"<|sep|>5<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>',
	`<${BAR}${BAR}DSML${BAR}${BAR} calls>\n<${BAR}${BAR}DSML${BAR}${BAR} invoke name="read">\n<${BAR}${BAR}DSML${BAR}${BAR} parameter name="path" string="true">a.md</${BAR}${BAR}DSML${BAR}${BAR} parameter>\n</${BAR}${BAR}DSML${BAR}${BAR} invoke>\n</${BAR}${BAR}DSML${BAR}${BAR} calls>`,
	']<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name="read">\n]<]minimax[>[<path>a.md]<]minimax[>[</path>\n]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>',
	'<|python_start|>[read(path="a.md")]<|python_end|>',
];

/** Exactly `size` characters: ~10 KB chunks of prose, each followed by one complete leak (never cut). */
function proseWithLeaks(size: number): string {
	const chunk = 10 * KB;
	const parts: string[] = [];
	let length = 0;
	for (let i = 0; length < size; i++) {
		const leak = LEAKS[i % LEAKS.length] ?? "";
		const room = Math.min(chunk, size - length);
		if (room < leak.length + 2) {
			parts.push(prose(room, i + 7));
			length += room;
			continue;
		}
		parts.push(prose(room - leak.length - 2, i + 7), "\n", leak, "\n");
		length += room;
	}
	return parts.join("");
}

function fencedMarkdown(size: number): string {
	const block = [
		"Here is how the call looks:",
		"```xml",
		"<tool_call>",
		"<function=read>",
		"<parameter=path>a.md</parameter>",
		"</function>",
		"</tool_call>",
		"```",
		"And in JSON:",
		"```json",
		'{"name": "read", "arguments": {"path": "a.md"}}',
		"```",
		"",
	].join("\n");
	return block.repeat(Math.ceil(size / block.length)).slice(0, size);
}

/** An equal-length copy of `text` that is a new, flat string (its first character varies with `seed`). */
function freshCopy(text: string, seed: number): string {
	const copy = String.fromCharCode(65 + (seed % 26)) + text.slice(1);
	copy.charCodeAt(copy.length >> 1);
	return copy;
}

function mbPerSecond(bytes: number, ms: number): string {
	return ms > 0 ? (bytes / (1024 * 1024) / (ms / 1000)).toFixed(1) : "inf";
}

const corpora: ReadonlyArray<readonly [string, (size: number) => string]> = [
	["prose", (size) => prose(size)],
	["prose + leak per 10 KB", proseWithLeaks],
	["fenced markdown", fencedMarkdown],
];

const rows: string[][] = [];
for (const [label, make] of corpora) {
	let previous: { size: number; ms: number } | undefined;
	for (const size of SIZES) {
		const text = make(size);
		parseToolGrammarLeaks(text);
		// The same number of runs at every target size: the fastest of more runs
		// is lower by chance alone, which would bias the exponents upwards.
		const runs = size >= 4096 * KB ? 8 : 20;
		// A distinct string per run: V8 remembers the lower-cased form of a string it
		// has just converted, which would flatter repeated runs on small texts only.
		const variants = Array.from({ length: runs }, (_, i) => freshCopy(text, i));
		let next = 0;
		const ms = fastest(() => parseToolGrammarLeaks(variants[next++ % runs] ?? text), runs);
		const calls = parseToolGrammarLeaks(text).length;
		const exponent = previous ? scalingExponent(previous.size, previous.ms, size, ms).toFixed(2) : "-";
		rows.push([
			label,
			size >= 1024 * KB ? `${size / (1024 * KB)} MB` : `${size / KB} KB`,
			ms.toFixed(2),
			mbPerSecond(size, ms),
			exponent,
			String(calls),
		]);
		previous = { size, ms };
	}
}
printTable("parseToolGrammarLeaks", ["corpus", "size", "ms", "MB/s", "exponent", "calls"], rows);

/**
 * The sizes models write (4–64 KB) in batches of many calls per timer read:
 * a single call takes well under a millisecond here, too short to time alone.
 * A speed trick is kept only where it pays at these sizes.
 */
const REAL_SIZES = [4 * KB, 16 * KB, 64 * KB] as const;
const realRows: string[][] = [];
for (const [label, make] of corpora) {
	const row = [label];
	for (const size of REAL_SIZES) {
		const text = make(size);
		const variants = Array.from({ length: 64 }, (_, i) => freshCopy(text, i));
		let next = 0;
		const [ms = 0] = batchTimes([() => parseToolGrammarLeaks(variants[next++ % variants.length] ?? text)]);
		row.push((ms * 1000).toFixed(1));
	}
	realRows.push(row);
}
printTable(
	"parseToolGrammarLeaks at real message sizes, µs per call",
	["corpus", ...REAL_SIZES.map((size) => `${size / KB} KB`)],
	realRows,
);

const MB = 1024 * KB;
const fill = (unit: string) => unit.repeat(Math.ceil(MB / unit.length)).slice(0, MB);
const adversarial: ReadonlyArray<readonly [string, string]> = [
	["<", fill("<")],
	["[", fill("[")],
	["{", fill("{")],
	['"', fill('"')],
	["'", fill("'")],
	["|", fill("|")],
	['{"name":…{ unclosed', fill('{"name": "a", "arguments": {')],
	["f( per line", fill("f(\n")],
	["dsml openers", fill(`<${BAR}DSML${BAR}tool_calls><${BAR}DSML${BAR}invoke name="a">`)],
	["<tool_call> openers", fill("<tool_call><function=a><parameter=b>")],
	[
		"xtml openers",
		fill('<|open|>tools<|sep|><|open|>call tool="a"<|sep|><|open|>argument key="b" type="string"<|sep|>'),
	],
	["m3 elements", fill('<invoke name="a"><b><c>')],
];
const advRows: string[][] = [];
for (const [label, text] of adversarial) {
	const row = [label];
	for (const step of FAMILY_STEPS) {
		const ms = fastest(() => step.parse(createScanContext(text)), 5);
		row.push(ms.toFixed(0));
	}
	row.push(fastest(() => parseToolGrammarLeaks(text), 5).toFixed(0));
	advRows.push(row);
}
printTable("1 MB adversarial input, ms per family step", ["input", ...FAMILY_STEPS.map((s) => s.id), "all"], advRows);
