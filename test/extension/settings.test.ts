/**
 * The settings file: defaults, per-field validation, migration of every
 * historical shape (no user's file stops loading), atomic saving that keeps
 * unknown keys (a newer version's or the user's own), and every bad file a
 * user can end up with.
 */
import { execFileSync, spawn } from "node:child_process";
import {
	chmodSync,
	linkSync,
	lstatSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	symlinkSync,
	utimesSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { resolveRepairPolicy } from "../../src/core/policy.ts";
import {
	DEFAULT_DISPLAY_SETTINGS,
	loadRepairSettings,
	loadRepairSettingsWithWarning,
	repairSettingsPath,
	SETTINGS_KEYS,
	saveRepairSettings,
	trySaveRepairSettings,
	unknownAllowedTools,
} from "../../src/extension/files/settings.ts";
import type { RepairSettings } from "../../src/extension/host/types.ts";

const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
const SETTINGS_MODULE = new URL("../../src/extension/files/settings.ts", import.meta.url).pathname;

let dir: string;
let file: string;

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "repair-settings-"));
	file = join(dir, "settings.json");
});

afterEach(() => {
	try {
		chmodSync(dir, 0o755);
	} catch {
		// already gone
	}
	rmSync(dir, { recursive: true, force: true });
});

/** Bytes, mtime and the folder listing: loading must leave all three untouched. */
function snapshot(path: string): { bytes: Buffer; mtimeMs: number; listing: string[] } {
	const parent = join(path, "..");
	return { bytes: readFileSync(path), mtimeMs: statSync(path).mtimeMs, listing: readdirSync(parent).sort() };
}

function writeBack(path: string): void {
	// An old mtime makes any rewrite visible even on coarse-grained file systems.
	utimesSync(path, new Date(2020, 0, 1), new Date(2020, 0, 1));
}

const sample: RepairSettings = {
	showIndicator: false,
	showNotes: true,
	grammarRecovery: "observe",
	grammarAllowedTools: ["read", "bash"],
	policyProfile: "conservative",
	unknownGrammarText: "strip",
	repairToolNames: true,
	askOnSilentStop: false,
};

describe("defaults", () => {
	it("loads the documented defaults when the file does not exist", () => {
		expect(loadRepairSettings(join(dir, "missing.json"))).toEqual({
			showIndicator: true,
			showNotes: false,
			grammarRecovery: "strip",
			grammarAllowedTools: [],
			policyProfile: "adaptive",
			unknownGrammarText: "preserve",
			repairToolNames: false,
			askOnSilentStop: true,
		});
		expect(loadRepairSettings(join(dir, "missing.json"))).toEqual(DEFAULT_DISPLAY_SETTINGS);
	});

	it("gives no warning for a missing file, the normal first run", () => {
		expect(loadRepairSettingsWithWarning(join(dir, "missing.json")).warning).toBeUndefined();
	});

	it("returns a fresh copy each time, so a caller's change never leaks into the defaults", () => {
		const first = loadRepairSettings(join(dir, "missing.json"));
		first.grammarAllowedTools.push("read");
		first.showNotes = true;
		expect(loadRepairSettings(join(dir, "missing.json"))).toEqual(DEFAULT_DISPLAY_SETTINGS);
		expect(DEFAULT_DISPLAY_SETTINGS.grammarAllowedTools).toEqual([]);
	});
});

describe("location", () => {
	const saved = { settings: process.env.PI_TOOL_REPAIR_SETTINGS, agent: process.env.PI_CODING_AGENT_DIR };
	afterEach(() => {
		if (saved.settings === undefined) delete process.env.PI_TOOL_REPAIR_SETTINGS;
		else process.env.PI_TOOL_REPAIR_SETTINGS = saved.settings;
		if (saved.agent === undefined) delete process.env.PI_CODING_AGENT_DIR;
		else process.env.PI_CODING_AGENT_DIR = saved.agent;
	});

	it("uses PI_TOOL_REPAIR_SETTINGS whenever it is defined", () => {
		process.env.PI_TOOL_REPAIR_SETTINGS = file;
		expect(repairSettingsPath()).toBe(file);
	});

	it("uses PI_TOOL_REPAIR_SETTINGS even when it is the empty string", () => {
		process.env.PI_TOOL_REPAIR_SETTINGS = "";
		expect(repairSettingsPath()).toBe("");
		expect(loadRepairSettings()).toEqual(DEFAULT_DISPLAY_SETTINGS);
	});

	it("falls back to tool-repair/settings.json under pi's agent dir", () => {
		delete process.env.PI_TOOL_REPAIR_SETTINGS;
		process.env.PI_CODING_AGENT_DIR = dir;
		expect(repairSettingsPath()).toBe(join(dir, "tool-repair", "settings.json"));
	});
});

describe("migration of every historical shape: an old file still loads", () => {
	const table: { name: string; stored: unknown; expected: Partial<RepairSettings> }[] = [
		{
			name: "0.1 shape with only the two booleans",
			stored: { showIndicator: false, showNotes: true },
			expected: {
				showIndicator: false,
				showNotes: true,
				grammarRecovery: "strip",
				policyProfile: "adaptive",
				unknownGrammarText: "preserve",
				grammarAllowedTools: [],
			},
		},
		{
			name: "0.2 shape with grammarRecovery off",
			stored: { grammarRecovery: "off" },
			expected: { policyProfile: "adaptive", grammarRecovery: "off", unknownGrammarText: "preserve" },
		},
		{
			name: "0.2 shape with grammarRecovery strip",
			stored: { grammarRecovery: "strip" },
			expected: { policyProfile: "adaptive", grammarRecovery: "strip", unknownGrammarText: "preserve" },
		},
		{
			name: "0.2 shape that opted into promotion",
			stored: { grammarRecovery: "recover" },
			expected: { policyProfile: "recover", grammarRecovery: "recover", unknownGrammarText: "preserve" },
		},
		{
			name: "conservative profile alone",
			stored: { policyProfile: "conservative" },
			expected: { policyProfile: "conservative", grammarRecovery: "observe" },
		},
		{
			name: "recover profile alone",
			stored: { policyProfile: "recover" },
			expected: { policyProfile: "recover", grammarRecovery: "recover" },
		},
		{
			name: "adaptive profile alone",
			stored: { policyProfile: "adaptive" },
			expected: { policyProfile: "adaptive", grammarRecovery: "strip" },
		},
		{
			name: "an explicit override that disagrees with the profile",
			stored: { policyProfile: "conservative", grammarRecovery: "recover" },
			expected: { policyProfile: "conservative", grammarRecovery: "recover" },
		},
		{
			name: "an invalid profile with grammarRecovery recover",
			stored: { policyProfile: "fast", grammarRecovery: "recover" },
			expected: { policyProfile: "recover", grammarRecovery: "recover" },
		},
		{
			name: "the full current shape",
			stored: sample,
			expected: sample,
		},
	];

	for (const row of table) {
		it(`loads the ${row.name}`, () => {
			writeFileSync(file, JSON.stringify(row.stored));
			expect(loadRepairSettings(file)).toMatchObject(row.expected);
		});

		it(`leaves the file of the ${row.name} byte for byte as it was`, () => {
			writeFileSync(file, JSON.stringify(row.stored, null, 2));
			writeBack(file);
			const before = snapshot(file);
			loadRepairSettings(file);
			loadRepairSettingsWithWarning(file);
			expect(snapshot(file)).toEqual(before);
		});
	}

	it("writes the migrated shape on the first explicit save", () => {
		writeFileSync(file, JSON.stringify({ grammarRecovery: "strip" }));
		saveRepairSettings(loadRepairSettings(file), file);
		expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({
			policyProfile: "adaptive",
			unknownGrammarText: "preserve",
			grammarRecovery: "strip",
		});
	});
});

describe("per-field validation", () => {
	it("keeps the valid fields and defaults only the invalid ones", () => {
		writeFileSync(
			file,
			JSON.stringify({
				showIndicator: "yes",
				showNotes: true,
				grammarRecovery: 3,
				grammarAllowedTools: ["read"],
				policyProfile: "recover",
				unknownGrammarText: "STRIP",
				repairToolNames: "on",
				askOnSilentStop: "no",
			}),
		);
		const loaded = loadRepairSettingsWithWarning(file);
		expect(loaded.settings).toEqual({
			showIndicator: true,
			showNotes: true,
			grammarRecovery: "recover",
			grammarAllowedTools: ["read"],
			policyProfile: "recover",
			unknownGrammarText: "preserve",
			repairToolNames: false,
			askOnSilentStop: true,
		});
		expect(loaded.warning).toContain("showIndicator");
		expect(loaded.warning).toContain("repairToolNames");
		expect(loaded.warning).toContain("askOnSilentStop");
		expect(loaded.warning).toContain("grammarRecovery");
		expect(loaded.warning).toContain("unknownGrammarText");
		expect(loaded.warning).not.toContain("showNotes");
	});

	it("discards the whole tool list when one element is not a string", () => {
		writeFileSync(file, JSON.stringify({ grammarAllowedTools: ["read", 7, "bash"] }));
		expect(loadRepairSettings(file).grammarAllowedTools).toEqual([]);
	});

	it("treats null fields as invalid, not as false", () => {
		writeFileSync(file, JSON.stringify({ showIndicator: null, showNotes: null }));
		expect(loadRepairSettings(file)).toMatchObject({ showIndicator: true, showNotes: false });
	});

	it("reads a file that starts with a byte-order mark", () => {
		writeFileSync(file, '\uFEFF{"showIndicator": false}');
		expect(loadRepairSettingsWithWarning(file)).toEqual({
			settings: { ...DEFAULT_DISPLAY_SETTINGS, showIndicator: false },
		});
	});

	it("ignores unknown keys without a warning", () => {
		writeFileSync(file, JSON.stringify({ showNotes: true, futureOption: { level: 3 } }));
		const loaded = loadRepairSettingsWithWarning(file);
		expect(loaded.settings.showNotes).toBe(true);
		expect(loaded.warning).toBeUndefined();
	});
});

describe("bad files load as defaults, with one short warning and no write", () => {
	const badContents: { name: string; text: string }[] = [
		{ name: "an empty file", text: "" },
		{ name: "a file of whitespace", text: "  \n\t\n" },
		{ name: "truncated JSON", text: '{"showIndicator": false, "showNo' },
		{ name: "non-JSON text", text: "showIndicator = false\n" },
		{ name: "JSON null", text: "null" },
		{ name: "a JSON array", text: '[{"showIndicator": false}]' },
		{ name: "a JSON number", text: "42" },
		{ name: "a JSON string", text: '"showIndicator"' },
	];

	for (const bad of badContents) {
		it(`survives ${bad.name}`, () => {
			writeFileSync(file, bad.text);
			writeBack(file);
			const before = snapshot(file);
			const loaded = loadRepairSettingsWithWarning(file);
			expect(loaded.settings).toEqual(DEFAULT_DISPLAY_SETTINGS);
			expect(loaded.warning).toMatch(/settings/);
			expect(loaded.warning?.split("\n")).toHaveLength(1);
			expect(snapshot(file)).toEqual(before);
		});
	}

	it("survives a directory where the file should be", () => {
		mkdirSync(file);
		const loaded = loadRepairSettingsWithWarning(file);
		expect(loaded.settings).toEqual(DEFAULT_DISPLAY_SETTINGS);
		expect(loaded.warning).toContain("directory");
		expect(readdirSync(file)).toEqual([]);
	});

	it("survives a path whose parent is a file (the read fails with ENOTDIR)", () => {
		writeFileSync(join(dir, "not-a-folder"), "x");
		const loaded = loadRepairSettingsWithWarning(join(dir, "not-a-folder", "settings.json"));
		expect(loaded.settings).toEqual(DEFAULT_DISPLAY_SETTINGS);
		expect(loaded.warning).toContain("ENOTDIR");
	});

	it("never blocks on a FIFO where the file should be", () => {
		execFileSync("mkfifo", [file]);
		const loaded = loadRepairSettingsWithWarning(file);
		expect(loaded.settings).toEqual(DEFAULT_DISPLAY_SETTINGS);
		expect(loaded.warning).toContain("regular file");
	});

	it.skipIf(isRoot)("survives an unreadable file (skipped as root: root reads any file)", () => {
		writeFileSync(file, JSON.stringify({ showNotes: true }));
		chmodSync(file, 0o000);
		const loaded = loadRepairSettingsWithWarning(file);
		expect(loaded.settings).toEqual(DEFAULT_DISPLAY_SETTINGS);
		expect(loaded.warning).toContain("EACCES");
	});
});

describe("any stored JSON loads as valid settings", () => {
	const isValid = (settings: RepairSettings) =>
		typeof settings.showIndicator === "boolean" &&
		typeof settings.showNotes === "boolean" &&
		["off", "observe", "strip", "recover"].includes(settings.grammarRecovery) &&
		["conservative", "adaptive", "recover"].includes(settings.policyProfile) &&
		["preserve", "strip"].includes(settings.unknownGrammarText) &&
		Array.isArray(settings.grammarAllowedTools) &&
		settings.grammarAllowedTools.every((tool) => typeof tool === "string");
	const field = fc.oneof(
		fc.jsonValue(),
		fc.constantFrom("off", "observe", "strip", "recover", "conservative", "adaptive", "preserve", true, false),
		fc.array(fc.string()),
	);
	const stored = fc.oneof(
		fc.jsonValue(),
		fc.record(
			{
				showIndicator: field,
				showNotes: field,
				grammarRecovery: field,
				grammarAllowedTools: field,
				policyProfile: field,
				unknownGrammarText: field,
			},
			{ requiredKeys: [] },
		),
	);

	it("never throws and always yields six valid fields", () => {
		fc.assert(
			fc.property(stored, (value) => {
				writeFileSync(file, JSON.stringify(value) ?? "");
				const loaded = loadRepairSettingsWithWarning(file);
				expect(isValid(loaded.settings)).toBe(true);
				expect(Object.keys(loaded.settings).sort()).toEqual([...SETTINGS_KEYS].sort());
			}),
			{ numRuns: 300 },
		);
	});

	it("never throws on arbitrary bytes", () => {
		fc.assert(
			fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
				writeFileSync(file, bytes);
				expect(isValid(loadRepairSettings(file))).toBe(true);
			}),
			{ numRuns: 300 },
		);
	});
});

describe("grammarAllowedTools against the tools pi knows", () => {
	it("names every unknown entry in one warning line", () => {
		expect(unknownAllowedTools(["read", "bsah", "mcp:x"], ["read", "bash"])).toBe(
			"tool-repair grammarAllowedTools names tools pi does not know: bsah, mcp:x; leaked calls to them are never promoted.",
		);
	});

	it("says nothing when every entry is known, the list is empty, or the tools are not known yet", () => {
		expect(unknownAllowedTools(["read"], ["read", "bash"])).toBeUndefined();
		expect(unknownAllowedTools([], ["read"])).toBeUndefined();
		expect(unknownAllowedTools(["anything"], [])).toBeUndefined();
	});
});

describe("saving", () => {
	it("writes all its fields in order with tab indent and a trailing newline", () => {
		saveRepairSettings(sample, file);
		expect(readFileSync(file, "utf8")).toBe(`${JSON.stringify(sample, null, "\t")}\n`);
		expect(Object.keys(JSON.parse(readFileSync(file, "utf8")))).toEqual([
			"showIndicator",
			"showNotes",
			"grammarRecovery",
			"grammarAllowedTools",
			"policyProfile",
			"unknownGrammarText",
			"repairToolNames",
			"askOnSilentStop",
		]);
	});

	it("creates the parent folders", () => {
		const nested = join(dir, "a", "b", "settings.json");
		saveRepairSettings(sample, nested);
		expect(loadRepairSettings(nested)).toEqual(sample);
	});

	it("round-trips every field", () => {
		saveRepairSettings(sample, file);
		expect(loadRepairSettings(file)).toEqual(sample);
	});

	it("keeps keys it does not know, with their values, after its own", () => {
		writeFileSync(
			file,
			JSON.stringify({ futureOption: { level: 3 }, showNotes: false, note: "my own remark", showIndicator: true }),
		);
		const settings = loadRepairSettings(file);
		saveRepairSettings({ ...settings, showNotes: true }, file);
		const written = JSON.parse(readFileSync(file, "utf8"));
		expect(written).toMatchObject({ futureOption: { level: 3 }, note: "my own remark", showNotes: true });
		expect(Object.keys(written)).toEqual([
			"showIndicator",
			"showNotes",
			"grammarRecovery",
			"grammarAllowedTools",
			"policyProfile",
			"unknownGrammarText",
			"repairToolNames",
			"askOnSilentStop",
			"futureOption",
			"note",
		]);
	});

	it("replaces a file with a JSON typo only when the user saves, keeping the original byte for byte as a backup", () => {
		// Invalid UTF-8 too: the backup is the bytes, not a decoded copy.
		const typo = Buffer.concat([
			Buffer.from('{ "showNotes": true, "myNote": "caf'),
			Buffer.from([0xe9]),
			Buffer.from('", }\n'),
		]);
		writeFileSync(file, typo);
		chmodSync(file, 0o640);
		const notices: string[] = [];
		expect(trySaveRepairSettings(sample, file, (line) => notices.push(line))).toBeUndefined();
		expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(sample);
		const backup = `${file}.bak`;
		expect(readFileSync(backup)).toEqual(typo);
		expect(statSync(backup).mode & 0o777).toBe(0o640);
		expect(notices).toEqual([expect.stringContaining(backup)]);
		expect(notices[0]?.split("\n")).toHaveLength(1);
	});

	it("never writes over a backup that is already there: the next free name is taken", () => {
		writeFileSync(`${file}.bak`, "an older backup");
		writeFileSync(`${file}.bak.2`, "another");
		writeFileSync(file, "{ broken");
		saveRepairSettings(sample, file);
		expect(readFileSync(`${file}.bak`, "utf8")).toBe("an older backup");
		expect(readFileSync(`${file}.bak.2`, "utf8")).toBe("another");
		expect(readFileSync(`${file}.bak.3`, "utf8")).toBe("{ broken");
	});

	it("keeps a file that holds JSON but no object (an array, a string) as a backup too", () => {
		writeFileSync(file, '["showNotes"]');
		saveRepairSettings(sample, file);
		expect(readFileSync(`${file}.bak`, "utf8")).toBe('["showNotes"]');
	});

	it("makes no backup of an empty file, a missing one or a valid one", () => {
		writeFileSync(file, "  \n");
		saveRepairSettings(sample, file);
		saveRepairSettings({ ...sample, showNotes: false }, file);
		saveRepairSettings(sample, join(dir, "new.json"));
		expect(readdirSync(dir).sort()).toEqual(["new.json", "settings.json"]);
	});

	it("never replaces a dangling symlink with a regular file, and says so", () => {
		const target = join(dir, "dotfiles", "settings.json");
		symlinkSync(target, file);
		expect(trySaveRepairSettings(sample, file)).toMatch(/symbolic link to a missing file.*left as it is/);
		expect(lstatSync(file).isSymbolicLink()).toBe(true);
		expect(readdirSync(dir)).toEqual(["settings.json"]);
	});

	it("keeps a symlinked settings file a symlink and writes through to its target", () => {
		const real = join(dir, "dotfiles", "settings.json");
		mkdirSync(join(dir, "dotfiles"));
		writeFileSync(real, "{}");
		symlinkSync(real, file);
		saveRepairSettings(sample, file);
		expect(lstatSync(file).isSymbolicLink()).toBe(true);
		expect(JSON.parse(readFileSync(real, "utf8"))).toEqual(sample);
	});

	it("keeps the file's mode", () => {
		writeFileSync(file, "{}");
		chmodSync(file, 0o600);
		saveRepairSettings(sample, file);
		expect(statSync(file).mode & 0o7777).toBe(0o600);
		chmodSync(file, 0o640);
		saveRepairSettings({ ...sample, showNotes: false }, file);
		expect(statSync(file).mode & 0o7777).toBe(0o640);
	});

	it("keeps a hard-linked settings file one file under both names", () => {
		writeFileSync(file, "{}");
		const other = join(dir, "linked.json");
		linkSync(file, other);
		saveRepairSettings(sample, file);
		expect(statSync(file).nlink).toBe(2);
		expect(statSync(file).ino).toBe(statSync(other).ino);
		expect(JSON.parse(readFileSync(other, "utf8"))).toEqual(sample);
		// Shorter content after longer: the old tail is cut, not left behind.
		saveRepairSettings({ ...sample, grammarAllowedTools: [] }, file);
		expect(loadRepairSettingsWithWarning(other).warning).toBeUndefined();
	});

	it("keeps keys named __proto__ (and every other unknown key) as written", () => {
		writeFileSync(file, '{"__proto__":{"polluted":true},"constructor":1,"showNotes":false}');
		saveRepairSettings(sample, file);
		const text = readFileSync(file, "utf8");
		expect(text).toContain('"__proto__": {');
		const written = JSON.parse(text);
		expect(Object.keys(written).slice(SETTINGS_KEYS.length)).toEqual(["__proto__", "constructor"]);
		expect(Object.getOwnPropertyDescriptor(written, "__proto__")?.value).toEqual({ polluted: true });
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});

	it("never replaces an oversized file with a reduced one", () => {
		const big = `${JSON.stringify({ showNotes: true, history: "h".repeat(1024 * 1024) })}\n`;
		writeFileSync(file, big);
		expect(trySaveRepairSettings(sample, file)).toMatch(/could not be saved.*too large.*left as it is/);
		expect(readFileSync(file, "utf8")).toBe(big);
	});

	it("never replaces a FIFO where the file should be", () => {
		execFileSync("mkfifo", [file]);
		expect(trySaveRepairSettings(sample, file)).toMatch(/not a regular file/);
		expect(statSync(file).isFIFO()).toBe(true);
	});

	it.skipIf(isRoot)("never replaces an unreadable file with a reduced one (skipped as root)", () => {
		writeFileSync(file, JSON.stringify({ showNotes: true, mine: 1 }));
		chmodSync(file, 0o200);
		expect(trySaveRepairSettings(sample, file)).toMatch(/EACCES/);
		chmodSync(file, 0o600);
		expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ showNotes: true, mine: 1 });
	});

	it("logs a contained I/O error by boundary and code, never the path", () => {
		writeFileSync(file, "{}");
		const saved = process.env.PI_TOOL_REPAIR_LOG;
		process.env.PI_TOOL_REPAIR_LOG = "1";
		const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
		try {
			expect(trySaveRepairSettings(sample, join(file, "nested.json"))).toMatch(/ENOTDIR/);
			expect(write.mock.calls.map(([line]) => line)).toEqual(["[pi-repair] contained=settings-read error=ENOTDIR\n"]);
		} finally {
			write.mockRestore();
			if (saved === undefined) delete process.env.PI_TOOL_REPAIR_LOG;
			else process.env.PI_TOOL_REPAIR_LOG = saved;
		}
	});

	it("leaves no temp file behind", () => {
		saveRepairSettings(sample, file);
		saveRepairSettings({ ...sample, showNotes: false }, file);
		expect(readdirSync(dir)).toEqual(["settings.json"]);
	});

	it("never throws, reports the failure and leaves nothing behind when the target is a directory", () => {
		mkdirSync(file);
		writeFileSync(join(file, "keep"), "x");
		expect(() => saveRepairSettings(sample, file)).not.toThrow();
		expect(trySaveRepairSettings(sample, file)).toMatch(/could not be saved/);
		expect(readdirSync(dir)).toEqual(["settings.json"]);
		expect(readdirSync(file)).toEqual(["keep"]);
	});

	it("never throws when the folder cannot be created (a file stands where it should be)", () => {
		writeFileSync(join(dir, "blocker"), "x");
		const target = join(dir, "blocker", "settings.json");
		expect(() => saveRepairSettings(sample, target)).not.toThrow();
		expect(trySaveRepairSettings(sample, target)).toMatch(/could not be saved/);
		expect(readFileSync(join(dir, "blocker"), "utf8")).toBe("x");
	});

	it.skipIf(isRoot)("never throws in a read-only folder and keeps the old file (skipped as root)", () => {
		saveRepairSettings(sample, file);
		const before = readFileSync(file, "utf8");
		chmodSync(dir, 0o555);
		expect(trySaveRepairSettings({ ...sample, showNotes: false }, file)).toMatch(/EACCES/);
		expect(readFileSync(file, "utf8")).toBe(before);
	});

	it("never leaves a half-written file when the saving process is killed mid-save", async () => {
		// A child saves two different shapes as fast as it can; it is killed at a
		// random moment, repeatedly. Every surviving file must parse as one of them.
		saveRepairSettings(sample, file);
		const script = `
			import { saveRepairSettings } from ${JSON.stringify(SETTINGS_MODULE)};
			const a = ${JSON.stringify(sample)};
			const b = { ...a, showNotes: false, grammarAllowedTools: Array.from({ length: 500 }, (_, i) => "tool" + i) };
			process.stdout.write("ready\\n");
			for (let i = 0; ; i++) saveRepairSettings(i % 2 ? a : b, ${JSON.stringify(file)});
		`;
		for (let round = 0; round < 3; round++) {
			const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
				stdio: ["ignore", "pipe", "pipe"],
			});
			await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
			await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 60));
			const exited = new Promise((resolve) => child.once("exit", resolve));
			child.kill("SIGKILL");
			await exited;
			const loaded = loadRepairSettingsWithWarning(file);
			expect(loaded.warning).toBeUndefined();
			expect([true, false]).toContain(loaded.settings.showNotes);
		}
	});
});

describe("one policy table", () => {
	// The extension keeps no grammar default of its own: its defaults are the core's default profile's row.
	it("defaults the profile, grammar mode and unknown text to the core's default policy", () => {
		const core = resolveRepairPolicy();
		expect(DEFAULT_DISPLAY_SETTINGS.policyProfile).toBe(core.profile);
		expect(DEFAULT_DISPLAY_SETTINGS.grammarRecovery).toBe(core.grammarMode);
		expect(DEFAULT_DISPLAY_SETTINGS.unknownGrammarText).toBe(core.unknownGrammarText);
	});
});
