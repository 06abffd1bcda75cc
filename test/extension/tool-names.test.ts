/**
 * Leaked tool names: the fixed cleanup, the spelling and alias matches, and
 * the one-match rule. Names are from public reports where one exists
 * (little-coder#34 `Glob`, aider-desk#697 `power---bash`-style debris) and
 * the forms template tokens leave (`functions.NAME:IDX`, a trailing colon) otherwise.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	cleanToolName,
	keepsMeaning,
	matchToolName,
	RENAME_TOOL_NAME_RULE,
	renameFeedback,
	renameLeakedToolNames,
	withAvailableTools,
} from "../../src/extension/repair/tool-names.ts";
import { BUILTIN_SCHEMAS } from "../support/builtin-schemas.ts";

const ACTIVE = ["read", "bash", "edit", "write", "grep", "find", "ls", "web_search"];
const schemaOf = (name: string): unknown =>
	Object.hasOwn(BUILTIN_SCHEMAS, name) ? BUILTIN_SCHEMAS[name as "bash"] : undefined;

describe("cleanToolName", () => {
	it("removes template tokens, the functions.NAME:IDX form and trailing colons", () => {
		expect(cleanToolName("functions.bash:0")).toBe("bash");
		expect(cleanToolName("functions.read")).toBe("read");
		expect(cleanToolName("<|tool_call|>read")).toBe("read");
		expect(cleanToolName("write<|end|>")).toBe("write");
		expect(cleanToolName("<｜tool▁sep｜>edit")).toBe("edit");
		expect(cleanToolName("<tool_call>grep</tool_call>")).toBe("grep");
		expect(cleanToolName("ls:")).toBe("ls");
		expect(cleanToolName(" find :: ")).toBe("find");
	});
});

describe("matchToolName", () => {
	it("matches case and -/_ differences and the alias table to exactly one active tool", () => {
		expect(matchToolName("Glob", ["glob", "read"])).toBe("glob");
		expect(matchToolName("Bash", ACTIVE)).toBe("bash");
		expect(matchToolName("web-search", ACTIVE)).toBe("web_search");
		expect(matchToolName("WebSearch", ACTIVE)).toBe("web_search");
		expect(matchToolName("shell", ACTIVE)).toBe("bash");
		expect(matchToolName("execute_command", ACTIVE)).toBe("bash");
		expect(matchToolName("functions.Execute-Command:3", ACTIVE)).toBe("bash");
	});

	it("leaves an active name, an unknown name, an empty name and an ambiguous one alone", () => {
		expect(matchToolName("read", ACTIVE)).toBeUndefined();
		expect(matchToolName("read_file", ACTIVE)).toBeUndefined();
		expect(matchToolName("<|tool_call|>", ACTIVE)).toBeUndefined();
		expect(matchToolName("Read", ["read", "READ"])).toBeUndefined();
		expect(matchToolName("web-search", ["web_search", "websearch"])).toBeUndefined();
		// An alias only counts when its target is active, and it makes an ambiguity of its own.
		expect(matchToolName("shell", ["read"])).toBeUndefined();
		expect(matchToolName("shell", ["bash", "Shell"])).toBeUndefined();
	});
});

describe("renameLeakedToolNames", () => {
	const message = (stopReason: string) => ({
		role: "assistant",
		stopReason,
		content: [
			{ type: "text", text: "running" },
			{ type: "toolCall", id: "c1", name: "functions.bash:0", arguments: { command: "ls" } },
			{ type: "toolCall", id: "c2", name: "read", arguments: { path: "a" } },
			{ type: "toolCall", id: "c3", name: "nope", arguments: {} },
		],
	});

	it("renames only the matching call and keeps everything else, without mutating the input", () => {
		const input = message("toolUse");
		const before = JSON.stringify(input);
		const result = renameLeakedToolNames(input, ACTIVE, schemaOf);
		expect(JSON.stringify(input)).toBe(before);
		expect(result?.renamed).toEqual([{ toolCallId: "c1", from: "functions.bash:0", to: "bash" }]);
		const names = ((result?.message.content ?? []) as { name?: string }[]).map((part) => part.name);
		expect(names).toEqual([undefined, "bash", "read", "nope"]);
	});

	it("renames nothing in a failed, aborted or cut-off message, or when nothing matches", () => {
		for (const stop of ["error", "aborted", "length"])
			expect(renameLeakedToolNames(message(stop), ACTIVE, schemaOf)).toBeUndefined();
		expect(renameLeakedToolNames(message("toolUse"), ["grep"], schemaOf)).toBeUndefined();
	});

	const one = (name: string, args: unknown, extra: Record<string, unknown> = {}) => ({
		role: "assistant",
		stopReason: "toolUse",
		content: [{ type: "toolCall", id: "c1", name, arguments: args, ...extra }],
	});

	it("never renames another agent's tool whose keys the target does not declare", () => {
		const cline = { command: "rm -rf build", cwd: "/other/project", requires_approval: false };
		expect(renameLeakedToolNames(one("execute_command", cline), ACTIVE, schemaOf)).toBeUndefined();
		expect(
			renameLeakedToolNames(one("functions.bash:0", { command: "ls", cwd: "/x" }), ACTIVE, schemaOf),
		).toBeUndefined();
	});

	it("never reads another agent's timeout as bash's seconds", () => {
		for (const name of ["execute_command", "shell"]) {
			expect(renameLeakedToolNames(one(name, { command: "make", timeout: 120000 }), ACTIVE, schemaOf)).toBeUndefined();
		}
		// bash's own name with debris keeps bash's own meaning of timeout.
		expect(
			renameLeakedToolNames(one("functions.bash:0", { command: "make", timeout: 120 }), ACTIVE, schemaOf)?.renamed,
		).toEqual([{ toolCallId: "c1", from: "functions.bash:0", to: "bash" }]);
	});

	it("renames only a call that validates as sent, without conversion", () => {
		expect(renameLeakedToolNames(one("Bash", { command: "make", timeout: "120" }), ACTIVE, schemaOf)).toBeUndefined();
		expect(renameLeakedToolNames(one("Read", { path: "a", limit: null }), ACTIVE, schemaOf)).toBeUndefined();
		expect(renameLeakedToolNames(one("Read", "a.txt"), ACTIVE, schemaOf)).toBeUndefined();
		expect(renameLeakedToolNames(one("Read", {}, { argumentsError: "bad" }), ACTIVE, schemaOf)).toBeUndefined();
		expect(renameLeakedToolNames(one("Read", { path: "a" }), ACTIVE, () => undefined)).toBeUndefined();
		expect(renameLeakedToolNames(one("shell", { command: "ls" }), ACTIVE, schemaOf)?.renamed).toEqual([
			{ toolCallId: "c1", from: "shell", to: "bash" },
		]);
	});
});

describe("keepsMeaning", () => {
	it("holds only for declared keys, the synonym's shared keys, and a value valid as sent (property)", () => {
		const SEED = Number(process.env.PI_REPAIR_FUZZ_SEED ?? 0x5eedc0de);
		const key = fc.constantFrom("command", "timeout", "cwd", "requires_approval", "path");
		const value = fc.oneof(fc.string({ maxLength: 3 }), fc.integer({ min: 0, max: 200000 }), fc.boolean());
		fc.assert(
			fc.property(fc.dictionary(key, value, { maxKeys: 4 }), fc.boolean(), (args, synonym) => {
				const shared = synonym ? ["command"] : undefined;
				const kept = keepsMeaning(BUILTIN_SCHEMAS.bash, args, shared);
				const keys = Object.keys(args);
				if (keys.some((name) => name !== "command" && name !== "timeout")) expect(kept).toBe(false);
				if (synonym && keys.some((name) => name !== "command")) expect(kept).toBe(false);
				if (typeof args.command !== "string") expect(kept).toBe(false);
				if (args.timeout !== undefined && typeof args.timeout !== "number") expect(kept).toBe(false);
			}),
			{ seed: SEED, numRuns: 300 },
		);
	});

	it("records the rule and a note naming both names, never the arguments", () => {
		const feedback = renameFeedback({ toolCallId: "c1", from: "functions.bash:0", to: "bash" }, "adaptive", "kimi-k2");
		expect(feedback.rules).toEqual([RENAME_TOOL_NAME_RULE]);
		expect(feedback.notes[0]).toContain('"functions.bash:0"');
		expect(feedback.notes[0]).toContain("bash");
		expect(feedback.model).toBe("kimi-k2");
	});
});

describe("withAvailableTools", () => {
	const refusal = (toolName: string, text = `Tool ${toolName} not found`) => ({
		role: "toolResult",
		toolCallId: "c1",
		toolName,
		isError: true,
		content: [{ type: "text", text }],
	});

	it("adds the active tool names to pi's unknown-tool refusal", () => {
		const listed = withAvailableTools(refusal("open_file"), ["read", "bash"]);
		expect(listed?.content).toEqual([
			{ type: "text", text: "Tool open_file not found" },
			{ type: "text", text: "The available tools are: read, bash. Call one of them by its exact name." },
		]);
	});

	it("leaves any other result alone", () => {
		expect(withAvailableTools(refusal("read"), ["read"])).toBeUndefined();
		expect(withAvailableTools(refusal("open_file", "permission denied"), ["read"])).toBeUndefined();
		expect(withAvailableTools({ ...refusal("open_file"), isError: false }, ["read"])).toBeUndefined();
		expect(withAvailableTools({ role: "assistant", content: [] }, ["read"])).toBeUndefined();
	});
});

describe("matchToolName properties", () => {
	const name = fc.string({
		unit: fc.constantFrom("a", "b", "A", "-", "_", ":", ".", "|", "<", ">", "f"),
		maxLength: 8,
	});

	it("only ever answers an active tool, never for an active name, and never when two tools share the spelling", () => {
		fc.assert(
			fc.property(fc.uniqueArray(name, { maxLength: 5 }), name, (active, called) => {
				const target = matchToolName(called, active);
				if (active.includes(called)) expect(target).toBeUndefined();
				if (target === undefined) return;
				expect(active).toContain(target);
				const key = (value: string) => value.toLowerCase().replace(/[-_]/g, "");
				expect(active.filter((tool) => key(tool) === key(target))).toHaveLength(1);
			}),
			{ seed: Number(process.env.PI_REPAIR_FUZZ_SEED ?? 0x5eedc0de), numRuns: 300 },
		);
	});
});
