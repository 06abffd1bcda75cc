/**
 * `/repair-stats` aggregation: what
 * each record counts toward, the rotated file read first, bad lines skipped,
 * the `--since` / `--model` filters, and a streaming read that copes with
 * lines split across chunks and lines too long to be records.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
	aggregateTelemetryFiles,
	MAX_DISTINCT_NAMES,
	MAX_RECORD_LINE_BYTES,
	OTHER_NAMES,
	parseSince,
	parseStatsArgs,
	StatsAccumulator,
	telemetryFilesToRead,
} from "../../src/extension/files/stats.ts";
import { createTelemetryRecorder } from "../../src/extension/files/telemetry.ts";

let dir: string;
let file: string;

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "repair-stats-"));
	file = join(dir, "telemetry.jsonl");
});

afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
});

/** One record of each kind: a read alias repair, an unrepairable write, a GLM recovery, a DSML strip, a qwen observation. */
function writeOneOfEachKind(path: string): void {
	const recorder = createTelemetryRecorder({ path: () => path });
	recorder.toolOutcome({
		tool: "read",
		model: "glm-4.6",
		outcome: "repaired",
		rules: ["preprocess.exact-alias"],
		profile: "adaptive",
		stages: ["preprocess"],
	});
	recorder.toolOutcome({
		tool: "write",
		model: "glm-4.6",
		outcome: "unrepairable",
		rules: [],
		issues: "/content|type|string",
		fingerprint: "5be1a09c",
		profile: "adaptive",
		stages: [],
	});
	recorder.grammarRecovered({ tool: "read", model: "glm-4.6", grammar: "glm", profile: "recover" });
	recorder.grammarStripped({ model: "glm-4.6", grammars: ["dsml"], profile: "adaptive" });
	recorder.grammarObserved({ model: "glm-4.6", grammars: ["qwen"], profile: "adaptive" });
}

describe("what each record counts toward", () => {
	it("tallies one record of each kind where it belongs", async () => {
		writeOneOfEachKind(file);
		const stats = await aggregateTelemetryFiles([file]);
		expect(stats).toBeDefined();
		expect(stats?.total).toBe(5);
		expect(stats?.toolEvents).toBe(3);
		expect(stats?.messageEvents).toBe(2);
		expect([...(stats?.byTool ?? [])]).toEqual([
			["read", { repaired: 1, recovered: 1, unrepairable: 0 }],
			["write", { repaired: 0, recovered: 0, unrepairable: 1 }],
		]);
		expect([...(stats?.byModel ?? [])]).toEqual([["glm-4.6", { repaired: 1, recovered: 1, unrepairable: 1 }]]);
		expect([...(stats?.grammars ?? [])]).toEqual([
			["dsml", 1],
			["qwen", 1],
		]);
		expect([...(stats?.rules ?? [])]).toEqual([
			["preprocess.exact-alias", 1],
			["grammarRecovery:glm", 1],
			["grammarStrip", 1],
			["grammarObserve", 1],
		]);
	});

	it("counts each family of a comma-joined grammar field", () => {
		const acc = new StatsAccumulator();
		acc.addLine('{"outcome":"observed","rules":["grammarObserve"],"channel":"message","grammar":"qwen,granite"}');
		expect([...acc.stats.grammars]).toEqual([
			["qwen", 1],
			["granite", 1],
		]);
	});

	it("counts a leak that was stripped and then continued once in the families, and the continuation by its rule", () => {
		const acc = new StatsAccumulator();
		acc.addLine('{"outcome":"stripped","rules":["grammarStrip"],"channel":"message","grammar":"glm"}');
		acc.addLine('{"outcome":"continued","rules":["continueSilentStop"],"channel":"message","grammar":"glm"}');
		expect([...acc.stats.grammars]).toEqual([["glm", 1]]);
		expect(acc.stats.rules.get("continueSilentStop")).toBe(1);
	});

	it("counts a message record without a grammar as the unknown family", () => {
		const acc = new StatsAccumulator();
		acc.addLine('{"outcome":"stripped","rules":["grammarStrip"],"channel":"message"}');
		expect([...acc.stats.grammars]).toEqual([["unknown", 1]]);
	});

	it("shows a tool-channel observation as an all-zero row whose rule still counts", () => {
		const acc = new StatsAccumulator();
		acc.addLine(
			'{"tool":"ls","model":"kimi","outcome":"observed","rules":["stripAnchorBleed"],"channel":"tool","observation":true}',
		);
		expect(acc.stats.toolEvents).toBe(1);
		expect([...acc.stats.byTool]).toEqual([["ls", { repaired: 0, recovered: 0, unrepairable: 0 }]]);
		expect([...acc.stats.rules]).toEqual([["stripAnchorBleed", 1]]);
	});

	it("files records without tool or model under unknown", () => {
		const acc = new StatsAccumulator();
		acc.addLine('{"outcome":"repaired","rules":[]}');
		expect([...acc.stats.byTool.keys()]).toEqual(["unknown"]);
		expect([...acc.stats.byModel.keys()]).toEqual(["unknown"]);
	});

	it("survives records whose rules are missing or hold non-strings", () => {
		const acc = new StatsAccumulator();
		acc.addLine('{"tool":"read","outcome":"repaired"}');
		acc.addLine('{"tool":"read","outcome":"repaired","rules":["a",3,null,"a"]}');
		expect(acc.stats.total).toBe(2);
		expect([...acc.stats.rules]).toEqual([["a", 2]]);
	});
});

describe("records written before kind existed", () => {
	// Files written by an earlier version have no `kind`; /repair-stats counts them as it counts the new ones.
	it("counts an old file without kind exactly as the same records with kind", () => {
		const recorded: string[] = [];
		const path = join(mkdtempSync(join(tmpdir(), "repair-stats-kind-")), "telemetry.jsonl");
		const recorder = createTelemetryRecorder({ path: () => path, now: () => new Date(0) });
		recorder.toolOutcome({ tool: "read", model: "m", outcome: "repaired", rules: ["r"], profile: "a", stages: [] });
		recorder.toolObservation({ tool: "ls", model: "m", ruleId: "stripAnchorBleed", profile: "conservative" });
		recorder.grammarStripped({ model: "m", grammars: ["dsml"], profile: "adaptive" });
		recorder.grammarObserved({ model: "m", grammars: ["qwen"], profile: "adaptive" });
		recorder.continued?.({ model: "m", profile: "adaptive", phantom: true, reasoningOnly: false, grammars: [] });
		for (const line of readFileSync(path, "utf8").split("\n")) if (line !== "") recorded.push(line);
		rmSync(dirname(path), { recursive: true, force: true });
		const withKind = new StatsAccumulator();
		const withoutKind = new StatsAccumulator();
		for (const line of recorded) {
			withKind.addLine(line);
			const { kind: _kind, ...old } = JSON.parse(line) as Record<string, unknown>;
			withoutKind.addLine(JSON.stringify(old));
		}
		expect(recorded.filter((line) => line.includes('"kind"'))).toHaveLength(4);
		expect(withoutKind.stats).toEqual(withKind.stats);
		expect(withKind.stats.total).toBe(5);
	});
});

describe("bad lines are skipped, never fatal", () => {
	it("skips broken JSON, non-objects and blank lines, and counts the bad ones", async () => {
		writeFileSync(
			file,
			[
				'{"tool":"read","outcome":"repaired","rules":["r"]}',
				"",
				"   ",
				'{"tool":"read","outc',
				"null",
				"[1,2]",
				'"text"',
				"42",
				"not json at all",
				'{"tool":"bash","outcome":"unrepairable","rules":[]}',
				"",
			].join("\n"),
		);
		const stats = await aggregateTelemetryFiles([file]);
		expect(stats?.total).toBe(2);
		expect(stats?.skippedLines).toBe(6);
	});

	it("reads a last line that has no newline", async () => {
		writeFileSync(
			file,
			'{"tool":"read","outcome":"repaired","rules":[]}\n{"tool":"ls","outcome":"repaired","rules":[]}',
		);
		expect((await aggregateTelemetryFiles([file]))?.total).toBe(2);
	});

	it("handles CRLF line ends", async () => {
		writeFileSync(file, '{"tool":"read","outcome":"repaired","rules":[]}\r\n\r\n');
		const stats = await aggregateTelemetryFiles([file]);
		expect(stats?.total).toBe(1);
		expect(stats?.skippedLines).toBe(0);
	});

	it("skips a line too long to be a record without holding it, and keeps reading", async () => {
		const huge = `{"tool":"${"x".repeat(MAX_RECORD_LINE_BYTES + 10)}","outcome":"repaired","rules":[]}`;
		writeFileSync(
			file,
			`${huge}\n{"tool":"read","outcome":"repaired","rules":[]}\n${huge}\n{"tool":"ls","outcome":"repaired","rules":[]}\n${huge}`,
		);
		const stats = await aggregateTelemetryFiles([file]);
		expect([...(stats?.byTool.keys() ?? [])]).toEqual(["read", "ls"]);
		expect(stats?.skippedLines).toBe(3);
	});

	it("decodes multi-byte characters split across read chunks", async () => {
		// 1 MiB chunks: place a multi-byte model name across the boundary.
		const pad = `{"pad":"${"p".repeat(1024 * 1024 - 20)}"}\n`;
		writeFileSync(file, `${pad}{"tool":"read","model":"模型-ü-✓","outcome":"repaired","rules":[]}\n`);
		const stats = await aggregateTelemetryFiles([file]);
		expect([...(stats?.byModel.keys() ?? [])]).toContain("模型-ü-✓");
	});

	it("returns undefined when no file exists", async () => {
		expect(await aggregateTelemetryFiles(telemetryFilesToRead(file))).toBeUndefined();
	});

	it("treats a directory where the file should be as no file", async () => {
		expect(await aggregateTelemetryFiles([dir])).toBeUndefined();
	});
});

describe("only regular files are read", () => {
	it("skips a FIFO nobody writes to with one warning, instead of waiting for a writer", async () => {
		execFileSync("mkfifo", [file]);
		const warnings: string[] = [];
		expect(await aggregateTelemetryFiles([file], {}, (text) => warnings.push(text))).toBeUndefined();
		expect(warnings).toEqual([`tool-repair telemetry file ${file} is not a regular file; skipped.`]);
	});

	it("skips a device that never ends, such as /dev/zero, with one warning", async () => {
		const warnings: string[] = [];
		expect(await aggregateTelemetryFiles(["/dev/zero"], {}, (text) => warnings.push(text))).toBeUndefined();
		expect(warnings).toHaveLength(1);
	});

	it("still reads the regular file next to a skipped one", async () => {
		execFileSync("mkfifo", [`${file}.1`]);
		writeFileSync(file, '{"tool":"new","outcome":"repaired","rules":[]}\n');
		const warnings: string[] = [];
		const stats = await aggregateTelemetryFiles(telemetryFilesToRead(file), {}, (text) => warnings.push(text));
		expect(stats?.total).toBe(1);
		expect(warnings).toHaveLength(1);
	});

	it("names a directory as not a regular file and stays quiet about a missing one", async () => {
		const warnings: string[] = [];
		await aggregateTelemetryFiles([dir, join(dir, "missing.jsonl")], {}, (text) => warnings.push(text));
		expect(warnings).toEqual([`tool-repair telemetry file ${dir} is not a regular file; skipped.`]);
	});
});

describe("any line is safe to feed", () => {
	it("never throws, and counts a line either as a record, a skipped line or nothing (blank)", () => {
		const line = fc.oneof(
			fc.string(),
			fc.jsonValue().map((value) => JSON.stringify(value) ?? ""),
			fc
				.record(
					{
						tool: fc.oneof(fc.string(), fc.jsonValue()),
						model: fc.oneof(fc.string(), fc.jsonValue()),
						outcome: fc.oneof(fc.constantFrom("repaired", "recovered", "unrepairable", "observed"), fc.jsonValue()),
						rules: fc.oneof(fc.array(fc.string()), fc.jsonValue()),
						channel: fc.oneof(fc.constantFrom("message", "tool"), fc.jsonValue()),
						grammar: fc.oneof(fc.string(), fc.jsonValue()),
					},
					{ requiredKeys: [] },
				)
				.map((record) => JSON.stringify(record)),
		);
		fc.assert(
			fc.property(fc.array(line, { maxLength: 30 }), (lines) => {
				const acc = new StatsAccumulator();
				for (const text of lines) acc.addLine(text);
				const { total, toolEvents, messageEvents, skippedLines } = acc.stats;
				expect(total).toBe(toolEvents + messageEvents);
				expect(total + skippedLines).toBeLessThanOrEqual(lines.length);
			}),
			{ numRuns: 300 },
		);
	});
});

describe("memory stays bounded whatever the number of distinct names", () => {
	it("keeps at most MAX_DISTINCT_NAMES rows per tally and counts the rest under one row, losing no count", async () => {
		// A file of 60 000 records, every one naming a new tool, model, owner, rule and grammar family.
		const count = 60_000;
		const body: string[] = [];
		for (let i = 0; i < count; i++) {
			body.push(
				JSON.stringify({
					ts: "t",
					tool: `tool${i}`,
					model: `model${i}`,
					owner: `owner${i}`,
					outcome: "repaired",
					rules: [`rule${i}`],
				}),
				JSON.stringify({
					ts: "t",
					outcome: "stripped",
					channel: "message",
					rules: ["grammarStrip"],
					grammar: `family${i}`,
				}),
			);
		}
		writeFileSync(file, `${body.join("\n")}\n`);
		const stats = await aggregateTelemetryFiles([file]);
		if (stats === undefined) throw new Error("the file was not read");
		for (const tally of [stats.byTool, stats.byModel, stats.byOwner, stats.grammars, stats.rules]) {
			expect(tally.size).toBeLessThanOrEqual(MAX_DISTINCT_NAMES + 1);
			expect(tally.has(OTHER_NAMES)).toBe(true);
		}
		const sum = (rows: Map<string, { repaired: number }>) => [...rows.values()].reduce((n, c) => n + c.repaired, 0);
		expect(sum(stats.byTool)).toBe(count);
		expect(sum(stats.byModel)).toBe(count);
		expect([...stats.grammars.values()].reduce((n, c) => n + c, 0)).toBe(count);
		expect(stats.rules.get("grammarStrip")).toBe(count);
		// Names seen first keep their own rows.
		expect(stats.byTool.get("tool0")?.repaired).toBe(1);
	});

	it("still gives a name its own row when it was counted before the limit was reached", () => {
		const acc = new StatsAccumulator();
		for (let i = 0; i < MAX_DISTINCT_NAMES + 50; i++) {
			acc.addRecord({ tool: i % 2 === 0 ? "read" : `noise${i}`, outcome: "repaired", rules: [] });
		}
		expect(acc.stats.byTool.get("read")?.repaired).toBe(Math.ceil((MAX_DISTINCT_NAMES + 50) / 2));
	});
});

describe("rotated file", () => {
	it("reads <file>.1 before <file>", async () => {
		writeFileSync(`${file}.1`, '{"tool":"old","outcome":"repaired","rules":[]}\n');
		writeFileSync(file, '{"tool":"new","outcome":"repaired","rules":[]}\n');
		expect(telemetryFilesToRead(file)).toEqual([`${file}.1`, file]);
		const stats = await aggregateTelemetryFiles(telemetryFilesToRead(file));
		expect([...(stats?.byTool.keys() ?? [])]).toEqual(["old", "new"]);
	});

	it("reads <file>.1 alone when the current file is gone", async () => {
		writeFileSync(`${file}.1`, '{"tool":"old","outcome":"repaired","rules":[]}\n');
		expect((await aggregateTelemetryFiles(telemetryFilesToRead(file)))?.total).toBe(1);
	});
});

describe("filters", () => {
	const now = Date.parse("2026-07-20T12:00:00.000Z");

	it("--since keeps records at or after the instant and drops records without a usable ts", () => {
		const parsed = parseStatsArgs("--since 2h", now);
		if ("error" in parsed) throw new Error(parsed.error);
		const acc = new StatsAccumulator(parsed.filters);
		acc.addLine('{"ts":"2026-07-20T09:59:59.999Z","tool":"early","outcome":"repaired","rules":[]}');
		acc.addLine('{"ts":"2026-07-20T10:00:00.000Z","tool":"edge","outcome":"repaired","rules":[]}');
		acc.addLine('{"ts":"2026-07-20T11:30:00.000Z","tool":"late","outcome":"repaired","rules":[]}');
		acc.addLine('{"tool":"nots","outcome":"repaired","rules":[]}');
		acc.addLine('{"ts":"yesterday","tool":"badts","outcome":"repaired","rules":[]}');
		expect([...acc.stats.byTool.keys()]).toEqual(["edge", "late"]);
	});

	it("--model matches a case-insensitive substring of the model id", () => {
		const parsed = parseStatsArgs("--model GLM", now);
		if ("error" in parsed) throw new Error(parsed.error);
		const acc = new StatsAccumulator(parsed.filters);
		acc.addLine('{"model":"glm-4.6","tool":"a","outcome":"repaired","rules":[]}');
		acc.addLine('{"model":"qwen3","tool":"b","outcome":"repaired","rules":[]}');
		acc.addLine('{"tool":"c","outcome":"repaired","rules":[]}');
		expect([...acc.stats.byTool.keys()]).toEqual(["a"]);
	});

	it("combines both filters", () => {
		const parsed = parseStatsArgs("--model=qwen --since=2026-07-20", now);
		expect(parsed).toEqual({
			filters: { model: "qwen", sinceMs: Date.parse("2026-07-20") },
			description: ['model contains "qwen"', "since 2026-07-20T00:00:00.000Z"],
		});
	});

	it("accepts every duration unit", () => {
		expect(parseSince("90s", now)).toBe(now - 90_000);
		expect(parseSince("30m", now)).toBe(now - 1_800_000);
		expect(parseSince("1.5h", now)).toBe(now - 5_400_000);
		expect(parseSince("7d", now)).toBe(now - 7 * 86_400_000);
		expect(parseSince("2w", now)).toBe(now - 14 * 86_400_000);
	});

	it("accepts an ISO date-time", () => {
		expect(parseSince("2026-07-20T10:00:00Z", now)).toBe(Date.parse("2026-07-20T10:00:00Z"));
	});

	for (const bad of ["7x", "yesterday", "7", "2026-13-45", "-3d"]) {
		it(`rejects --since ${bad} with a message naming the accepted forms`, () => {
			const parsed = parseStatsArgs(`--since ${bad}`, now);
			expect(parsed).toHaveProperty("error");
			expect("error" in parsed && parsed.error).toContain("30m");
		});
	}

	it("rejects an unknown argument and a flag without value, with the usage", () => {
		expect(parseStatsArgs("--verbose", now)).toEqual({ error: expect.stringContaining("/repair-stats [--since") });
		expect(parseStatsArgs("--model", now)).toEqual({ error: expect.stringContaining("--model needs a value") });
	});

	it("takes no filter from empty arguments", () => {
		expect(parseStatsArgs("   ", now)).toEqual({ filters: {}, description: [] });
	});
});
