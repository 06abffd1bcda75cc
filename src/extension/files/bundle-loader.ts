/**
 * Loads the bundled layer (`dist/bundle/layer.cjs`) with a V8 code cache of
 * the functions its sessions run.
 *
 * V8 compiles a function the first time it is called, and Node's compile
 * cache (which pi turns on) keeps only what V8 compiled together with the
 * file: its top-level code. So every pi start compiled again each layer
 * function the session then called, about a thousand of them (7 to 10 ms of
 * CPU in a session of valid calls, most of it at load and on the first
 * messages). Here the bundle is compiled as a script, given the cache an
 * earlier session left, and when it had none (or V8 refused it) a new one is
 * saved as the session ends, which then holds every function that session
 * ran.
 *
 * A session in which no tool call ran (a question answered in text) never
 * compiled the path every call takes, so the cache it leaves is kept as
 * partial: the next session that runs a call saves the whole one over it,
 * and from then on nothing is written. Without that, one short first session
 * would leave every later one compiling the call path again.
 *
 * The cache lives beside Node's own, in the directory pi chose for it
 * (`module.getCompileCacheDir()`, one per Node version), and nowhere when pi
 * turned Node's cache off. Its name carries the bundle's length and CRC-32,
 * as Node names its own entries, so a changed bundle never meets an old
 * cache; V8 itself refuses a cache made by another version or with other
 * flags. The file holds compiled code of the bundle only, no session data.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire, getCompileCacheDir } from "node:module";
import { basename, dirname, join } from "node:path";
import { Script } from "node:vm";
import { crc32 } from "node:zlib";
import { reportIoError, reportIoErrorUnless } from "./fs-errors.ts";

/**
 * The bundle's exports, and how to keep its compiled code for the next start:
 * absent when a whole cache was used or there is nowhere to keep one.
 * `ranCalls` says whether a tool call ran in the session; the whole cache is
 * written at most once, and a partial one only when there was none.
 */
export interface LoadedBundle {
	exports: Record<string, unknown>;
	saveCodeCache: ((ranCalls: boolean) => void) | undefined;
}

/**
 * The cache file of the bundle's bytes in `dir`: named by their length and
 * CRC-32, as Node names its own; `partial` names the cache of a session in
 * which no call ran.
 */
export function codeCachePath(dir: string, bytes: Uint8Array, partial = false): string {
	const paths = cachePaths(dir, bytes);
	return partial ? paths.partial : paths.whole;
}

/** Both cache files of the bundle's bytes in `dir`, from one CRC of the whole bundle. */
function cachePaths(dir: string, bytes: Uint8Array): { whole: string; partial: string } {
	const stem = join(dir, `pi-repair-layer-${bytes.length}-${crc32(bytes).toString(16)}`);
	return { whole: `${stem}.cache`, partial: `${stem}.partial.cache` };
}

/**
 * Runs the CommonJS bundle at `path` (its `require` resolves from the
 * bundle's own folder, so it shares the entry's instance of every module it
 * requires) and returns its exports. `cacheDir` defaults to Node's compile
 * cache directory; `undefined` there means no cache is read or written.
 */
export function loadBundle(path: string, cacheDir: string | undefined = getCompileCacheDir()): LoadedBundle {
	const bytes = readFileSync(path);
	const source = bytes.toString("utf8");
	const paths = cacheDir === undefined ? undefined : cachePaths(cacheDir, bytes);
	// The whole cache when there is one; the partial one is read only until a session with a call replaced it.
	const whole = paths === undefined ? undefined : readCache(paths.whole);
	const partial = paths === undefined || whole !== undefined ? undefined : readCache(paths.partial);
	const cachedData = whole ?? partial;
	// The same wrapper Node gives a CommonJS file, so the bundle runs exactly as `require` would run it.
	const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
		filename: path,
		...(cachedData === undefined ? {} : { cachedData }),
	});
	const module = { exports: {} as Record<string, unknown> };
	const run = script.runInThisContext() as (...args: unknown[]) => void;
	run(module.exports, createRequire(path), module, path, dirname(path));
	const used = cachedData !== undefined && !script.cachedDataRejected;
	if (paths === undefined || (used && whole !== undefined)) {
		return { exports: module.exports, saveCodeCache: undefined };
	}
	// With nothing usable loaded, even a session without calls leaves a (partial) cache; a partial one V8 took waits for a whole one.
	let partialDue = !used;
	let wholeDue = true;
	/** Writes what this session compiled to `target`, then removes `stale` (the cache it replaces) if any. */
	const saveAs = (target: string, stale: string | undefined) => {
		// A cache that cannot be written only costs the next start the compile it would have saved.
		try {
			writeCache(target, script.createCachedData());
			if (stale !== undefined) rmSync(stale, { force: true });
		} catch (error) {
			reportIoError("code-cache-save", error);
		}
	};
	return {
		exports: module.exports,
		saveCodeCache: (ranCalls) => {
			if (ranCalls) {
				if (!wholeDue) return;
				wholeDue = false;
				partialDue = false;
				saveAs(paths.whole, paths.partial);
			} else if (partialDue) {
				partialDue = false;
				// A whole cache V8 refused would be read before the partial one at every start.
				saveAs(paths.partial, whole === undefined ? undefined : paths.whole);
			}
		},
	};
}

/** The cache's bytes, or `undefined` when there is none yet. */
function readCache(path: string): Buffer | undefined {
	try {
		return readFileSync(path);
	} catch (error) {
		// No cache yet is the normal first start; any other failure is reported, and the bundle compiles as without one.
		reportIoErrorUnless("ENOENT", "code-cache-read", error);
		return undefined;
	}
}

/** Writes beside the final name, then renames: a pi starting meanwhile reads the old cache or the new one, never half. */
function writeCache(path: string, data: Buffer): void {
	const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
	try {
		writeFileSync(temp, data, { flag: "wx", mode: 0o600 });
		renameSync(temp, path);
	} finally {
		rmSync(temp, { force: true });
	}
}
