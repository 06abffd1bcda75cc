/**
 * Builds the extension pi loads: `node scripts/build-extension.ts` (part of `npm run build`).
 *
 * pi compiles an extension through its own loader, which maps `@earendil-works/*` and
 * `typebox` to the host's instances; a compiled file that Node loads itself would
 * resolve them from the nearest `node_modules` instead and start a second pi (pi's
 * docs/packages.md warns about the duplicate classes and initialization). pi's loader
 * also transforms every file it loads, which costs more than the layer's own work.
 *
 * So the layer is bundled into `dist/bundle/layer.cjs`, whose imports of pi's packages
 * are replaced by shims reading the host's modules from a slot. The manifest's entry
 * (`extension.ts`, small, compiled by pi's loader so its own imports are the host's)
 * requires `dist/bundle/boot.cjs` (src/extension/files/boot.ts): the host check, the
 * slot, which it fills, and the loader (src/extension/files/bundle-loader.ts), which
 * runs the bundle with a V8 code cache of the functions earlier sessions ran.
 * CommonJS, so the bundle can run as a script. Every module the boot file holds is
 * kept out of the bundle, which requires it from there: one instance of each, and two
 * files of the build read at each start.
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { rolldown } from "rolldown";
import { HOST_SPECIFIERS, type HostSpecifier } from "../src/extension/host/host-modules.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outDir = join(root, "dist", "bundle");
const SHIM_PREFIX = "\0pi-host:";
/** A CommonJS require of a Node built-in, as the bundler writes it. */
const BUILTIN_REQUIRE = /\brequire\((["'`])(node:[a-z0-9_/]+)\1\)/g;
/** The slot module the shims read from; it is in the boot file, so the entry and the bundle share one instance. */
const slot = join(root, "src", "extension", "host", "host-modules.ts");
/** What the entry requires before the bundle: the host check, the slot and the loader. */
const boot = join(root, "src", "extension", "files", "boot.ts");

/** Every module the boot file holds: the bundle requires these from it instead of carrying its own copies. */
async function bootModules(): Promise<Set<string>> {
	const probe = await rolldown({ input: boot, platform: "node", external: [/^node:/] });
	const ids = new Set<string>();
	for (const output of (await probe.generate({ format: "cjs" })).output) {
		if (output.type === "chunk") for (const id of output.moduleIds) ids.add(id);
	}
	await probe.close();
	return ids;
}

/** The runtime names each host module must provide, read from the sources' value imports. */
function importedNames(): Map<HostSpecifier, Set<string>> {
	const names = new Map<HostSpecifier, Set<string>>(HOST_SPECIFIERS.map((specifier) => [specifier, new Set()]));
	const files = readdirSync(join(root, "src"), { recursive: true, encoding: "utf8" }).filter((file) =>
		file.endsWith(".ts"),
	);
	const statement = /import\s+(type\s+)?\{([^}]*)\}\s*from\s*"([^"]+)"/g;
	for (const file of files) {
		for (const match of readFileSync(join(root, "src", file), "utf8").matchAll(statement)) {
			const [, typeOnly, list = "", specifier = ""] = match;
			if (typeOnly !== undefined || !/^(@earendil-works\/|typebox)/.test(specifier)) continue;
			const wanted = names.get(specifier as HostSpecifier);
			if (wanted === undefined) throw new Error(`${file} imports ${specifier}, which the host slot does not provide`);
			for (const item of list.split(",")) {
				const name = item.trim();
				if (name === "" || name.startsWith("type ")) continue;
				wanted.add(name.split(/\s+as\s+/)[0] ?? name);
			}
		}
	}
	return names;
}

async function main(): Promise<void> {
	rmSync(outDir, { recursive: true, force: true });
	const names = importedNames();
	const inBoot = await bootModules();
	const bundle = await rolldown({
		input: { layer: join(root, "src", "index.ts"), boot },
		platform: "node",
		// The boot entry may also export what the bundle requires from it, so no separate shared file is made.
		preserveEntrySignatures: "allow-extension",
		external: [/^node:/],
		plugins: [
			{
				name: "pi-host-modules",
				resolveId(source) {
					if (/^(@earendil-works\/|typebox)/.test(source)) {
						if (!names.has(source as HostSpecifier)) throw new Error(`no host module for ${source}`);
						return { id: `${SHIM_PREFIX}${source}` };
					}
					return null;
				},
				load(id) {
					if (!id.startsWith(SHIM_PREFIX)) return null;
					const specifier = id.slice(SHIM_PREFIX.length) as HostSpecifier;
					const list = [...(names.get(specifier) ?? [])].sort();
					const lines = list.map((name) => `export const ${name} = host.${name};`);
					return `import { hostModule } from ${JSON.stringify(slot)};\nconst host = hostModule(${JSON.stringify(specifier)});\n${lines.join("\n")}\n`;
				},
			},
			{
				name: "node-builtins",
				// Node's require resolves even a built-in through its module loader; this asks for the module itself.
				renderChunk(code) {
					return { code: code.replace(BUILTIN_REQUIRE, "process.getBuiltinModule($1$2$1)"), map: null };
				},
			},
		],
	});
	// Minified: the whole file is read and hashed at every start, and a smaller file costs less of both.
	await bundle.write({
		dir: outDir,
		format: "cjs",
		// ASCII only: the source becomes a one-byte string, which reads, hashes and compiles faster.
		charset: "ascii",
		exports: "named",
		entryFileNames: "[name].cjs",
		manualChunks: (id: string) => (inBoot.has(id) ? "boot" : undefined),
		chunkFileNames: "[name]-[hash].cjs",
		minify: true,
	});
	await bundle.close();
	// Any other file would be a chunk the two share, read at every start besides them.
	const written = readdirSync(outDir).sort();
	if (written.join() !== "boot.cjs,layer.cjs")
		throw new Error(`the build wrote ${written.join(", ")}, not boot.cjs and layer.cjs`);
	for (const file of written) {
		if (/\brequire\(["'`]node:/.test(readFileSync(join(outDir, file), "utf8")))
			throw new Error(`${file} still requires a Node built-in through the module loader`);
	}
}

await main();
