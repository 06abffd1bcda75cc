/**
 * Privacy: nothing the model wrote may leave the
 * conversation through the extension. Every argument field (and every
 * made-up key) of every kind of call — repaired, rescued from malformed JSON
 * text, promoted from a grammar leak, observed, stripped, and failed — holds a
 * unique planted secret. After the run, every file the extension could have
 * written (telemetry, settings, anything in the agent dir), the persisted
 * session entries and stderr are searched: no secret may appear.
 *
 * The workspace is not searched: the tools themselves write files there, as
 * they should. The script file is not searched: it is the model's input.
 *
 * Run twice: through pi's real agent loop in-process (session entries and
 * stderr captured there), and through the real pi CLI in print mode.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { afterEach, describe, expect, it } from "vitest";
import repairExtension from "../../src/index.ts";
import type { ScriptStep } from "../fixtures/scripted-provider.ts";
import { runPiCli } from "../helpers/pi-cli.ts";
import { type PiSessionHarness, startPiSession } from "../helpers/pi-session.ts";

const MODEL = "glm-4.6";
const SETTINGS = { policyProfile: "recover", grammarRecovery: "recover" };

/** Unique, greppable, safe in file names and JSON. */
function makeSecrets(): Record<string, string> {
	const run = randomBytes(4).toString("hex");
	const names = "abcdefghijklmnopqrstuvwxyz".split("").concat(["aa", "bb", "cc", "dd"]);
	return Object.fromEntries(names.map((name) => [name, `Zq${run}${name}Secret`]));
}

function plan(s: Record<string, string>): { files: Record<string, string>; first: ScriptStep[]; second: ScriptStep[] } {
	const files = {
		[`${s.a}.txt`]: "alpha\n",
		"e.txt": `before ${s.e} after\n`,
		"f.txt": `before ${s.g} after\n`,
		[`${s.v}.txt`]: "promoted\n",
		[`${s.s}.txt`]: "singleton\n",
	};
	const first: ScriptStep[] = [
		{
			toolCalls: [
				// Repaired: alias, stringified edits, flat edit fields, null optional, anchor bleed, string number.
				{ id: "c1", name: "read", arguments: { file_path: `${s.a}.txt` } },
				{ id: "c2", name: "bash", arguments: { cmd: `echo ${s.b}` } },
				{ id: "c3", name: "write", arguments: { file_path: `${s.c}.txt`, content: s.d } },
				{
					id: "c4",
					name: "edit",
					arguments: { path: "e.txt", edits: JSON.stringify([{ oldText: s.e, newText: s.f }]) },
				},
				{ id: "c5", name: "edit", arguments: { path: "f.txt", oldText: s.g, newText: s.h } },
				{ id: "c6", name: "grep", arguments: { pattern: s.i, path: null, glob: `*${s.aa}*` } },
				{ id: "c7", name: "ls", arguments: { path: `^${s.j}$` } },
				{ id: "c8", name: "find", arguments: { pattern: s.k, limit: "5" } },
				// Failed: a made-up key only, a string cut off inside, an object where text belongs.
				{ id: "c9", name: "read", arguments: { [s.l as string]: s.m } },
				{ id: "c10", name: "bash", rawArguments: `{"command":"rm -rf ${s.n}` },
				{ id: "c11", name: "write", arguments: { path: s.o, content: { nested: s.p } } },
				// Rescued from text that is not a JSON object.
				{
					id: "c12",
					name: "write",
					rawArguments: JSON.stringify(JSON.stringify({ path: `${s.q}.txt`, content: s.r })),
				},
				{ id: "c13", name: "read", rawArguments: JSON.stringify([{ path: `${s.s}.txt` }]) },
				{ id: "c14", name: "write", rawArguments: `{"path":"${s.t}.txt","content":"${s.u}"` },
			],
		},
		{
			// Promoted: a glm leak for a known tool (the reply to the results above).
			text: `Let me look at ${s.bb}.\n<tool_call>read\n<arg_key>path</arg_key>\n<arg_value>${s.v}.txt</arg_value>\n</tool_call>`,
			stopReason: "stop",
		},
		{
			// Observed: a leak for a tool that does not exist stays as text, never runs.
			text: `Also ${s.dd}.\n<tool_call><function=mystery_tool><parameter=query>${s.w}</parameter></function></tool_call>`,
			stopReason: "stop",
		},
	];
	// Stripped only: a leak in a reply cut off by the token limit is never promoted.
	const second: ScriptStep[] = [
		{
			text: `Partial ${s.cc}.\n<tool_call>read\n<arg_key>path</arg_key>\n<arg_value>${s.x}.txt</arg_value>\n</tool_call>`,
			stopReason: "length",
		},
	];
	return { files, first, second };
}

function filesUnder(dir: string, skip: (path: string) => boolean): string[] {
	const out: string[] = [];
	for (const name of readdirSync(dir)) {
		const path = join(dir, name);
		if (skip(path)) continue;
		if (statSync(path).isDirectory()) out.push(...filesUnder(path, skip));
		else out.push(path);
	}
	return out;
}

function leaks(text: string, secrets: Record<string, string>): string[] {
	return Object.values(secrets).filter((secret) => text.includes(secret));
}

/** Control characters and escape sequences: none may reach a diagnostics line, whatever the model sent. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/**
 * A tool of another extension whose arguments include a record (`env`): its
 * keys are the model's text (a variable name with its value, a path) just as
 * its values are. The schema is closed, so a key the tool does not declare is
 * an issue the layer reports.
 */
function deployExtension(pi: ExtensionAPI): void {
	pi.registerTool({
		name: "deploy",
		label: "Deploy",
		description: "Run a deployment command with environment variables",
		parameters: Type.Object(
			{
				command: Type.String(),
				env: Type.Optional(Type.Record(Type.String(), Type.String())),
				retries: Type.Optional(Type.Number()),
			},
			{ additionalProperties: false },
		),
		execute(_toolCallId, params) {
			return Promise.resolve({
				content: [{ type: "text" as const, text: `deployed ${Object.keys(params).length}` }],
				details: undefined,
			});
		},
	});
}

/** Calls whose record keys, unknown keys and values are all secrets, some with escape sequences in them. */
function recordPlan(s: Record<string, string>): ScriptStep[] {
	return [
		{
			toolCalls: [
				// Unrepairable: a record value of the wrong type, at a key that is `NAME=secret`.
				{ id: "d1", name: "deploy", arguments: { command: s.a, env: { [`API_${s.b}=${s.c}`]: { v: s.d } } } },
				// Unrepairable: a key the tool does not declare.
				{ id: "d2", name: "deploy", arguments: { command: s.e, [s.f as string]: s.g } },
				// Unrepairable: a record key that is a path, and a key with an escape sequence and a line break.
				{
					id: "d3",
					name: "deploy",
					arguments: {
						command: s.h,
						env: { [`/home/${s.i}/.ssh/id_rsa`]: true, [`\u001b[31m${s.j}\n[pi-repair] forged`]: [] },
					},
				},
				// Repaired: the record sent as JSON text, its keys and values secrets.
				{ id: "d4", name: "deploy", arguments: { command: s.k, env: JSON.stringify({ [s.l as string]: s.m }) } },
				// An unknown key beside a repair, and one with control characters.
				{
					id: "d5",
					name: "deploy",
					arguments: { command: s.n, env: JSON.stringify({ A: "b" }), [`\u001b]0;${s.o}\u0007`]: s.p },
				},
				// A built-in with an unknown key and a repair.
				{ id: "d6", name: "read", arguments: { file_path: "a.txt", [`${s.q}\r`]: s.r } },
			],
		},
		{ text: "done", stopReason: "stop" },
	];
}

/** Everything written to this process's stderr while `body` runs (diagnostics lines, warnings), still passed through. */
async function capturingStderr(body: () => Promise<void>): Promise<string[]> {
	const stderr: string[] = [];
	const originalWrite = process.stderr.write.bind(process.stderr);
	process.stderr.write = (chunk: string | Uint8Array, ...rest: unknown[]) => {
		stderr.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
		return originalWrite(chunk, ...(rest as []));
	};
	try {
		await body();
	} finally {
		process.stderr.write = originalWrite;
	}
	return stderr;
}

let run: PiSessionHarness | undefined;
afterEach(async () => {
	await run?.dispose();
	run = undefined;
});

describe("no planted secret leaves through the extension", () => {
	it("in pi's real agent loop: telemetry, settings, agent dir, session entries, stderr", async () => {
		const secrets = makeSecrets();
		const { files, first, second } = plan(secrets);
		// Settings are read at activation, so the file exists before the session starts.
		const settingsDir = mkdtempSync(join(tmpdir(), "pi-repair-privacy-"));
		const settingsPath = join(settingsDir, "settings.json");
		writeFileSync(settingsPath, JSON.stringify(SETTINGS));
		run = await startPiSession({
			model: MODEL,
			files,
			env: { PI_TOOL_REPAIR_SETTINGS: settingsPath, PI_TOOL_REPAIR_LOG: "1" },
		});
		const root = run.root;

		const harness = run;
		const stderr = await capturingStderr(async () => {
			await harness.play(first);
			await harness.play(second, "again");
		});

		// The run really exercised each kind, so the search below means something.
		const outcomes = new Set(run.telemetry().map((record) => record.outcome));
		for (const outcome of ["repaired", "unrepairable", "recovered", "observed", "stripped"]) {
			expect(outcomes).toContain(outcome);
		}
		expect(run.resultText("c1")).toContain("alpha");
		expect(run.toolResult("c9")?.isError).toBe(true);
		expect(run.toolResult("c12")?.isError).toBe(false);
		expect(run.readFile(`${secrets.q}.txt`)).toBe(secrets.r);
		// The secrets really were in play: the conversation itself is full of them.
		expect(leaks(JSON.stringify(run.session.messages), secrets).length).toBeGreaterThan(20);
		const entries = run.sessionManager.getEntries().filter((entry) => entry.type === "custom");
		expect(entries.length).toBeGreaterThan(0);

		const workspace = run.workspace;
		const written = filesUnder(root, (path) => path === workspace);
		expect(written.map((path) => relative(root, path))).toContain("telemetry.jsonl");
		for (const path of written) {
			expect(leaks(readFileSync(path, "utf8"), secrets), `secret found in ${relative(root, path)}`).toEqual([]);
		}
		expect(leaks(JSON.stringify(entries), secrets), "secret found in a persisted entry").toEqual([]);
		expect(leaks(stderr.join(""), secrets), "secret found on stderr").toEqual([]);
		for (const path of filesUnder(settingsDir, () => false)) {
			expect(leaks(readFileSync(path, "utf8"), secrets), `secret found in ${path}`).toEqual([]);
		}
		expect(readFileSync(settingsPath, "utf8")).toBe(JSON.stringify(SETTINGS));
		rmSync(settingsDir, { recursive: true, force: true });
	});

	it("in pi's real agent loop: keys of record arguments and unknown keys never leave, nor control characters", async () => {
		const secrets = makeSecrets();
		run = await startPiSession({
			model: MODEL,
			files: { "a.txt": "alpha\n" },
			extensions: [repairExtension, deployExtension],
			tools: ["read", "bash", "deploy"],
			env: { PI_TOOL_REPAIR_LOG: "1" },
		});
		const harness = run;
		const stderr = await capturingStderr(() => harness.play(recordPlan(secrets)));

		// Each kind really happened, so the search below means something.
		const records = run.telemetry();
		const deploys = records.filter((record) => record.tool === "deploy").map((record) => record.outcome);
		expect(deploys).toContain("unrepairable");
		expect(deploys).toContain("repaired");
		expect(records.some((record) => typeof record.issues === "string" && record.issues.includes("/env/"))).toBe(true);
		const lines = stderr
			.join("")
			.split("\n")
			.filter((line) => line.startsWith("[pi-repair]"));
		expect(lines.some((line) => line.includes("tool=deploy outcome=unrepairable"))).toBe(true);
		expect(leaks(JSON.stringify(run.session.messages), secrets).length).toBeGreaterThan(10);

		const telemetryText = readFileSync(run.telemetryPath, "utf8");
		expect(leaks(telemetryText, secrets), "secret found in telemetry").toEqual([]);
		expect(telemetryText).not.toMatch(/\\u001b|\\u0007|\\r|\\n|forged/);
		const entries = run.sessionManager.getEntries().filter((entry) => entry.type === "custom");
		expect(entries.length).toBeGreaterThan(0);
		expect(leaks(JSON.stringify(entries), secrets), "secret found in a persisted entry").toEqual([]);
		expect(leaks(stderr.join(""), secrets), "secret found on stderr").toEqual([]);
		expect(stderr.join("")).not.toMatch(CONTROL);
		expect(stderr.join("")).not.toContain("forged");
	});

	for (const log of [undefined, "1"]) {
		it(`through the real pi CLI in print mode (PI_TOOL_REPAIR_LOG ${log ?? "off"}): telemetry, settings, agent dir, stderr`, async () => {
			const secrets = makeSecrets();
			const { files, first } = plan(secrets);
			const cli = await runPiCli({
				model: MODEL,
				env: { PI_TOOL_REPAIR_LOG: log },
				script: first,
				files,
				prepare: ({ root }) => writeFileSync(join(root, "settings.json"), JSON.stringify(SETTINGS)),
			});
			try {
				const outcomes = new Set(cli.telemetry().map((record) => record.outcome));
				for (const outcome of ["repaired", "unrepairable", "recovered", "observed"])
					expect(outcomes).toContain(outcome);
				const written = filesUnder(
					cli.root,
					(path) => path === cli.workspace || path === join(cli.root, "script.json"),
				);
				for (const path of written) {
					expect(leaks(readFileSync(path, "utf8"), secrets), `secret found in ${relative(cli.root, path)}`).toEqual([]);
				}
				expect(leaks(cli.stderr, secrets), `secret found on stderr:\n${cli.stderr}`).toEqual([]);
				expect(readFileSync(cli.settingsPath, "utf8")).toBe(JSON.stringify(SETTINGS));
				if (log) expect(cli.stderr).toContain("[pi-repair] tool=");
			} finally {
				cli.cleanup();
			}
		});
	}
});
