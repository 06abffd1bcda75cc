/**
 * Preloaded into a pi process (`NODE_OPTIONS=--import=<this file>`) by the one-pi
 * tests: appends to PI_REPAIR_MODULE_PROBE the path of every module file the
 * process loads, whether Node's loader loads it (import or require) or pi's
 * extension loader reads it to compile it, so a test can compare the files a
 * run with the layer loads against a run without it.
 */
import fs, { appendFileSync } from "node:fs";
import { registerHooks, syncBuiltinESMExports } from "node:module";
import { fileURLToPath } from "node:url";

const out = process.env.PI_REPAIR_MODULE_PROBE;
if (out) {
	const seen = new Set();
	const record = (path) => {
		if (seen.has(path)) return;
		seen.add(path);
		appendFileSync(out, `${path}\n`);
	};
	registerHooks({
		load(url, context, next) {
			if (url.startsWith("file:")) record(fileURLToPath(url));
			return next(url, context);
		},
	});
	// pi's loader reads an extension's files itself before compiling them.
	const readFileSync = fs.readFileSync;
	fs.readFileSync = function probedReadFileSync(path, ...rest) {
		if (typeof path === "string" && /\.(?:[cm]?js|[cm]?ts)$/.test(path)) record(path);
		return readFileSync.call(this, path, ...rest);
	};
	syncBuiltinESMExports();
}
