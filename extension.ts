/**
 * pi's entry for this package (the `pi.extensions` manifest names it), so one
 * manifest serves the packed tarball and a fresh clone alike.
 *
 * pi compiles this file with its own loader, which maps the imports below to
 * the host's instances of its packages. With a build present (the tarball
 * ships it, `npm run build` makes it in a checkout) the entry hands those
 * modules to the bundled layer and runs the bundle itself, with a code cache
 * of what earlier sessions compiled (src/extension/files/boot.ts): fast, and
 * it never resolves a second copy of pi. Without one (a fresh
 * clone) pi compiles the TypeScript source itself, feeding it the same host
 * modules.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import * as piCodingAgent from "@earendil-works/pi-coding-agent";
import type * as Boot from "./src/extension/files/boot.ts";

type ExtensionFactory = (pi: ExtensionAPI) => void;

const BUNDLE = "./dist/bundle/layer.cjs";
const BOOT = "./dist/bundle/boot.cjs";
const SOURCE = "./src/index.ts";

export default async function piRepairLayer(pi: ExtensionAPI): Promise<void> {
	const built = existsSync(new URL(BUNDLE, import.meta.url));
	// Node's own require: pi's loader would otherwise transform the bundle and map nothing it needs.
	const load = createRequire(import.meta.url);
	// The build's boot file holds the host check, the slot and the loader: one native load of a small file.
	const boot = built ? (load(BOOT) as typeof Boot) : undefined;
	// The same check either way: the build's copy loads natively, the source's through pi's loader.
	const hostVersion = boot ?? (await import("./src/extension/host/host-version.ts"));
	// An older pi lacks what the layer relies on: load nothing, and say why once.
	const version: unknown = (piCodingAgent as { VERSION?: unknown }).VERSION;
	if (hostVersion.isBelowOldestPiVersion(version)) {
		hostVersion.reportUnsupportedHost(pi, hostVersion.unsupportedHostWarning(version));
		return;
	}
	if (boot !== undefined) {
		// Imported only after the version check: an older host may not provide all of them.
		const [piAi, piTui, typeboxCompile] = await Promise.all([
			import("@earendil-works/pi-ai"),
			import("@earendil-works/pi-tui"),
			import("typebox/compile"),
		]);
		boot.provideHostModules({
			"@earendil-works/pi-coding-agent": piCodingAgent,
			"@earendil-works/pi-tui": piTui,
			"@earendil-works/pi-ai": piAi,
			"typebox/compile": typeboxCompile,
		});
		const bundle = boot.loadBundle(load.resolve(BUNDLE));
		(bundle.exports as { default: ExtensionFactory }).default(pi);
		// Saved as a session ends: then it holds every function that session compiled.
		const save = bundle.saveCodeCache;
		if (save !== undefined) {
			let ranCalls = false;
			// Listened to only until the first call: by then the path every call takes has been compiled.
			const off: unknown = pi.on("tool_call", () => {
				ranCalls = true;
				if (typeof off === "function") off();
				return undefined;
			});
			pi.on("session_shutdown", () => save(ranCalls));
		}
		return;
	}
	// pi prints a factory's error with the extension's path, so this says why nothing loaded.
	if (!existsSync(new URL(SOURCE, import.meta.url)))
		throw new Error(`pi-repair-layer: neither ${BUNDLE} nor ${SOURCE} exists next to ${import.meta.url}`);
	((await import(SOURCE)) as { default: ExtensionFactory }).default(pi);
}
