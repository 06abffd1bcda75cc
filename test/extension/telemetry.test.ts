/**
 * Telemetry records: location and switches, the key order of each record
 * type (stable, so a reader can rely on it), whole-line appends that survive two
 * processes writing at once, rotation at a size limit, and errors that never
 * reach the caller.
 */
import { execFileSync, spawn } from "node:child_process";
import {
	closeSync,
	constants,
	existsSync,
	mkdirSync,
	mkdtempSync,
	openSync,
	readFileSync,
	readSync,
	rmSync,
	statSync,
	symlinkSync,
	utimesSync,
	writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
	createTelemetryRecorder,
	rotatedTelemetryPath,
	TELEMETRY_ROTATE_BYTES,
	telemetryPath,
} from "../../src/extension/files/telemetry.ts";

const TELEMETRY_MODULE = new URL("../../src/extension/files/telemetry.ts", import.meta.url).pathname;
const FIXED = new Date("2026-07-20T09:14:03.120Z");

let dir: string;
let file: string;
const savedEnv = { telemetry: process.env.PI_TOOL_REPAIR_TELEMETRY, agent: process.env.PI_CODING_AGENT_DIR };

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "repair-telemetry-"));
	file = join(dir, "telemetry.jsonl");
});

afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
	if (savedEnv.telemetry === undefined) delete process.env.PI_TOOL_REPAIR_TELEMETRY;
	else process.env.PI_TOOL_REPAIR_TELEMETRY = savedEnv.telemetry;
	if (savedEnv.agent === undefined) delete process.env.PI_CODING_AGENT_DIR;
	else process.env.PI_CODING_AGENT_DIR = savedEnv.agent;
});

function lines(path: string): string[] {
	return readFileSync(path, "utf8")
		.split("\n")
		.filter((line) => line !== "");
}

function recorderAt(path: string) {
	return createTelemetryRecorder({ path: () => path, now: () => FIXED });
}

describe("location and switches", () => {
	for (const value of ["off", "0", "false"]) {
		it(`is disabled by PI_TOOL_REPAIR_TELEMETRY=${value} and touches no file`, () => {
			process.env.PI_CODING_AGENT_DIR = dir;
			process.env.PI_TOOL_REPAIR_TELEMETRY = value;
			expect(telemetryPath()).toBeUndefined();
			createTelemetryRecorder().grammarStripped({ model: "m", grammars: ["dsml"], profile: "adaptive" });
			expect(existsSync(join(dir, "tool-repair"))).toBe(false);
			expect(existsSync(value)).toBe(false);
		});
	}

	it("treats switch words in another case as a file path", () => {
		process.env.PI_TOOL_REPAIR_TELEMETRY = "OFF";
		expect(telemetryPath()).toBe("OFF");
	});

	it("uses any other non-empty value as the path", () => {
		process.env.PI_TOOL_REPAIR_TELEMETRY = file;
		createTelemetryRecorder().toolObservation({ tool: "ls", model: "m", ruleId: "stripAnchorBleed", profile: "x" });
		expect(lines(file)).toHaveLength(1);
	});

	it("keeps a relative path relative, so it resolves against the process cwd", () => {
		process.env.PI_TOOL_REPAIR_TELEMETRY = "relative/telemetry.jsonl";
		expect(telemetryPath()).toBe("relative/telemetry.jsonl");
	});

	for (const [name, value] of [
		["unset", undefined],
		["empty", ""],
	] as const) {
		it(`defaults to tool-repair/telemetry.jsonl under the agent dir when ${name}`, () => {
			process.env.PI_CODING_AGENT_DIR = dir;
			if (value === undefined) delete process.env.PI_TOOL_REPAIR_TELEMETRY;
			else process.env.PI_TOOL_REPAIR_TELEMETRY = value;
			expect(telemetryPath()).toBe(join(dir, "tool-repair", "telemetry.jsonl"));
		});
	}

	it("reads the switch at every write", () => {
		process.env.PI_TOOL_REPAIR_TELEMETRY = file;
		const recorder = createTelemetryRecorder();
		const event = { model: "m", grammars: ["qwen"], profile: "adaptive" };
		recorder.grammarObserved(event);
		process.env.PI_TOOL_REPAIR_TELEMETRY = "off";
		recorder.grammarObserved(event);
		process.env.PI_TOOL_REPAIR_TELEMETRY = file;
		recorder.grammarObserved(event);
		expect(lines(file)).toHaveLength(2);
	});

	it("creates the parent folders on the first write", () => {
		const nested = join(dir, "a", "b", "telemetry.jsonl");
		recorderAt(nested).grammarStripped({ model: "m", grammars: ["dsml"], profile: "adaptive" });
		expect(lines(nested)).toHaveLength(1);
	});

	it("writes ts as UTC ISO with milliseconds", () => {
		createTelemetryRecorder({ path: () => file }).grammarStripped({ model: "m", grammars: ["x"], profile: "a" });
		expect(JSON.parse(lines(file)[0] ?? "{}").ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
	});
});

describe("record types and key order", () => {
	it("A: a repair outcome with issues and fingerprint", () => {
		recorderAt(file).toolOutcome({
			tool: "write",
			model: "qwen3-coder-plus",
			outcome: "unrepairable",
			rules: [],
			issues: "/content|type|string",
			fingerprint: "5be1a09c",
			profile: "adaptive",
			stages: [],
		});
		expect(lines(file)).toEqual([
			'{"ts":"2026-07-20T09:14:03.120Z","tool":"write","model":"qwen3-coder-plus","outcome":"unrepairable","rules":[],"issues":"/content|type|string","fingerprint":"5be1a09c","profile":"adaptive","stages":[]}',
		]);
	});

	it("A: issues, fingerprint and an unknown model are absent, not null", () => {
		recorderAt(file).toolOutcome({
			tool: "read",
			model: undefined,
			outcome: "repaired",
			rules: ["preprocess.exact-alias"],
			profile: "adaptive",
			stages: ["preprocess"],
		});
		const record = JSON.parse(lines(file)[0] ?? "{}");
		expect(Object.keys(record)).toEqual(["ts", "tool", "outcome", "rules", "profile", "stages"]);
		expect(record).not.toHaveProperty("channel");
	});

	it("B: a tool-channel observation", () => {
		recorderAt(file).toolObservation({
			tool: "ls",
			model: "kimi-k2-instruct",
			ruleId: "stripAnchorBleed",
			profile: "conservative",
		});
		expect(lines(file)).toEqual([
			'{"ts":"2026-07-20T09:14:03.120Z","kind":"observation","tool":"ls","model":"kimi-k2-instruct","outcome":"observed","rules":["stripAnchorBleed"],"channel":"tool","profile":"conservative","stages":["valid-value"],"observation":true}',
		]);
	});

	it("C: a grammar recovery, without a channel", () => {
		recorderAt(file).grammarRecovered({ tool: "read", model: "glm-4.6", grammar: "glm", profile: "recover" });
		expect(lines(file)).toEqual([
			'{"ts":"2026-07-20T09:14:03.120Z","tool":"read","model":"glm-4.6","outcome":"recovered","rules":["grammarRecovery:glm"],"grammar":"glm","profile":"recover","stages":["grammar"]}',
		]);
	});

	it("D: a grammar strip on the message channel", () => {
		recorderAt(file).grammarStripped({ model: "deepseek-v4-flash", grammars: ["dsml"], profile: "adaptive" });
		expect(lines(file)).toEqual([
			'{"ts":"2026-07-20T09:14:03.120Z","kind":"leak-stripped","model":"deepseek-v4-flash","outcome":"stripped","rules":["grammarStrip"],"channel":"message","grammar":"dsml","profile":"adaptive","stages":["grammar"]}',
		]);
	});

	it("E: a grammar observation joins the families with commas", () => {
		recorderAt(file).grammarObserved({
			model: "Qwen3-Coder-30B",
			grammars: ["qwen", "granite"],
			profile: "conservative",
		});
		expect(lines(file)).toEqual([
			'{"ts":"2026-07-20T09:14:03.120Z","kind":"leak-observed","model":"Qwen3-Coder-30B","outcome":"observed","rules":["grammarObserve"],"channel":"message","grammar":"qwen,granite","profile":"conservative","stages":["grammar"],"observation":true}',
		]);
	});

	it("G: a continuation says it is one, and which kind of stop it followed", () => {
		const recorder = recorderAt(file);
		recorder.continued?.({ model: "glm-4.6", profile: "adaptive", phantom: true, reasoningOnly: false, grammars: [] });
		recorder.continued?.({ model: "glm-4.6", profile: "adaptive", phantom: false, reasoningOnly: true, grammars: [] });
		const records = lines(file).map((line) => JSON.parse(line) as Record<string, unknown>);
		expect(records.map((record) => record.kind)).toEqual(["continuation", "continuation"]);
		expect(records.map((record) => [record.phantom, record.reasoningOnly])).toEqual([
			[true, false],
			[false, true],
		]);
	});

	// A script that reads repair records by `tool` and `outcome` finds them as before: only the other records carry a kind.
	it("keeps kind off the repair records A and C, and puts it on every other record", () => {
		const recorder = recorderAt(file);
		recorder.toolOutcome({ tool: "read", model: "m", outcome: "repaired", rules: [], profile: "a", stages: [] });
		recorder.grammarRecovered({ tool: "read", model: "glm-4.6", grammar: "glm", profile: "recover" });
		recorder.toolObservation({ tool: "ls", model: "m", ruleId: "stripAnchorBleed", profile: "conservative" });
		recorder.grammarStripped({ model: "m", grammars: ["dsml"], profile: "adaptive" });
		recorder.grammarObserved({ model: "m", grammars: ["qwen"], profile: "adaptive" });
		recorder.continued?.({ model: "m", profile: "adaptive", phantom: false, reasoningOnly: false, grammars: ["glm"] });
		const records = lines(file).map((line) => JSON.parse(line) as Record<string, unknown>);
		expect(records.map((record) => record.kind)).toEqual([
			undefined,
			undefined,
			"observation",
			"leak-stripped",
			"leak-observed",
			"continuation",
		]);
		const repairs = records.filter((record) => record.kind === undefined && typeof record.tool === "string");
		expect(repairs.map((record) => record.outcome)).toEqual(["repaired", "recovered"]);
	});

	it("copies the caller's arrays instead of keeping them", () => {
		const rules = ["preprocess.exact-alias"];
		const recorder = recorderAt(file);
		recorder.toolOutcome({ tool: "read", model: "m", outcome: "repaired", rules, profile: "a", stages: [] });
		rules.push("later");
		expect(JSON.parse(lines(file)[0] ?? "{}").rules).toEqual(["preprocess.exact-alias"]);
	});
});

describe("failures are swallowed", () => {
	it("never throws when the target is a directory", () => {
		mkdirSync(file);
		const recorder = recorderAt(file);
		expect(() => recorder.grammarStripped({ model: "m", grammars: ["dsml"], profile: "adaptive" })).not.toThrow();
	});

	it("never throws when a file stands where the folder should be", () => {
		writeFileSync(join(dir, "blocker"), "x");
		const recorder = recorderAt(join(dir, "blocker", "telemetry.jsonl"));
		expect(() => recorder.grammarStripped({ model: "m", grammars: ["dsml"], profile: "adaptive" })).not.toThrow();
		expect(readFileSync(join(dir, "blocker"), "utf8")).toBe("x");
	});

	it("never throws when the path resolver or the clock throws", () => {
		const broken = createTelemetryRecorder({
			path: () => {
				throw new Error("boom");
			},
		});
		expect(() => broken.grammarStripped({ model: "m", grammars: ["x"], profile: "a" })).not.toThrow();
		const badClock = createTelemetryRecorder({ path: () => file, now: () => new Date(Number.NaN) });
		expect(() => badClock.grammarStripped({ model: "m", grammars: ["x"], profile: "a" })).not.toThrow();
	});
});

describe("files stay safe", () => {
	const event = { model: "m", grammars: ["dsml"], profile: "adaptive" };

	function warnedRecorder(path: string, options: { rotateBytes?: number } = {}) {
		const warnings: string[] = [];
		const recorder = createTelemetryRecorder({
			path: () => path,
			now: () => FIXED,
			warn: (text) => warnings.push(text),
			...options,
		});
		return { recorder, warnings };
	}

	it("writes nothing into a FIFO, even one with a reader waiting, and warns once", () => {
		const fifo = join(dir, "telemetry.jsonl");
		execFileSync("mkfifo", [fifo]);
		const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
		try {
			const { recorder, warnings } = warnedRecorder(fifo);
			recorder.grammarStripped(event);
			recorder.grammarStripped(event);
			let received = 0;
			try {
				received = readSync(reader, Buffer.alloc(4096), 0, 4096, null);
			} catch (error) {
				// EAGAIN: the FIFO is empty, which is the point.
				expect((error as { code?: string }).code).toBe("EAGAIN");
			}
			expect(received).toBe(0);
			expect(warnings).toEqual([expect.stringContaining("is not a regular file")]);
		} finally {
			closeSync(reader);
		}
	});

	it("writes nothing to a device such as /dev/zero and warns once", () => {
		const { recorder, warnings } = warnedRecorder("/dev/zero");
		recorder.grammarStripped(event);
		recorder.grammarStripped(event);
		expect(warnings).toEqual(["tool-repair telemetry file /dev/zero is not a regular file; nothing is written to it."]);
	});

	it("skips a socket with one warning", async () => {
		const socket = join(dir, "telemetry.sock");
		const server = createServer();
		await new Promise<void>((resolve) => server.listen(socket, resolve));
		try {
			const { recorder, warnings } = warnedRecorder(socket);
			recorder.grammarStripped(event);
			recorder.grammarStripped(event);
			expect(warnings).toHaveLength(1);
			expect(warnings[0]).toContain(socket);
		} finally {
			await new Promise((resolve) => server.close(resolve));
		}
	});

	it("creates the file private (0600) and the folders it makes private (0700)", () => {
		const nested = join(dir, "a", "b", "telemetry.jsonl");
		warnedRecorder(nested).recorder.grammarStripped(event);
		expect(statSync(nested).mode & 0o777).toBe(0o600);
		expect(statSync(join(dir, "a", "b")).mode & 0o777).toBe(0o700);
		expect(statSync(join(dir, "a")).mode & 0o777).toBe(0o700);
	});

	it("does not follow a dangling symlink to create the file it points at", () => {
		const target = join(dir, "elsewhere.jsonl");
		symlinkSync(target, file);
		const { recorder, warnings } = warnedRecorder(file);
		recorder.grammarStripped(event);
		recorder.grammarStripped(event);
		expect(existsSync(target)).toBe(false);
		expect(warnings).toEqual([expect.stringContaining("symbolic link to a missing file")]);
	});

	it("appends through a symlink to an existing file, as a dotfile manager sets it up", () => {
		const target = join(dir, "elsewhere.jsonl");
		writeFileSync(target, "");
		symlinkSync(target, file);
		warnedRecorder(file).recorder.grammarStripped(event);
		expect(lines(target)).toHaveLength(1);
	});

	it("ends a line an earlier write left unfinished, so the next record stands alone", () => {
		writeFileSync(file, '{"ts":"2026-07-20T09:00:00.000Z","outcome":"repai');
		warnedRecorder(file).recorder.grammarStripped(event);
		const all = lines(file);
		expect(all).toHaveLength(2);
		expect(JSON.parse(all[1] ?? "").outcome).toBe("stripped");
	});

	it("never lets a write cut short by the file size limit merge with the next record", () => {
		// A real short write: the child may grow the file to 1 KiB only (ulimit -f counts KiB blocks).
		writeFileSync(file, `${JSON.stringify({ ts: "t", outcome: "repaired", rules: [], pad: "p".repeat(900) })}\n`);
		const script = `
			import { createTelemetryRecorder } from ${JSON.stringify(TELEMETRY_MODULE)};
			const recorder = createTelemetryRecorder({ path: () => ${JSON.stringify(file)} });
			recorder.toolOutcome({ tool: "read", model: "cut", outcome: "repaired", rules: Array.from({ length: 20 }, (_, i) => "rule." + i), profile: "adaptive", stages: [] });
		`;
		const stderr = execFileSync(
			"bash",
			["-c", 'ulimit -f 1; exec "$0" --input-type=module -e "$1" 2>&1', process.execPath, script],
			{ encoding: "utf8" },
		);
		expect(stderr).toContain("took only");
		expect(statSync(file).size).toBe(1024);
		warnedRecorder(file).recorder.grammarStripped(event);
		const all = lines(file);
		expect(all).toHaveLength(3);
		expect(() => JSON.parse(all[1] ?? "")).toThrow();
		expect(JSON.parse(all[2] ?? "").outcome).toBe("stripped");
	});

	it("never rotates over a <file>.1 the layer did not write, and says so once", () => {
		writeFileSync(rotatedTelemetryPath(file), "my own notes\n");
		const { recorder, warnings } = warnedRecorder(file, { rotateBytes: 1024 });
		for (let i = 0; i < 20; i++) recorder.grammarStripped(event);
		expect(readFileSync(rotatedTelemetryPath(file), "utf8")).toBe("my own notes\n");
		expect(lines(file)).toHaveLength(20);
		expect(warnings).toEqual([expect.stringContaining("was not written by tool-repair")]);
	});

	it("never rotates over a symlink or folder at <file>.1", () => {
		mkdirSync(rotatedTelemetryPath(file));
		const { recorder, warnings } = warnedRecorder(file, { rotateBytes: 1024 });
		for (let i = 0; i < 20; i++) recorder.grammarStripped(event);
		expect(statSync(rotatedTelemetryPath(file)).isDirectory()).toBe(true);
		expect(lines(file)).toHaveLength(20);
		expect(warnings).toHaveLength(1);
	});
});

describe("rotation", () => {
	/** The size check and the rename run on the event loop after the append; wait for them. */
	async function until(condition: () => boolean): Promise<void> {
		const end = Date.now() + 5000;
		while (!condition() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 5));
	}

	async function settle(): Promise<void> {
		for (let i = 0; i < 10; i++) await new Promise((resolve) => setTimeout(resolve, 5));
	}

	it("rotates at 10 MB by default", () => {
		expect(TELEMETRY_ROTATE_BYTES).toBe(10 * 1024 * 1024);
	});

	it("moves a file past the limit to <file>.1 and starts a new one", async () => {
		const recorder = createTelemetryRecorder({ path: () => file, rotateBytes: 4096 });
		const event = { model: "m", grammars: ["dsml"], profile: "adaptive" };
		for (let i = 0; i < 40; i++) recorder.grammarStripped(event);
		await until(() => existsSync(rotatedTelemetryPath(file)));
		expect(existsSync(rotatedTelemetryPath(file))).toBe(true);
		expect(statSync(rotatedTelemetryPath(file)).size).toBeGreaterThanOrEqual(4096);
		recorder.grammarStripped(event);
		expect(lines(file).length).toBeGreaterThanOrEqual(1);
		expect(lines(file).length + lines(rotatedTelemetryPath(file)).length).toBe(41);
	});

	it("keeps only one previous file: a second rotation replaces it", async () => {
		const recorder = createTelemetryRecorder({ path: () => file, rotateBytes: 2048 });
		const first = { model: "first", grammars: ["dsml"], profile: "adaptive" };
		const second = { model: "second", grammars: ["dsml"], profile: "adaptive" };
		for (let i = 0; i < 30; i++) recorder.grammarStripped(first);
		await until(() => existsSync(rotatedTelemetryPath(file)));
		await settle();
		for (let i = 0; i < 30; i++) recorder.grammarStripped(second);
		await until(() => readFileSync(rotatedTelemetryPath(file), "utf8").includes("second"));
		const previous = lines(rotatedTelemetryPath(file)).map((line) => JSON.parse(line).model);
		expect(previous).toContain("second");
		expect(existsSync(`${file}.2`)).toBe(false);
	});

	it("leaves the rotation to the process holding the lock", async () => {
		writeFileSync(file, `${"x".repeat(5000)}\n`);
		writeFileSync(`${file}.rotate-lock`, "");
		createTelemetryRecorder({ path: () => file, rotateBytes: 4096 }).grammarStripped({
			model: "m",
			grammars: ["dsml"],
			profile: "adaptive",
		});
		await settle();
		expect(existsSync(rotatedTelemetryPath(file))).toBe(false);
		expect(existsSync(`${file}.rotate-lock`)).toBe(true);
	});

	it("clears a lock left by a process that died mid-rotation, then rotates", async () => {
		writeFileSync(file, `${"x".repeat(5000)}\n`);
		writeFileSync(`${file}.rotate-lock`, "");
		utimesSync(`${file}.rotate-lock`, new Date(2020, 0, 1), new Date(2020, 0, 1));
		const recorder = createTelemetryRecorder({ path: () => file, rotateBytes: 4096 });
		const event = { model: "m", grammars: ["dsml"], profile: "adaptive" };
		recorder.grammarStripped(event);
		await until(() => !existsSync(`${file}.rotate-lock`));
		for (let i = 0; i < 10; i++) recorder.grammarStripped(event);
		await until(() => existsSync(rotatedTelemetryPath(file)));
		expect(existsSync(rotatedTelemetryPath(file))).toBe(true);
		expect(existsSync(`${file}.rotate-lock`)).toBe(false);
	});

	it("rotates a file left large by an earlier run on the first append", async () => {
		writeFileSync(file, `${"x".repeat(5000)}\n`);
		createTelemetryRecorder({ path: () => file, rotateBytes: 4096 }).grammarStripped({
			model: "m",
			grammars: ["dsml"],
			profile: "adaptive",
		});
		await until(() => existsSync(rotatedTelemetryPath(file)));
		expect(existsSync(rotatedTelemetryPath(file))).toBe(true);
	});
});

const WRITER_NAMES = ["alpha", "beta", "gamma", "delta"];

describe("processes appending at once", () => {
	const perChild = 4000;

	/**
	 * Child processes (two unless `writers` says otherwise) append `perChild`
	 * records each, starting together; returns what they wrote on stderr (their
	 * warnings) when all have exited.
	 */
	async function runWriters(
		options: { rotateBytes?: number; yieldEvery?: number; writers?: number; perChild?: number } = {},
	): Promise<string> {
		const count = options.perChild ?? perChild;
		const recorderOptions = `{ path: () => ${JSON.stringify(file)}${options.rotateBytes ? `, rotateBytes: ${options.rotateBytes}` : ""} }`;
		const script = (name: string) => `
			import { createTelemetryRecorder } from ${JSON.stringify(TELEMETRY_MODULE)};
			const recorder = createTelemetryRecorder(${recorderOptions});
			// A long rule list makes each line several hundred bytes, well past a pipe's small-write size.
			const rules = Array.from({ length: 40 }, (_, i) => "rule." + i);
			const go = new Promise((resolve) => process.stdin.once("data", resolve));
			process.stdout.write("ready\\n");
			await go;
			for (let i = 0; i < ${count}; i++) {
				recorder.toolOutcome({ tool: ${JSON.stringify(name)}, model: "seq-" + i, outcome: "repaired", rules, profile: "adaptive", stages: ["preprocess"] });
				// Yielding lets the asynchronous size check and rotation run between appends.
				if (${options.yieldEvery ?? 0} > 0 && i % ${options.yieldEvery ?? 1} === 0) await new Promise((r) => setImmediate(r));
			}
			await new Promise((r) => setTimeout(r, 50));
		`;
		const names = WRITER_NAMES.slice(0, options.writers ?? 2);
		let stderr = "";
		const children = names.map((name) => {
			const child = spawn(process.execPath, ["--input-type=module", "-e", script(name)], {
				stdio: ["pipe", "pipe", "pipe"],
			});
			child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
				stderr += chunk;
			});
			return child;
		});
		// Both children start writing at the same moment, once both are loaded.
		await Promise.all(
			children.map(
				(child) =>
					new Promise((resolve, reject) => {
						child.stdout.once("data", resolve);
						child.once("exit", (code) => reject(new Error(`writer exited early with ${code}`)));
					}),
			),
		);
		for (const child of children) child.stdin.end("go\n");
		const codes = await Promise.all(children.map((child) => new Promise((resolve) => child.once("close", resolve))));
		expect(codes).toEqual(names.map(() => 0));
		return stderr;
	}

	function expectEveryRecordOnce(records: { tool: string; model: string }[], writers = 2, count = perChild): void {
		expect(records).toHaveLength(writers * count);
		for (const name of WRITER_NAMES.slice(0, writers)) {
			const seqs = records.filter((record) => record.tool === name).map((record) => record.model);
			expect(seqs).toEqual(Array.from({ length: count }, (_, i) => `seq-${i}`));
		}
	}

	it("lose no record and interleave no line", async () => {
		await runWriters();
		expectEveryRecordOnce(lines(file).map((line) => JSON.parse(line)));
	});

	it("lose nothing across a rotation that happens while both write", async () => {
		// About 4.4 MB in total against a 3 MB limit: exactly one rotation.
		expect(await runWriters({ rotateBytes: 3 * 1024 * 1024, yieldEvery: 25 })).toBe("");
		expect(existsSync(rotatedTelemetryPath(file))).toBe(true);
		const all = [...lines(rotatedTelemetryPath(file)), ...lines(file)].map((line) => JSON.parse(line));
		expectEveryRecordOnce(all);
	});

	it("four writers racing for one rotation lose no record and print no warning", async () => {
		// About 1.5 MB in total against a 1 MB limit: every writer crosses it, one rotation wins.
		const stderr = await runWriters({ rotateBytes: 1024 * 1024, yieldEvery: 1, writers: 4, perChild: 600 });
		expect(stderr).toBe("");
		expect(existsSync(rotatedTelemetryPath(file))).toBe(true);
		const all = [...lines(rotatedTelemetryPath(file)), ...lines(file)].map((line) => JSON.parse(line));
		expectEveryRecordOnce(all, 4, 600);
	}, 120_000);

	it("four writers rotating again and again print no warning and leave no lock", async () => {
		// A 16 KB limit: hundreds of rotations, each raced by the other writers' appends and size checks.
		const stderr = await runWriters({ rotateBytes: 16 * 1024, yieldEvery: 1, writers: 4, perChild: 800 });
		expect(stderr).toBe("");
		expect(existsSync(`${file}.rotate-lock`)).toBe(false);
		// The last append may have rotated the file away, leaving only <file>.1.
		const current = existsSync(file) ? lines(file) : [];
		for (const line of [...lines(rotatedTelemetryPath(file)), ...current]) expect(() => JSON.parse(line)).not.toThrow();
	}, 120_000);
});
