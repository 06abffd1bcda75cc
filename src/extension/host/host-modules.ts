/**
 * The host's own pi packages, for the bundled extension (`dist/bundle/`).
 *
 * Node loads that bundle itself, so a bare import of pi's packages there would
 * resolve to whatever copy sits in the nearest `node_modules` and start a
 * second pi. The build replaces each such import with a shim that reads the
 * module from this slot, and the manifest's entry, which pi's loader compiles
 * and maps to the host's instances, fills the slot before the bundle loads.
 * Tests and the TypeScript source import pi's packages directly instead.
 */

/** Every pi module the layer uses at run time; the build refuses an import of any other. */
export const HOST_SPECIFIERS = [
	"@earendil-works/pi-coding-agent",
	"@earendil-works/pi-tui",
	"@earendil-works/pi-ai",
	"typebox/compile",
] as const;

export type HostSpecifier = (typeof HOST_SPECIFIERS)[number];
export type HostModules = Readonly<Record<HostSpecifier, object>>;

let provided: HostModules | undefined;

/** Called by the entry with the modules pi's loader gave it, before the bundle is loaded. */
export function provideHostModules(modules: HostModules): void {
	provided = modules;
}

/** The host's instance of `specifier`; the bundle's shims read their exports from it. */
export function hostModule(specifier: HostSpecifier): Readonly<Record<string, unknown>> {
	const module = provided?.[specifier];
	// Only a load that skipped the entry gets here; pi prints the error with the extension's path.
	if (module === undefined)
		throw new Error(`pi-repair-layer: the bundle was loaded before its entry provided ${specifier}`);
	return module as Readonly<Record<string, unknown>>;
}
