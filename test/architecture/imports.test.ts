/**
 * The shape of `src/`, read from the source text: no import cycle anywhere, the pure core and grammar never
 * reach into the extension or the host, each folder of the extension imports only the folders below it (so
 * the walk of one call stays in `repair/`, `host/` and the core), and every folder of the extension names
 * each of its files in its README so a reader opens the right file without reading the folder.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/pi-cli.ts";

const SRC = join(REPO_ROOT, "src");

/** Every `.ts` file under `dir`, as absolute paths. */
function sourceFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return sourceFiles(path);
		return name.endsWith(".ts") ? [path] : [];
	});
}

/**
 * The specifiers of a file's static `import … from "x"`, `import "x"` and `export … from "x"` statements,
 * type-only ones included: a cycle through types still ties the files' meaning together.
 */
function importSpecifiers(text: string): string[] {
	const statement = /^[ \t]*(?:(?:import|export)\b[^;"'`]*?\bfrom[ \t]*|import[ \t]*)["']([^"'\n]+)["']/gm;
	return [...text.matchAll(statement)].map((match) => match[1] as string);
}

/** The import graph of `src/`: each file (relative to the repository) to the files and packages it imports. */
function importGraph(): Map<string, { files: string[]; packages: string[] }> {
	const graph = new Map<string, { files: string[]; packages: string[] }>();
	for (const file of sourceFiles(SRC)) {
		const files: string[] = [];
		const packages: string[] = [];
		for (const specifier of importSpecifiers(readFileSync(file, "utf8"))) {
			if (specifier.startsWith(".")) files.push(relative(REPO_ROOT, resolve(dirname(file), specifier)));
			else packages.push(specifier);
		}
		graph.set(relative(REPO_ROOT, file), { files, packages });
	}
	return graph;
}

/** The strongly connected components of more than one file, or of one file importing itself (Tarjan). */
function importCycles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const cycles: string[][] = [];
	const visit = (node: string): void => {
		index.set(node, index.size);
		low.set(node, index.get(node) as number);
		stack.push(node);
		onStack.add(node);
		for (const next of edges.get(node) ?? []) {
			if (!index.has(next)) {
				visit(next);
				low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
			} else if (onStack.has(next)) low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
		}
		if (low.get(node) !== index.get(node)) return;
		const component: string[] = [];
		for (;;) {
			const member = stack.pop()!;
			onStack.delete(member);
			component.push(member);
			if (member === node) break;
		}
		if (component.length > 1 || (edges.get(node) ?? []).includes(node)) cycles.push(component.sort());
	};
	for (const node of edges.keys()) if (!index.has(node)) visit(node);
	return cycles;
}

describe("the import graph of src/", () => {
	const graph = importGraph();

	it("reads imports the way the sources write them", () => {
		const text = [
			'import { a } from "./a.ts";',
			'import type { B } from "../b.ts";',
			"import {",
			"\tc,",
			"\ttype D,",
			'} from "./c.ts";',
			'export { e } from "./e.ts";',
			'export * from "./f.ts";',
			'import "./g.ts";',
			'import { readFileSync } from "node:fs";',
			'\t// a comment that says import nothing from "./h.ts"',
			'const text = `import { x } from "./i.ts"`;',
		].join("\n");
		expect(importSpecifiers(text)).toEqual(["./a.ts", "../b.ts", "./c.ts", "./e.ts", "./f.ts", "./g.ts", "node:fs"]);
	});

	it("finds a cycle when there is one, and none in a tree", () => {
		const circle = new Map([
			["a", ["b"]],
			["b", ["c"]],
			["c", ["a", "d"]],
			["d", []],
		]);
		expect(importCycles(circle)).toEqual([["a", "b", "c"]]);
		expect(importCycles(new Map([["self", ["self"]]]))).toEqual([["self"]]);
		expect(
			importCycles(
				new Map([
					["a", ["b", "c"]],
					["b", ["c"]],
					["c", []],
				]),
			),
		).toEqual([]);
	});

	it("resolves every relative import to a file that exists", () => {
		const missing = [...graph].flatMap(([file, { files }]) =>
			files.filter((target) => !existsSync(join(REPO_ROOT, target))).map((target) => `${file} -> ${target}`),
		);
		expect(missing).toEqual([]);
	});

	it("has no import cycle", () => {
		const edges = new Map([...graph].map(([file, { files }]) => [file, files]));
		expect(importCycles(edges)).toEqual([]);
	});

	it("keeps the core and the grammar pure: nothing from the extension, the adapter, the entry or pi", () => {
		const pure = ["src/core/", "src/grammar/"];
		const allowedPackages = new Set(["typebox", "typebox/compile"]);
		const offending = [...graph]
			.filter(([file]) => pure.some((folder) => file.startsWith(folder)))
			.flatMap(([file, { files, packages }]) => [
				...files.filter((target) => !pure.some((folder) => target.startsWith(folder))).map((t) => `${file} -> ${t}`),
				...packages.filter((name) => !allowedPackages.has(name)).map((name) => `${file} -> ${name}`),
			]);
		expect(offending).toEqual([]);
	});

	it("keeps each folder of the extension to the folders below it", () => {
		const offending = [...graph]
			.filter(([file]) => file.startsWith(EXTENSION))
			.flatMap(([file, { files }]) => {
				const folder = extensionFolder(file);
				const layer = folder === undefined ? undefined : EXTENSION_LAYERS[folder];
				if (layer === undefined) return [`${file}: not in a folder of the table`];
				return files
					.filter((target) => {
						const targetFolder = target.startsWith(EXTENSION) ? extensionFolder(target) : undefined;
						if (targetFolder !== undefined) return targetFolder !== folder && !layer.folders.includes(targetFolder);
						return !layer.outside.some((allowed) => target.startsWith(allowed));
					})
					.map((target) => `${file} -> ${target}`);
			});
		expect(offending).toEqual([]);
	});
});

const EXTENSION = "src/extension/";

/**
 * What each folder of the extension may import besides its own files: the extension folders below it, and
 * the paths outside the extension (a folder or one file).
 */
const EXTENSION_LAYERS: Readonly<Record<string, { folders: readonly string[]; outside: readonly string[] }>> = {
	host: { folders: [], outside: ["src/core/"] },
	files: { folders: ["host"], outside: ["src/core/"] },
	// The refusal mark is shared with every copy of the adapter, which reads the same registered symbol.
	repair: { folders: ["host"], outside: ["src/core/", "src/pi/refused-arguments.ts"] },
	leaks: { folders: ["host", "files"], outside: ["src/core/", "src/grammar/"] },
	commands: { folders: ["host", "files", "repair"], outside: ["src/core/"] },
};

/** The extension folder a file lies in (`repair` for `src/extension/repair/x.ts`); undefined for a loose file. */
function extensionFolder(file: string): string | undefined {
	const parts = file.slice(EXTENSION.length).split("/");
	return parts.length === 2 ? parts[0] : undefined;
}

/** The backquoted names in a README that end with `suffix` (`x.ts`, `repair/`). */
function namesIn(readme: string, suffix: string): string[] {
	return [...readme.matchAll(/`([^`\s]+)`/g)]
		.map((match) => match[1] as string)
		.filter((name) => name.endsWith(suffix));
}

describe("the READMEs of src/extension", () => {
	const root = join(REPO_ROOT, EXTENSION);
	const folders = readdirSync(root).filter((name) => statSync(join(root, name)).isDirectory());

	it("has no loose file beside its folders, and one row of the layer table per folder", () => {
		expect(readdirSync(root).filter((name) => name.endsWith(".ts"))).toEqual([]);
		expect([...folders].sort()).toEqual(Object.keys(EXTENSION_LAYERS).sort());
	});

	it("names each folder in the extension's README, and no folder that does not exist", () => {
		const listed = new Set(
			namesIn(readFileSync(join(root, "README.md"), "utf8"), "/").map((name) => name.slice(0, -1)),
		);
		expect([...listed].filter((name) => !name.includes("/") && !folders.includes(name))).toEqual([]);
		expect(folders.filter((name) => !listed.has(name))).toEqual([]);
	});

	it.each(folders)("names every file of %s/ in its README, and no file that does not exist", (folder) => {
		const readme = join(root, folder, "README.md");
		expect(existsSync(readme)).toBe(true);
		const listed = namesIn(readFileSync(readme, "utf8"), ".ts");
		const present = readdirSync(join(root, folder)).filter((name) => name.endsWith(".ts"));
		expect(listed.filter((name) => !present.includes(name))).toEqual([]);
		expect(present.filter((name) => !listed.includes(name))).toEqual([]);
	});
});
