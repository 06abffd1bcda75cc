/**
 * Composition through the real `pi` CLI in print mode, in both load orders:
 * the layer and a second extension that sandboxes `bash` and registers a
 * TypeBox todo tool and a plain-JSON-Schema tool (test/fixtures/
 * composing-extension.ts). The sandbox stays in effect for valid, aliased
 * and rescued calls, the other owner's calls are repaired and noted, the
 * user is told once who owns `bash`, and both commands say so too.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SANDBOX_PREFIX } from "../fixtures/composing-extension.ts";
import { EXTENSION_ENTRY, REPO_ROOT, runPiCli } from "../helpers/pi-cli.ts";

const FIXTURE = join(REPO_ROOT, "test/fixtures/composing-extension.ts");
const TOOLS = ["--tools", "read,bash,edit,write,todo,lookup"];
const ORDERS = [
	["the layer loaded first", { extension: EXTENSION_ENTRY, args: ["-e", FIXTURE, ...TOOLS] }],
	["the layer loaded second", { extension: FIXTURE, args: ["-e", EXTENSION_ENTRY, ...TOOLS] }],
] as const;

function resultOf(stdout: string, id: string): string {
	const start = stdout.indexOf(`--- tool result ${id} `);
	if (start < 0) return "";
	const next = stdout.indexOf("--- tool result ", start + 1);
	return stdout.slice(start, next < 0 ? undefined : next);
}

describe.each(ORDERS)("the real CLI with %s", (_label, load) => {
	it("keeps the sandbox for valid, aliased and rescued calls and repairs the other owner's calls", async () => {
		const run = await runPiCli({
			...load,
			script: [
				{
					toolCalls: [
						{ id: "valid", name: "bash", arguments: { command: "echo one" } },
						{ id: "aliased", name: "bash", arguments: { cmd: "echo two" } },
						{ id: "rescued", name: "bash", rawArguments: JSON.stringify(JSON.stringify({ command: "echo three" })) },
						{ id: "todos", name: "todo", arguments: { todos: JSON.stringify([{ text: "a" }]) } },
						{ id: "garbage", name: "todo", rawArguments: "add milk" },
					],
				},
				{ type: "echo" },
			],
			prepare: ({ root }) =>
				writeFileSync(join(root, "settings.json"), JSON.stringify({ toolAliases: { bash: { command: ["cmd"] } } })),
		});
		try {
			expect(run.exitCode).toBe(0);
			expect(resultOf(run.stdout, "valid")).toContain(`${SANDBOX_PREFIX}echo one`);
			expect(resultOf(run.stdout, "valid")).not.toContain("<repair_note>");
			expect(resultOf(run.stdout, "aliased")).toContain(`${SANDBOX_PREFIX}echo two`);
			expect(resultOf(run.stdout, "aliased")).toContain("<repair_note>");
			expect(resultOf(run.stdout, "rescued")).toContain(`${SANDBOX_PREFIX}echo three`);
			expect(resultOf(run.stdout, "todos")).toContain('todo received {"todos":[{"text":"a"}]}');
			expect(resultOf(run.stdout, "todos")).toContain("<repair_note>");
			expect(resultOf(run.stdout, "garbage")).toContain("(todo, error)");
			expect(resultOf(run.stdout, "garbage")).toContain("add milk");
			const warnings = run.stderr.split("\n").filter((line) => line.includes("`bash` belongs to"));
			expect(warnings).toHaveLength(1);
			expect(warnings[0]).toContain("composing-extension.ts");
		} finally {
			run.cleanup();
		}
	});

	it("names the owner in /repair-settings", async () => {
		const run = await runPiCli({ ...load, script: [], prompt: "/repair-settings" });
		try {
			expect(run.exitCode).toBe(0);
			expect(run.stdout).toContain("Tool repair settings in effect:");
			expect(run.stdout).toContain("`bash` belongs to");
		} finally {
			run.cleanup();
		}
	});
});

describe("/repair-stats with another owner", () => {
	it("counts calls by owner kind and names the owner", async () => {
		const repair = await runPiCli({
			extension: EXTENSION_ENTRY,
			args: ["-e", FIXTURE, ...TOOLS],
			script: [
				{ toolCalls: [{ id: "t", name: "todo", arguments: { todos: JSON.stringify([{ text: "a" }]) } }] },
				{ type: "echo" },
			],
			keep: true,
		});
		try {
			const stats = await runPiCli({
				extension: EXTENSION_ENTRY,
				args: ["-e", FIXTURE],
				script: [],
				prompt: "/repair-stats",
				env: { PI_TOOL_REPAIR_TELEMETRY: repair.telemetryPath },
			});
			try {
				expect(stats.exitCode).toBe(0);
				expect(stats.stdout).toContain("By owner kind:\n  extension: 1 repaired, 0 recovered, 0 unrepairable");
				expect(stats.stdout).toContain("`bash` belongs to");
			} finally {
				stats.cleanup();
			}
		} finally {
			repair.cleanup();
		}
	});
});
