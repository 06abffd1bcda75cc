/**
 * The bundle loader: runs a CommonJS bundle as `require` would, reads the
 * code cache an earlier session left beside Node's own, and writes one, once,
 * only when there was none, V8 refused it, or it was the partial cache of a
 * session in which no call ran. A cache it cannot read or write costs a
 * compile, never the load.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { codeCachePath, loadBundle } from "../../src/extension/files/bundle-loader.ts";

const temps: string[] = [];
afterEach(() => {
	for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A folder holding `bundle.cjs` (with `source`) and a sibling module it requires, and an empty cache folder. */
function fixture(source: string): { bundle: string; cacheDir: string } {
	const dir = mkdtempSync(join(tmpdir(), "pi-repair-loader-"));
	temps.push(dir);
	writeFileSync(join(dir, "sibling.cjs"), "exports.word = 'sibling';\n");
	const bundle = join(dir, "bundle.cjs");
	writeFileSync(bundle, source);
	const cacheDir = join(dir, "cache");
	mkdirSync(cacheDir);
	return { bundle, cacheDir };
}

// Functions the module only compiles when called: what the cache must keep for the next start.
const SOURCE = [
	"const sibling = require('./sibling.cjs');",
	"function greet(name) { return sibling.word + ': hello ' + name; }",
	"exports.default = (name) => greet(name);",
	"exports.file = __filename;",
].join("\n");

type Greet = (name: string) => string;

describe("loading the bundle with a code cache", () => {
	it("runs the bundle as require would: its exports, its own folder's modules, its file name", () => {
		const { bundle } = fixture(SOURCE);
		const loaded = loadBundle(bundle, undefined);
		expect((loaded.exports.default as Greet)("pi")).toBe("sibling: hello pi");
		expect(loaded.exports.file).toBe(bundle);
	});

	it("reads and writes no cache when there is no cache folder", () => {
		const { bundle, cacheDir } = fixture(SOURCE);
		const loaded = loadBundle(bundle, undefined);
		expect(loaded.saveCodeCache).toBeUndefined();
		expect(readdirSync(cacheDir)).toEqual([]);
	});

	it("saves a cache once after a start without one, and the next start uses it and saves nothing", () => {
		const { bundle, cacheDir } = fixture(SOURCE);
		const first = loadBundle(bundle, cacheDir);
		(first.exports.default as Greet)("first");
		expect(first.saveCodeCache).toBeTypeOf("function");
		first.saveCodeCache?.(true);
		const path = codeCachePath(cacheDir, readFileSync(bundle));
		expect(readdirSync(cacheDir)).toEqual([path.slice(cacheDir.length + 1)]);
		// Only its owner reads it: it is code the next start runs.
		expect(statSync(path).mode & 0o777).toBe(0o600);
		const written = statSync(path).mtimeMs;
		first.saveCodeCache?.(true);
		expect(statSync(path).mtimeMs).toBe(written);

		const second = loadBundle(bundle, cacheDir);
		expect(second.saveCodeCache).toBeUndefined();
		expect((second.exports.default as Greet)("second")).toBe("sibling: hello second");
	});

	it("keeps a session without calls as a partial cache, which the next session with a call replaces once", () => {
		const { bundle, cacheDir } = fixture(SOURCE);
		const bytes = readFileSync(bundle);
		const whole = codeCachePath(cacheDir, bytes);
		const partial = codeCachePath(cacheDir, bytes, true);
		const first = loadBundle(bundle, cacheDir);
		first.saveCodeCache?.(false);
		expect(readdirSync(cacheDir)).toEqual([partial.slice(cacheDir.length + 1)]);
		// Another session without calls uses it and writes nothing.
		const quiet = loadBundle(bundle, cacheDir);
		expect(quiet.saveCodeCache).toBeTypeOf("function");
		const partialWritten = statSync(partial).mtimeMs;
		quiet.saveCodeCache?.(false);
		expect(statSync(partial).mtimeMs).toBe(partialWritten);
		// A session with a call writes the whole cache, once, and the partial one goes.
		const busy = loadBundle(bundle, cacheDir);
		expect((busy.exports.default as Greet)("busy")).toBe("sibling: hello busy");
		busy.saveCodeCache?.(true);
		expect(readdirSync(cacheDir)).toEqual([whole.slice(cacheDir.length + 1)]);
		expect(statSync(whole).mode & 0o777).toBe(0o600);
		const wholeWritten = statSync(whole).mtimeMs;
		busy.saveCodeCache?.(true);
		busy.saveCodeCache?.(false);
		expect(readdirSync(cacheDir)).toEqual([whole.slice(cacheDir.length + 1)]);
		expect(statSync(whole).mtimeMs).toBe(wholeWritten);
		// From then on the whole cache is used and nothing is saved.
		expect(loadBundle(bundle, cacheDir).saveCodeCache).toBeUndefined();
	});

	it("a session that ran no call first, then one after a new session, writes the partial cache and then the whole one", () => {
		const { bundle, cacheDir } = fixture(SOURCE);
		const bytes = readFileSync(bundle);
		const loaded = loadBundle(bundle, cacheDir);
		loaded.saveCodeCache?.(false);
		expect(readdirSync(cacheDir)).toEqual([codeCachePath(cacheDir, bytes, true).slice(cacheDir.length + 1)]);
		loaded.saveCodeCache?.(true);
		expect(readdirSync(cacheDir)).toEqual([codeCachePath(cacheDir, bytes).slice(cacheDir.length + 1)]);
	});

	it("replaces a whole cache V8 refuses even from a session without calls, so the partial one is read next", () => {
		const { bundle, cacheDir } = fixture(SOURCE);
		const bytes = readFileSync(bundle);
		writeFileSync(codeCachePath(cacheDir, bytes), Buffer.from("not a code cache at all"));
		loadBundle(bundle, cacheDir).saveCodeCache?.(false);
		expect(readdirSync(cacheDir)).toEqual([codeCachePath(cacheDir, bytes, true).slice(cacheDir.length + 1)]);
		const next = loadBundle(bundle, cacheDir);
		expect((next.exports.default as Greet)("next")).toBe("sibling: hello next");
		// V8 took the partial cache: only a session with a call writes again.
		next.saveCodeCache?.(false);
		expect(readdirSync(cacheDir)).toEqual([codeCachePath(cacheDir, bytes, true).slice(cacheDir.length + 1)]);
	});

	it("compiles without a cache V8 refuses, and replaces it", () => {
		const { bundle, cacheDir } = fixture(SOURCE);
		const path = codeCachePath(cacheDir, readFileSync(bundle));
		writeFileSync(path, Buffer.from("not a code cache at all"));
		const loaded = loadBundle(bundle, cacheDir);
		expect((loaded.exports.default as Greet)("anyway")).toBe("sibling: hello anyway");
		expect(loaded.saveCodeCache).toBeTypeOf("function");
		loaded.saveCodeCache?.(true);
		expect(loadBundle(bundle, cacheDir).saveCodeCache).toBeUndefined();
	});

	it("never gives a changed bundle the cache of the old one, even at the same length", () => {
		const { bundle, cacheDir } = fixture(SOURCE);
		loadBundle(bundle, cacheDir).saveCodeCache?.(true);
		const changed = SOURCE.replace("hello", "howdy");
		expect(changed.length).toBe(SOURCE.length);
		writeFileSync(bundle, changed);
		expect(codeCachePath(cacheDir, Buffer.from(changed))).not.toBe(codeCachePath(cacheDir, Buffer.from(SOURCE)));
		const loaded = loadBundle(bundle, cacheDir);
		expect(loaded.saveCodeCache).toBeTypeOf("function");
		expect((loaded.exports.default as Greet)("pi")).toBe("sibling: howdy pi");
	});

	it("loads the bundle when the cache cannot be read or written, and throws nothing", () => {
		const { bundle, cacheDir } = fixture(SOURCE);
		// A folder where the cache file should be: reading it fails with EISDIR, and so does the rename over it.
		mkdirSync(codeCachePath(cacheDir, Buffer.from(SOURCE)));
		const loaded = loadBundle(bundle, cacheDir);
		expect((loaded.exports.default as Greet)("pi")).toBe("sibling: hello pi");
		expect(() => loaded.saveCodeCache?.(true)).not.toThrow();
		// No temporary file is left behind.
		expect(readdirSync(cacheDir)).toEqual([codeCachePath(cacheDir, Buffer.from(SOURCE)).slice(cacheDir.length + 1)]);
		const missing = loadBundle(bundle, join(cacheDir, "no-such-folder"));
		expect(() => missing.saveCodeCache?.(true)).not.toThrow();
	});

	it("keeps compiled code only: a value the session computed never reaches the cache file", () => {
		const secret = "sk-live-CODECACHE-7f3a9c";
		const { bundle, cacheDir } = fixture(
			["const held = [process.env.PI_REPAIR_LOADER_SECRET];", "exports.default = () => held[0];"].join("\n"),
		);
		process.env.PI_REPAIR_LOADER_SECRET = secret;
		try {
			const loaded = loadBundle(bundle, cacheDir);
			expect((loaded.exports.default as () => string)()).toBe(secret);
			loaded.saveCodeCache?.(true);
		} finally {
			delete process.env.PI_REPAIR_LOADER_SECRET;
		}
		const files = readdirSync(cacheDir);
		expect(files).toHaveLength(1);
		const bytes = readFileSync(join(cacheDir, files[0] as string));
		expect(bytes.length).toBeGreaterThan(0);
		expect(bytes.includes(secret)).toBe(false);
	});
});
