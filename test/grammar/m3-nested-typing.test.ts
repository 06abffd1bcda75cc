/**
 * MiniMax M3 nested element parameters typed by the tool's schema, through
 * the recovery driver: promoted only when every element has one reading
 * under the schema; near-misses are never promoted.
 */
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { recoverGrammarLeaks } from "../../src/grammar/recover.ts";
import { typeArgumentsFromSchema } from "../../src/grammar/schema-typing.ts";
import type { MinimalAssistantMessage } from "../../src/grammar/types.ts";

const NS = "]<]minimax[>[";
/** An element as M3 writes it: the namespace token before the opener and before the closer. */
const el = (key: string, value: string) => `${NS}<${key}>${value}${NS}</${key}>`;
const call = (tool: string, body: string) =>
	`I'll do that.${NS}<tool_call>\n${NS}<invoke name="${tool}">${body}${NS}</invoke>\n${NS}</tool_call>`;

/** pi's edit schema as far as it matters here. */
const edit = Type.Object({
	path: Type.String(),
	edits: Type.Array(Type.Object({ oldText: Type.String(), newText: Type.String() })),
});
/** A tool with every kind of nested value. */
const todo = {
	type: "object",
	properties: {
		title: { type: "string" },
		tasks: {
			type: "array",
			items: {
				type: "object",
				properties: { name: { type: "string" }, done: { type: "boolean" }, priority: { type: "integer" } },
			},
		},
		meta: {
			anyOf: [
				{
					type: "object",
					properties: { owner: { type: "string" }, tags: { type: "array", items: { type: "string" } } },
				},
				{ type: "null" },
			],
		},
		labels: { type: "array", items: { type: "string" } },
		notes: { type: "string" },
		either: {
			anyOf: [
				{ type: "array", items: { type: "string" } },
				{ type: "object", properties: { item: { type: "string" } } },
			],
		},
		anything: {},
	},
};
const schemas = new Map<string, unknown>([
	["edit", edit],
	["todo", todo],
]);

function recover(text: string): MinimalAssistantMessage["content"] {
	const message: MinimalAssistantMessage = { role: "assistant", content: [{ type: "text", text }], stopReason: "stop" };
	return recoverGrammarLeaks(message, {
		mode: "recover",
		knownTools: new Set(["edit", "todo"]),
		toolSchemas: schemas,
		now: () => 0,
	}).message.content;
}
const promoted = (text: string) =>
	recover(text).flatMap((part) => (part.type === "toolCall" ? [(part as { arguments: unknown }).arguments] : []));

describe("nested element parameters typed by the schema", () => {
	it("promotes pi's edit call with its edits list, texts verbatim", () => {
		const text = call(
			"edit",
			el("path", "a.ts") + el("edits", el("item", el("oldText", "let a = 1;\n") + el("newText", "<T>(x: T) => x"))),
		);
		expect(promoted(text)).toEqual([{ path: "a.ts", edits: [{ oldText: "let a = 1;\n", newText: "<T>(x: T) => x" }] }]);
	});

	it("types nested leaves from the schema: booleans, integers, and text that only looks like a number", () => {
		const tasks = el("item", el("name", "42") + el("done", "true") + el("priority", "2"));
		const meta = el("owner", "ops") + el("tags", el("item", "a") + el("item", "7"));
		expect(promoted(call("todo", el("title", "3") + el("tasks", tasks) + el("meta", meta)))).toEqual([
			{ title: "3", tasks: [{ name: "42", done: true, priority: 2 }], meta: { owner: "ops", tags: ["a", "7"] } },
		]);
	});

	it("reads an empty nested element as the empty list the schema wants", () => {
		expect(promoted(call("todo", el("meta", el("owner", "o") + el("tags", ""))))).toEqual([
			{ meta: { owner: "o", tags: [] } },
		]);
	});

	it("leaves a leaf the schema's type cannot read for validation to refuse, as at the top level", () => {
		expect(promoted(call("todo", el("tasks", el("item", el("done", "yes")))))).toEqual([{ tasks: [{ done: "yes" }] }]);
	});
});

describe("near-misses are ambiguous and never promoted", () => {
	it.each([
		[
			"an element the schema does not declare",
			call("todo", el("tasks", el("item", el("name", "a") + el("due", "friday")))),
		],
		[
			"a misspelled key inside pi's edits",
			call("edit", el("path", "a") + el("edits", el("item", el("old_text", "x") + el("newText", "y")))),
		],
		["named children where the schema wants a list", call("todo", el("labels", el("label", "a") + el("label", "b")))],
		["<item> children where the schema wants an object", call("todo", el("meta", el("item", "ops")))],
		["children the schema could read as a list or as an object", call("todo", el("either", el("item", "a")))],
		["child elements where the schema wants a string", call("todo", el("notes", el("b", "bold")))],
		["child elements where the schema says nothing", call("todo", el("anything", el("k", "v")))],
		[
			"child elements under a key the tool does not declare",
			call("todo", el("title", "t") + el("extra", el("k", "v"))),
		],
		["a key twice in a nested object", call("todo", el("meta", el("owner", "a") + el("owner", "b")))],
		["text beside child elements", call("todo", el("tasks", `first ${el("item", el("name", "a"))}`))],
		["a nested closer without its opener", call("todo", el("tasks", `${el("item", `a${NS}</name>`)}`))],
	])("%s", (_label, text) => {
		// Not promoted, and nothing of it is run or half-read: the reply stays as the model wrote it.
		expect(recover(text)).toEqual([{ type: "text", text }]);
	});
});

describe("typeArgumentsFromSchema on element sources", () => {
	it("answers undefined for an ambiguous element value and types the rest as before", () => {
		const raw = { meta: `${NS}<item>${NS}</item>` };
		expect(typeArgumentsFromSchema({ meta: [""] }, todo, raw)).toBeUndefined();
		expect(typeArgumentsFromSchema({ title: 5 }, todo, { title: "5" })).toEqual({ title: "5" });
	});

	it("never reads a JSON source as elements", () => {
		expect(typeArgumentsFromSchema({ labels: ["a"] }, todo, { labels: '["a"]' })).toEqual({ labels: ["a"] });
	});
});
