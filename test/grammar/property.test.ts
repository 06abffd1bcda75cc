/**
 * Properties over every family that has a renderer in `render/` (one file per
 * family, named after it): whatever renderers exist are picked up.
 *
 * - round trip: a random call rendered in a family's grammar and parsed back
 *   with every family enabled is exactly that call, labelled with that family;
 * - reasoning: the same text in a thinking part or a `<think>` span is never
 *   promoted, whatever the mode and tool set;
 * - strip idempotence: stripping a message twice gives what stripping it once
 *   gave, and the value strips (leaked tokens and anchors) applied to their own
 *   output change nothing;
 * - any text at all, a soup of every registered family's tokens included, goes
 *   through detection and recovery without a throw or a mutation.
 */
import { readdirSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PIPELINE_PREPROCESSORS } from "../../src/core/builtin-tables.ts";
import { preprocessInput } from "../../src/core/preprocess.ts";
import { GRAMMAR_NAMES, parseToolGrammarLeaks, recoverGrammarLeaks } from "../../src/grammar/index.ts";
import type { GrammarName, MinimalAssistantMessage } from "../../src/grammar/types.ts";
import { callArbitrary, REGISTERED_GRAMMARS, type Renderer } from "./families/family-fixtures.ts";
import { FAMILY_TOKENS } from "./families/family-tokens.ts";
import { seeded } from "./seed.ts";

const renderDir = new URL("./render/", import.meta.url);
const renderers: Array<{ grammar: GrammarName; renderer: Renderer }> = [];
for (const file of readdirSync(renderDir)
	.filter((f) => f.endsWith(".ts"))
	.sort()) {
	const grammar = file.slice(0, -3) as GrammarName;
	if (!(GRAMMAR_NAMES as readonly string[]).includes(grammar)) continue;
	renderers.push({ grammar, renderer: (await import(new URL(file, renderDir).href)) as Renderer });
}

const RUNS = 150;

describe("renderers", () => {
	it("exist for every family", () => {
		expect(renderers.map((r) => r.grammar).sort()).toEqual([...GRAMMAR_NAMES].sort());
	});
});

describe.each(renderers)("$grammar", ({ grammar, renderer }) => {
	const calls = callArbitrary.filter((call) => renderer.renderable(call));

	it("round-trips a rendered call through parseToolGrammarLeaks with every family enabled", () => {
		fc.assert(
			fc.property(calls, (call) => {
				const found = parseToolGrammarLeaks(renderer.render(call));
				expect(found).toEqual([
					{ name: call.name, arguments: JSON.parse(JSON.stringify(call.arguments)) as unknown, grammar },
				]);
			}),
			seeded(RUNS),
		);
	});

	it("never promotes the call from a thinking part or a <think> span", () => {
		fc.assert(
			fc.property(calls, fc.boolean(), (call, inThinkingPart) => {
				const text = renderer.render(call);
				const content: MinimalAssistantMessage["content"] = inThinkingPart
					? [
							{ type: "thinking", thinking: text },
							{ type: "text", text: "Answer." },
						]
					: [{ type: "text", text: `<think>\n${text}\n</think>\nAnswer.` }];
				const result = recoverGrammarLeaks(
					{ role: "assistant", content, stopReason: "stop" },
					{ mode: "recover", knownTools: new Set([call.name]), requireKnownTool: false },
				);
				expect(result.promoted).toBe(false);
				expect(result.message.content.some((part) => part.type === "toolCall")).toBe(false);
			}),
			seeded(RUNS),
		);
	});

	it("strips to a fixed point: a second strip changes nothing", () => {
		fc.assert(
			fc.property(calls, fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }), (call, before, after) => {
				const text = `${before}\n${renderer.render(call)}\n${after}`;
				const options = { mode: "strip" as const, knownTools: new Set([call.name]) };
				const once = recoverGrammarLeaks({ role: "assistant", content: [{ type: "text", text }] }, options);
				const twice = recoverGrammarLeaks(once.message, options);
				expect(twice.message.content).toEqual(once.message.content);
			}),
			seeded(RUNS),
		);
	});
});

/** The value strips exactly as the built-in tables run them: the anchor and grammar-token rows only. */
function stripValues(o: { toolName: "read" | "grep" | "find" | "edit"; input: unknown; modelId: string }) {
	const preprocessors = PIPELINE_PREPROCESSORS[o.toolName].filter(
		(row) => row.kind === "anchor-bleed" || row.kind === "grammar-tokens",
	);
	const out = preprocessInput({ ...o, preprocessors, allowValidValueTransforms: true });
	return { input: out.value, result: { changed: out.changes.length > 0 } };
}

describe("the value strips", () => {
	const opening = fc.constantFrom("<arg_key>", "<arg_value>", "^");
	const closing = fc.constantFrom("</arg_key>", "</arg_value>", "$");
	// The real strips remove exactly one leaked token at each end (a model leaks one), so the text between
	// them never starts or ends with token or anchor characters of its own.
	const inner = fc.string({ maxLength: 10 }).filter((text) => !/^[\s<^$]|[\s>$^]$/.test(text));
	const leaky = fc
		.tuple(fc.array(opening, { maxLength: 1 }), inner, fc.array(closing, { maxLength: 1 }))
		.map(([a, s, b]) => `${a.join("")}${s}${b.join("")}`);
	const input = fc.dictionary(leaky, fc.oneof(leaky, fc.array(leaky, { maxLength: 3 }), fc.integer()), {
		maxKeys: 4,
	});
	const model = fc.constantFrom("glm-4.6", "kimi-k2-instruct", "MiniMax-M2", "claude-opus-4-8");
	const tool = fc.constantFrom("read" as const, "grep" as const, "find" as const, "edit" as const);

	it("is idempotent on one leaked token at each end: its own output needs no further strip", () => {
		fc.assert(
			fc.property(input, model, tool, (value, modelId, toolName) => {
				const once = stripValues({ toolName, input: value, modelId });
				const twice = stripValues({ toolName, input: once.input, modelId });
				expect(twice.result.changed).toBe(false);
				expect(twice.input).toEqual(once.input);
			}),
			seeded(500),
		);
	});

	it("never mutates its input", () => {
		fc.assert(
			fc.property(input, model, tool, (value, modelId, toolName) => {
				const snapshot = structuredClone(value);
				stripValues({ toolName, input: value, modelId });
				expect(value).toEqual(snapshot);
			}),
			seeded(300),
		);
	});
});

describe("any text at all", () => {
	const pieces = fc.constantFrom(
		"<tool_call>",
		"</tool_call>",
		"<function=read>",
		"<parameter=path>",
		"</parameter>",
		'{"name": "read", "arguments": {',
		"}",
		"[TOOL_CALLS]",
		"<|python_tag|>",
		"```",
		"<think>",
		"</think>",
		"\uff5cDSML\uff5c",
		'<invoke name="read">',
		"read(",
		")",
		"'",
		'"',
		"\n",
		// Every registered family's own tokens, so the whole detection sees each grammar's soup.
		...REGISTERED_GRAMMARS.flatMap((grammar) => FAMILY_TOKENS[grammar].tokens),
	);
	const noisy = fc
		.array(fc.oneof(pieces, fc.string({ maxLength: 8 }), fc.string({ unit: "grapheme", maxLength: 4 })), {
			maxLength: 40,
		})
		.map((parts) => parts.join(""));

	it("never throws, never mutates, and keeps every content part's type", () => {
		fc.assert(
			fc.property(noisy, fc.constantFrom("observe", "strip", "recover") as fc.Arbitrary<"observe">, (text, mode) => {
				const input: MinimalAssistantMessage = {
					role: "assistant",
					content: [{ type: "text", text }],
					stopReason: "stop",
				};
				const snapshot = structuredClone(input);
				const result = recoverGrammarLeaks(input, { mode, knownTools: new Set(["read"]) });
				expect(input).toEqual(snapshot);
				expect(result.message.content[0]?.type).toBe("text");
				if (!result.changed) expect(result.message).toBe(input);
				parseToolGrammarLeaks(text);
			}),
			seeded(1000),
		);
	});
});
