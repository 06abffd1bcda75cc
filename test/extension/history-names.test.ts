import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	isProviderSafeToolName,
	providerSafeNames,
	UnsafeNames,
	withProviderSafeToolNames,
} from "../../src/extension/leaks/history-names.ts";

const call = (id: string, name: string) => ({ type: "toolCall", id, name, arguments: { path: "a.md" } });
const assistant = (...parts: unknown[]) => ({ role: "assistant", content: parts, stopReason: "toolUse" });
const result = (toolCallId: string, toolName: string) => ({
	role: "toolResult",
	toolCallId,
	toolName,
	content: [{ type: "text", text: `Tool ${toolName} not found` }],
	isError: true,
});
const KNOWN = ["read", "bash", "edit", "write"];
const seed = process.env.PI_REPAIR_FUZZ_SEED ? Number(process.env.PI_REPAIR_FUZZ_SEED) : 0x5eedc0de;

describe("tool names a strict provider rejects are rewritten in what is sent", () => {
	it("accepts exactly letters, digits, _ and -, 1 to 64 characters", () => {
		for (const name of ["read", "mcp__server__tool", "web-search", "a".repeat(64)]) {
			expect(isProviderSafeToolName(name), name).toBe(true);
		}
		for (const name of ["", "read file", "functions.read:0", "a".repeat(65), "lire_é", "read\n"]) {
			expect(isProviderSafeToolName(name), name).toBe(false);
		}
	});

	it("agrees with ^[A-Za-z0-9_-]{1,64}$ on every name, and the rewrite keeps each safe unit and only those (property)", () => {
		const safeChar = fc.constantFrom(..."azAZ09_-".split(""), "m", "Q", "5");
		const otherChar = fc.constantFrom(" ", ".", ":", "é", "\n", "\u0000", "\ud83d", "\ude00", "/", "[", "`");
		const name = fc
			.array(fc.oneof({ weight: 6, arbitrary: safeChar }, { weight: 1, arbitrary: otherChar }), { maxLength: 80 })
			.map((chars) => chars.join(""));
		fc.assert(
			fc.property(fc.oneof(name, fc.string({ maxLength: 70 })), (candidate) => {
				expect(isProviderSafeToolName(candidate)).toBe(/^[A-Za-z0-9_-]{1,64}$/.test(candidate));
				const renamed = providerSafeNames([assistant(call("c", candidate))], []).get(candidate);
				if (renamed === undefined) return;
				const base = candidate.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 55) || "tool";
				expect(renamed.startsWith(`${base}_`)).toBe(true);
			}),
			{ seed, numRuns: 2000 },
		);
	});

	it("asks for pi's tool names only when some saved name is unsafe (a request is sent every turn)", () => {
		let asked = 0;
		const known = () => {
			asked++;
			return KNOWN;
		};
		const safeHistory = [assistant(call("c1", "read"), call("c2", "mcp__server__tool")), result("c1", "read")];
		expect(withProviderSafeToolNames(safeHistory, known)).toBeUndefined();
		expect(asked).toBe(0);
		// A known tool with an unsafe spelling is kept, but it takes the list to know that.
		const withMine = () => {
			asked++;
			return [...KNOWN, "my.tool"];
		};
		expect(withProviderSafeToolNames([assistant(call("c3", "my.tool"))], withMine)).toBeUndefined();
		expect(withProviderSafeToolNames([result("c4", "read file")], known)?.renamed).toBe(1);
		expect(asked).toBe(2);
	});

	it("rewrites the call's name and its result's toolName alike, and leaves the rest alone", () => {
		const messages = [
			{ role: "user", content: "go" },
			assistant({ type: "text", text: "Reading." }, call("c1", "read file"), call("c2", "read")),
			result("c1", "read file"),
			result("c2", "read"),
		];
		const before = JSON.stringify(messages);
		const safe = withProviderSafeToolNames(messages, KNOWN);
		expect(safe?.renamed).toBe(1);
		const [user, reply, bad, good] = (safe?.messages ?? []) as Array<Record<string, unknown>>;
		const parts = reply?.content as Array<Record<string, unknown>>;
		const to = parts[1]?.name as string;
		expect(to).toMatch(/^read_file_[0-9a-f]{8}$/);
		expect(bad?.toolName).toBe(to);
		expect(parts[2]?.name).toBe("read");
		expect(good).toBe(messages[3]);
		expect(user).toBe(messages[0]);
		expect(parts[0]).toBe((messages[1] as { content: unknown[] }).content[0]);
		// The input is never mutated: the session keeps the model's name.
		expect(JSON.stringify(messages)).toBe(before);
	});

	it("never touches a name pi knows as a tool, however it is spelled", () => {
		const messages = [assistant(call("c1", "my.tool")), result("c1", "my.tool")];
		expect(withProviderSafeToolNames(messages, [...KNOWN, "my.tool"])).toBeUndefined();
		expect(withProviderSafeToolNames(messages, KNOWN)?.renamed).toBe(1);
	});

	it("changes nothing when every name is safe", () => {
		const messages = [assistant(call("c1", "read"), call("c2", "made_up_tool")), result("c2", "made_up_tool")];
		expect(withProviderSafeToolNames(messages, KNOWN)).toBeUndefined();
	});

	it("shortens a name over 64 characters and keeps two that share a prefix apart", () => {
		const long1 = `${"x".repeat(70)}1`;
		const long2 = `${"x".repeat(70)}2`;
		const renames = providerSafeNames([assistant(call("a", long1), call("b", long2))], KNOWN);
		const a = renames.get(long1) ?? "";
		const b = renames.get(long2) ?? "";
		expect(a).not.toBe(b);
		expect(isProviderSafeToolName(a) && isProviderSafeToolName(b)).toBe(true);
	});

	it("never produces a name already in the history or among pi's tools", () => {
		const first = providerSafeNames([assistant(call("a", "read file"))], KNOWN).get("read file") ?? "";
		const inHistory = providerSafeNames([assistant(call("a", "read file"), call("b", first))], KNOWN);
		const amongTools = providerSafeNames([assistant(call("a", "read file"))], [...KNOWN, first]);
		for (const renamed of [inHistory.get("read file") ?? "", amongTools.get("read file") ?? ""]) {
			expect(renamed).not.toBe(first);
			expect(isProviderSafeToolName(renamed)).toBe(true);
		}
	});

	it("is deterministic: the same names give the same rewrite whatever their order", () => {
		const one = providerSafeNames([assistant(call("a", "b c"), call("b", "a.b"))], KNOWN);
		const two = providerSafeNames([assistant(call("b", "a.b")), assistant(call("a", "b c"))], KNOWN);
		expect([...one.entries()].sort()).toEqual([...two.entries()].sort());
	});

	it("maps distinct names to distinct safe names that collide with nothing (property)", () => {
		fc.assert(
			fc.property(fc.uniqueArray(fc.string({ maxLength: 80 }), { minLength: 1, maxLength: 12 }), (names) => {
				const messages = [assistant(...names.map((name, i) => call(`c${i}`, name)))];
				const renames = providerSafeNames(messages, KNOWN);
				const sent = names.map((name) => renames.get(name) ?? name);
				for (const name of names) {
					expect(renames.has(name)).toBe(!KNOWN.includes(name) && !isProviderSafeToolName(name));
				}
				expect(new Set(sent).size).toBe(names.length);
				for (const to of renames.values()) {
					expect(isProviderSafeToolName(to)).toBe(true);
					expect(KNOWN).not.toContain(to);
				}
			}),
			{ seed, numRuns: 300 },
		);
	});
});

describe("the per-message check of saved names remembers the names it proved safe", () => {
	const STRICT = /^[A-Za-z0-9_-]{1,64}$/;
	const name = fc.oneof(
		fc.constantFrom("read", "bash", "functions.read", "", "a".repeat(64), "a".repeat(65), "read\u0000"),
		fc.string({ maxLength: 70 }),
	);
	const message = fc.oneof(
		fc.array(name, { maxLength: 3 }).map((names) => assistant(...names.map((n, index) => call(`c${index}`, n)))),
		name.map((n) => result("c0", n)),
		fc.constant({ role: "user", content: "read" }),
	);

	it("answers as the pattern does for every message in any order, past the names it keeps", () => {
		fc.assert(
			fc.property(fc.array(message, { maxLength: 120 }), (messages) => {
				const check = new UnsafeNames();
				for (const sent of messages) {
					const names =
						sent.role === "toolResult"
							? [(sent as { toolName: string }).toolName]
							: sent.role === "assistant"
								? (sent.content as { name: string }[]).map((part) => part.name)
								: [];
					expect(check.inMessage(sent)).toBe(names.some((n) => !STRICT.test(n)));
				}
			}),
			{ seed, numRuns: 400 },
		);
	});

	it("never lets a remembered safe name vouch for a different unsafe one", () => {
		const check = new UnsafeNames();
		for (let index = 0; index < 100; index++) expect(check.inMessage(result("c", `tool_${index}`))).toBe(false);
		expect(check.inMessage(result("c", "tool.0"))).toBe(true);
		expect(check.inMessage(assistant(call("a", "read"), call("b", "functions.read")))).toBe(true);
	});
});
