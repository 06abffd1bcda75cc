/**
 * The built-in tool tables driving the real pipeline with pi's own schemas:
 * model gates, the grep exemption, engine repairs that the tables enable, and
 * the flat edit fold.
 */
import { describe, expect, it } from "vitest";
import { check } from "../../src/core/validator.ts";
import { BUILTIN_SCHEMAS } from "../support/builtin-schemas.ts";
import { builtin, facade, ruleIds } from "../support/pipeline-helpers.ts";

describe("grammar-token cleanup on built-ins runs only for a model that leaks the tokens", () => {
	it("leaves a whitespace-padded path untouched on glm: only tokens are removed", () => {
		const input = { path: " /x " };
		const result = builtin("read", input, { modelId: "glm-4.6" });
		expect(result.outcome).toBe("valid");
		expect(result.args).toBe(input);
	});

	it("keeps edit texts byte for byte, trailing newline included", () => {
		const input = { path: "/a", edits: [{ oldText: " one\n", newText: "two \n" }] };
		const result = builtin("edit", input, { modelId: "glm-4.6" });
		expect(result.outcome).toBe("valid");
		expect(result.args).toBe(input);
	});
});

describe("model gates and the grep exemption", () => {
	it("strips ^…$ from read's path on anchor families only", () => {
		for (const modelId of ["kimi-k2-instruct", "MiniMax-Text-01", "glm-4.6"]) {
			const result = builtin("read", { path: "^/x$" }, { modelId });
			expect(result.args).toEqual({ path: "/x" });
			expect(ruleIds(result)).toEqual(["stripAnchorBleed"]);
		}
		const input = { path: "^/x$" };
		expect(builtin("read", input, { modelId: "claude-opus-4-8" }).args).toBe(input);
	});

	it("cleans grep's path but never its regex pattern", () => {
		const result = builtin("grep", { pattern: "^import React", path: "^/src$" }, { modelId: "glm-4.6" });
		expect(result.args).toEqual({ pattern: "^import React", path: "/src" });
		expect(ruleIds(result)).toEqual(["stripAnchorBleed"]);
	});

	it("cleans find's glob pattern", () => {
		const result = builtin("find", { pattern: "^*.ts$" }, { modelId: "kimi-k2-instruct" });
		expect(result.args).toEqual({ pattern: "*.ts" });
	});

	it("strips leaked grammar tokens on glm, observes them under conservative", () => {
		const input = { "<arg_key>pattern</arg_key>": "<arg_value>foo</arg_value>" };
		const adaptive = builtin("grep", input, { modelId: "glm-4.6" });
		expect(adaptive.outcome).toBe("repaired");
		// The key is markup and is cleaned; the pattern is content and keeps every character.
		expect(adaptive.args).toEqual({ pattern: "<arg_value>foo</arg_value>" });
		expect(ruleIds(adaptive)).toEqual(["stripGrammarTokenLeak"]);
		const conservative = builtin("grep", input, { modelId: "glm-4.6", policy: "conservative" });
		expect(conservative.outcome).toBe("unrepairable");
		expect(conservative.args).toBe(input);
		expect(conservative.observations.map((o) => o.ruleId)).toEqual(["stripGrammarTokenLeak"]);
	});

	it("reruns the table once tokens are gone, so a leaked key still gets its alias and anchor cleanup", () => {
		const result = builtin(
			"read",
			{ "<arg_key>file_path</arg_key>": "<arg_value>^/etc/hosts$</arg_value>" },
			{ modelId: "glm-4.6" },
		);
		expect(result.args).toEqual({ path: "/etc/hosts" });
		expect(ruleIds(result)).toEqual(["stripGrammarTokenLeak", "preprocess.exact-alias", "stripAnchorBleed"]);
		const again = builtin("read", result.args, { modelId: "glm-4.6" });
		expect(again.outcome).toBe("valid");
		expect(again.args).toBe(result.args);
	});

	it("does not touch grammar tokens on an anchor-only family", () => {
		const input = { path: "/x", note: "<arg_value>y</arg_value>" };
		const result = builtin("read", input, { modelId: "kimi-k2-instruct" });
		// `note` is no field of read: it keeps every byte, and only the note about it is added.
		expect(result.args).toEqual(input);
		expect(ruleIds(result)).toEqual(["reportUndeclaredKeys"]);
	});

	it("never anchor-strips bash's command", () => {
		const input = { command: "^ls$" };
		expect(builtin("bash", input, { modelId: "glm-4.6" }).args).toBe(input);
	});

	it("reports an alias rename and the anchor strip of the moved value, in that order", () => {
		const result = builtin("read", { file_path: "^/f$" }, { modelId: "glm-4.6" });
		expect(result.args).toEqual({ path: "/f" });
		expect(ruleIds(result)).toEqual(["preprocess.exact-alias", "stripAnchorBleed"]);
	});
});

describe("engine repairs enabled by the tables", () => {
	// The path alias row takes strings only; the engine's untyped rename of the same alias is gone, so both configs refuse.
	it("refuses an alias whose value is not a path, rather than turning a number into one", () => {
		const result = builtin("read", { file_path: 5 });
		expect(result.outcome).toBe("unrepairable");
		expect(facade("read", { file_path: 5 }).outcome).toBe("unrepairable");
	});

	it("wraps or parses root strings", () => {
		const wrapped = facade("bash", "echo hi");
		expect(wrapped.args).toEqual({ command: "echo hi" });
		expect(wrapped.rulesFired).toEqual(["wrapRootStringAsObject"]);
		expect(wrapped.notes[0]).toContain('{command: "..."}');
		const parsed = facade("bash", '{"command":"echo hi"}');
		expect(parsed.args).toEqual({ command: "echo hi" });
		expect(parsed.rulesFired).toEqual(["parseJsonStringifiedRootObject"]);
		expect(builtin("read", "").args).toEqual({ path: "" });
	});

	it("wraps a root markdown-link path, then unwraps it: a link is not a list literal", () => {
		const result = builtin("read", "[notes.md](http://notes.md)");
		expect(result.args).toEqual({ path: "notes.md" });
		expect(ruleIds(result)).toEqual(["wrapRootStringAsObject", "preprocess.filesystem-path"]);
	});

	it("preprocesses the object a root string was wrapped into, so the result is stable on a second run", () => {
		const result = builtin("find", "^*.ts$", { modelId: "glm-4.6" });
		expect(result.args).toEqual({ pattern: "*.ts" });
		expect(ruleIds(result)).toEqual(["wrapRootStringAsObject", "stripAnchorBleed"]);
		const again = builtin("find", result.args, { modelId: "glm-4.6" });
		expect(again.outcome).toBe("valid");
		expect(again.args).toBe(result.args);
	});

	it("unwraps an auto-linked path through the facade's pathFields", () => {
		const result = facade("read", { path: "/home/x/[notes.md](http://notes.md)" });
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "/home/x/notes.md" });
		expect(result.rulesFired).toEqual(["unwrapMarkdownAutoLink"]);
		expect(result.notes[0]).toContain("auto-link");
		expect(result.notes[0]).toContain("/path");
	});

	it("handles ls's optional path", () => {
		const empty = {};
		expect(builtin("ls", empty).args).toBe(empty);
		expect(builtin("ls", []).outcome).toBe("unrepairable");
		expect(builtin("ls", null).outcome).toBe("unrepairable");
		expect(builtin("ls", "/tmp").args).toEqual({ path: "/tmp" });
		expect(ruleIds(builtin("ls", { directory: "/tmp" }))).toEqual(["preprocess.exact-alias"]);
	});

	it("does not alias grep's real glob field, but find's", () => {
		expect(builtin("grep", { glob: "*.ts" }).outcome).toBe("unrepairable");
		expect(builtin("find", { glob: "*.ts" }).args).toEqual({ pattern: "*.ts" });
	});

	it("combines a preprocess alias with an engine drop", () => {
		const result = builtin("bash", { cmd: "ls", timeout: null });
		expect(result.args).toEqual({ command: "ls" });
		expect(result.changes.map((c) => [c.ruleId, c.stage])).toEqual([
			["preprocess.exact-alias", "preprocess"],
			["dropNullOrUndefinedField", "schema-repair"],
		]);
	});

	it("fails closed on broken JSON for every root-string tool", () => {
		for (const tool of ["read", "bash", "grep", "find", "ls", "powershell"] as const) {
			expect(builtin(tool, '{"a":').outcome).toBe("unrepairable");
			expect(builtin(tool, "['a', 'b']").outcome).toBe("unrepairable");
		}
	});
});

describe("the flat edit fold", () => {
	it("renames the path and folds old/new fields as preprocess changes", () => {
		const result = builtin("edit", { file_path: "/a", old_string: "x", new_string: "y" });
		expect(result.args).toEqual({ path: "/a", edits: [{ oldText: "x", newText: "y" }] });
		expect(result.changes.map((c) => [c.ruleId, c.stage])).toEqual([
			["preprocess.exact-alias", "preprocess"],
			["foldFlatEditFields", "preprocess"],
		]);
		const note = result.changes[1]?.note ?? "";
		for (const token of ["old_string", "new_string", "edit"]) expect(note).toContain(token);
		// The facade's aliases are rows now, so they run before the engine's fold.
		expect(facade("edit", { file_path: "/a", old_string: "x", new_string: "y" }).rulesFired).toEqual([
			"renameAliasedField",
			"foldFlatEditFields",
		]);
	});

	it("folds aider-style search/replace the same way", () => {
		const result = builtin("edit", { file_path: "/a", search: "x", replace: "y" });
		expect(result.args).toEqual({ path: "/a", edits: [{ oldText: "x", newText: "y" }] });
	});

	it("folds over an empty edits list but leaves flat keys beside a non-empty one", () => {
		expect(builtin("edit", { path: "/a", edits: [], oldText: "x", newText: "y" }).args).toEqual({
			path: "/a",
			edits: [{ oldText: "x", newText: "y" }],
		});
		const input = { path: "/a", edits: [{ oldText: "a", newText: "b" }], old_string: "x", new_string: "y" };
		const result = builtin("edit", input);
		// Not folded; the flat keys stay as sent, and the model is told they did nothing.
		expect(result.args).toEqual(input);
		expect(ruleIds(result)).toEqual(["reportUndeclaredKeys"]);
		expect(result.changes[0]?.note).toContain('"old_string", "new_string"');
	});

	it("discards a stringified edits value when flat fields are present", () => {
		const result = builtin("edit", {
			path: "/a",
			edits: '[{"oldText":"q","newText":"r"}]',
			old_str: "x",
			new_str: "y",
		});
		expect(result.args).toEqual({ path: "/a", edits: [{ oldText: "x", newText: "y" }] });
	});

	it("removes every recognized old/new key and prefers oldText when it is a string", () => {
		const removed = builtin("edit", { path: "/a", old_string: "o", new_string: "n", to: 5, from: 7 });
		expect(removed.args).toEqual({ path: "/a", edits: [{ oldText: "o", newText: "n" }] });
		const ranked = builtin("edit", { path: "/a", oldText: 5, old_string: "o", newText: "n", new_string: "m" });
		expect(ranked.args).toEqual({ path: "/a", edits: [{ oldText: "o", newText: "n" }] });
	});

	it("does not fold when only one side is present", () => {
		expect(builtin("edit", { path: "/a", old_string: "x" }).outcome).toBe("unrepairable");
	});

	it("moves an aliased edits list with its inner aliases, and renames then parses text", () => {
		const moved = builtin("edit", { path: "/a", changes: [{ old_string: "x", new_string: "y" }] });
		expect(moved.args).toEqual({ path: "/a", edits: [{ oldText: "x", newText: "y" }] });
		expect(ruleIds(moved)).toEqual(["preprocess.exact-alias", "preprocess.exact-alias", "preprocess.exact-alias"]);
		const text = builtin("edit", { path: "/a", changes: '[{"oldText":"x","newText":"y"}]' });
		expect(text.args).toEqual({ path: "/a", edits: [{ oldText: "x", newText: "y" }] });
		expect(ruleIds(text)).toEqual(["preprocess.exact-alias", "parseJsonStringifiedArray"]);
	});

	it("produces schema-valid edit arguments every time it folds", () => {
		const result = builtin("edit", { filename: "/a", oldStr: "x", newStr: "y" });
		expect(check(BUILTIN_SCHEMAS.edit, result.args)).toBe(true);
	});
});
