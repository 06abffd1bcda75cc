/**
 * pi's entry for this package (the `pi.extensions` manifest names it), so one
 * manifest serves the packed tarball and a fresh clone alike: the compiled
 * `dist/` when it is there (the tarball ships it, `npm run build` makes it in
 * a checkout), else the TypeScript source, which pi compiles itself and feeds
 * its own copies of pi's packages, so a clone needs no `npm ci` or build.
 */
import { existsSync } from "node:fs";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

type ExtensionFactory = (pi: ExtensionAPI) => void;

const ENTRIES = ["./dist/index.js", "./src/index.ts"] as const;

export default async function piRepairLayer(pi: ExtensionAPI): Promise<void> {
	const entry = ENTRIES.find((candidate) => existsSync(new URL(candidate, import.meta.url)));
	// pi prints a factory's error with the extension's path, so this says why nothing loaded.
	if (entry === undefined)
		throw new Error(`pi-repair-layer: neither ${ENTRIES.join(" nor ")} exists next to ${import.meta.url}`);
	const loaded = (await import(entry)) as { default: ExtensionFactory };
	loaded.default(pi);
}
