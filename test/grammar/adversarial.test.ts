/**
 * Hostile text: a megabyte of the characters parsers key on (`<`, `[`, `{`,
 * quotes, `|`, and the openers of every family repeated without closers)
 * goes through every registered family step and the whole detection; every
 * registered family's own unclosed markup is among the inputs. Each
 * must return, without throwing and with every range inside the text. No
 * timing assertion here: `npm run bench -- grammar` prints the times.
 */
import { describe, expect, it } from "vitest";
import { FAMILY_STEPS } from "../../src/grammar/families/index.ts";
import { createScanContext, quotedRegions } from "../../src/grammar/fences.ts";
import { parseToolGrammarLeaks, recoverGrammarLeaks } from "../../src/grammar/index.ts";
import { REGISTERED_GRAMMARS } from "./families/family-fixtures.ts";
import { FAMILY_TOKENS } from "./families/family-tokens.ts";

const MB = 1 << 20;

function fill(unit: string, size = MB): string {
	return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

const ADVERSARIAL_INPUTS: ReadonlyArray<readonly [string, string]> = [
	["angle brackets", fill("<")],
	["square brackets", fill("[")],
	["braces", fill("{")],
	["double quotes", fill('"')],
	["single quotes", fill("'")],
	["pipes", fill("|")],
	["fullwidth bars", fill("\uff5c")],
	["braces with escaped quotes", fill('{"\\"')],
	["unclosed call objects", fill('{"name": "a", "arguments": {')],
	["unclosed call arrays", fill('[{"name": "a"')],
	["open parens on new lines", fill("f(\n")],
	["open parens with quotes", fill("f(a='\n")],
	["dsml openers", fill('<\uff5cDSML\uff5ctool_calls><\uff5cDSML\uff5cinvoke name="a">')],
	["tool_call openers", fill("<tool_call><function=a><parameter=b>")],
	["invoke openers", fill('<invoke name="a"><parameter name="b">')],
	["bracket-less invokes", fill('\ninvoke name="a">\nparameter name="b">')],
	["kimi openers", fill("<|tool_calls_section_begin|><|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{")],
	["mistral markers", fill("[TOOL_CALLS]a[CALL_ID]b[ARGS]{")],
	["python tags", fill("<|python_tag|>{")],
	["minimax openers", fill("<function_call>functions.a(")],
	["olmo openers", fill("<function_calls>\na(")],
	["harmony openers", fill("<|start|>assistant<|channel|>commentary to=functions.a <|message|>{")],
	["gemma openers", fill('<|tool_call>call:a{b:<|"|>')],
	["think openers", fill("<think>")],
	["think closers without >", fill("</thinking ")],
	["nested think openers", fill("<thinking a=1>")],
	["fences", fill("```")],
	["fence lines", fill("```\n")],
	["tilde fence lines of growing length", Array.from({ length: 1400 }, (_, i) => `${"~".repeat(i + 3)}\n`).join("")],
	["backtick runs of growing length", Array.from({ length: 1400 }, (_, i) => `${"`".repeat(i + 1)} x `).join("")],
	["escaped backticks", fill("\\\\\\`")],
	["pre openers", fill("<pre>")],
	["line-leading pre openers", fill("<pre\n")],
	["blockquote lines", fill("> a\n")],
	["indented lines", fill("\n    a\n")],
	["list markers", fill("- 1. * + ")],
	["spaces before text", fill("          x")],
	// Each registered family's longest unclosed markup, so a family added to the registry is covered.
	...REGISTERED_GRAMMARS.map((grammar) => {
		const unit = FAMILY_TOKENS[grammar].units.reduce((longest, next) =>
			next.length > longest.length ? next : longest,
		);
		return [`${grammar} markup`, fill(unit)] as const;
	}),
];

function assertRanges(text: string, ranges: Array<{ start: number; end: number }>): void {
	for (const range of ranges) {
		expect(range.start).toBeGreaterThanOrEqual(0);
		expect(range.end).toBeLessThanOrEqual(text.length);
	}
}

describe.each(ADVERSARIAL_INPUTS)("1 MB of %s", (_label, text) => {
	it.each(FAMILY_STEPS.map((step) => [step.id, step] as const))("%s returns", (_id, step) => {
		const found = step.parse(createScanContext(text));
		assertRanges(text, found);
	});

	it("full detection and recovery return", () => {
		expect(Array.isArray(parseToolGrammarLeaks(text))).toBe(true);
		const message = { role: "assistant", content: [{ type: "text", text }], stopReason: "stop" };
		const result = recoverGrammarLeaks(message, { mode: "recover", knownTools: new Set(["a"]) });
		expect(result.message.content).toHaveLength(result.promoted ? 1 + result.promotedCallIds.length : 1);
	});
});

describe.each(ADVERSARIAL_INPUTS)("quoted regions of 1 MB of %s", (_label, text) => {
	it("are sorted, disjoint and inside the text", () => {
		const { starts, ends } = quotedRegions(text);
		let misplaced = 0;
		for (let i = 0; i < starts.length; i++) {
			const start = starts[i] ?? -1;
			const end = ends[i] ?? 0;
			const floor = i === 0 ? 0 : (ends[i - 1] ?? 0) + 1;
			if (start < floor || end <= start || end > text.length) misplaced++;
		}
		expect(misplaced).toBe(0);
	});
});

describe("deep nesting", () => {
	it("handles 100k nested brackets inside a call without a stack overflow", () => {
		const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
		const text = `{"name": "a", "arguments": {"x": ${deep}}}`;
		expect(() => parseToolGrammarLeaks(text)).not.toThrow();
	});
});
