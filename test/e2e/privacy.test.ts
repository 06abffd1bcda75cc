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
import { afterEach, describe, expect, it } from "vitest";
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
		run = await startPiSession({ model: MODEL, files, env: { PI_TOOL_REPAIR_SETTINGS: settingsPath } });
		const root = run.root;

		const stderr: string[] = [];
		const originalWrite = process.stderr.write.bind(process.stderr);
		process.stderr.write = (chunk: string | Uint8Array, ...rest: unknown[]) => {
			stderr.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
			return originalWrite(chunk, ...(rest as []));
		};
		try {
			await run.play(first);
			await run.play(second, "again");
		} finally {
			process.stderr.write = originalWrite;
		}

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
