/**
 * The shape of `src/`, read from the source text: no import cycle anywhere, the pure core and grammar never
 * reach into the extension or the host, and every folder of the extension names each of its files in its
 * README so a reader opens the right file without reading the folder.
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
		let member: string | undefined;
		do {
			member = stack.pop() as string;
			onStack.delete(member);
			component.push(member);
		} while (member !== node);
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
});
