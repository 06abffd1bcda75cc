/**
 * One pi in every route a checkout can be loaded by: the layer must use the
 * host's own `@earendil-works/*` and `typebox` instances, never a copy Node
 * would resolve from the checkout's `node_modules` (pi's docs/packages.md:
 * duplicate classes, registries and initialization work).
 *
 * Each run preloads test/package/module-probe.mjs, which lists every module
 * file the pi process loads. A run with the layer may add only the layer's own
 * files to the list of a run without it; and the layer must have worked (a
 * `write` call using `file_path` is repaired). The packed routes (`pi install`
 * of the tarball, `pi -e` of the installed package) are checked the same way
 * by scripts/test-package.ts.
 */
import {
	cpSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runPiCli } from "../helpers/pi-cli.ts";

const PROBE = join(REPO_ROOT, "test", "package", "module-probe.mjs");
const built = existsSync(join(REPO_ROOT, "dist", "bundle", "layer.cjs"));
const temps: string[] = [];
afterAll(() => {
	for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	temps.push(dir);
	return dir;
}

/** A copy of the package as a user would have it, with or without the build; never its node_modules. */
function copyPackage(target: string, withBuild: boolean): string {
	mkdirSync(target, { recursive: true });
	for (const entry of ["src", "extension.ts", "index.ts", "package.json", ...(withBuild ? ["dist"] : [])])
		cpSync(join(REPO_ROOT, entry), join(target, entry), { recursive: true });
	return target;
}

interface ProbedRun {
	files: string[];
	repaired: boolean;
	output: string;
}

async function probedRun(
	extension: string | false,
	options: { noExtensions?: boolean; prepare?: (agentDir: string) => void } = {},
): Promise<ProbedRun> {
	const list = join(tempDir("pi-repair-probe-"), "modules.txt");
	const run = await runPiCli({
		script: [
			{ toolCalls: [{ name: "write", arguments: { file_path: "a.txt", content: "one pi\n" } }] },
			{ type: "echo" },
		],
		extension,
		...(options.noExtensions === undefined ? {} : { noExtensions: options.noExtensions }),
		prepare: ({ agentDir }) => options.prepare?.(agentDir),
		env: { NODE_OPTIONS: `--import=${PROBE}`, PI_REPAIR_MODULE_PROBE: list },
	});
	try {
		const files = existsSync(list) ? readFileSync(list, "utf8").split("\n").filter(Boolean) : [];
		return {
			files,
			repaired: run.readFile("a.txt") === "one pi\n" && run.stdout.includes("<repair_note>"),
			output: `${run.stdout}\n${run.stderr}`,
		};
	} finally {
		run.cleanup();
	}
}

/** Files a run with the layer loaded that a run without it did not, which belong to pi or TypeBox. */
function secondPiFiles(without: ProbedRun, withLayer: ProbedRun): string[] {
	const baseline = new Set(without.files);
	return withLayer.files.filter(
		(file) => !baseline.has(file) && /[\\/]node_modules[\\/](@earendil-works|@mariozechner|typebox)[\\/]/.test(file),
	);
}

describe("the layer loads one pi", () => {
	let baseline: ProbedRun | undefined;
	const withoutLayer = async () => {
		baseline ??= await probedRun(false);
		expect(baseline.files.length, baseline.output).toBeGreaterThan(0);
		return baseline;
	};

	it.skipIf(!built)(
		"a built checkout loaded with pi -e <checkout> uses the host's packages and loads the bundle",
		async () => {
			const run = await probedRun(REPO_ROOT);
			expect(run.repaired, run.output).toBe(true);
			expect(secondPiFiles(await withoutLayer(), run)).toEqual([]);
			expect(run.files).toContain(join(REPO_ROOT, "dist", "bundle", "boot.cjs"));
		},
		120_000,
	);

	it.skipIf(!built)(
		"a built checkout keeps its code cache: partial after a start with no call, whole after one with a call, then used as it is",
		async () => {
			// Node's compile cache folder for these runs alone; pi turns the cache on, and the layer's sits beside it.
			const cacheDir = tempDir("pi-repair-code-cache-");
			const caches = (kind: "whole" | "partial") =>
				readdirSync(cacheDir, { recursive: true, encoding: "utf8" })
					.filter((file) =>
						(kind === "whole"
							? /pi-repair-layer-\d+-[0-9a-f]+\.cache$/
							: /pi-repair-layer-\d+-[0-9a-f]+\.partial\.cache$/
						).test(file),
					)
					.map((file) => join(cacheDir, file));
			const start = async (withCall: boolean) => {
				const run = await runPiCli({
					script: withCall
						? [
								{ toolCalls: [{ name: "write", arguments: { file_path: "a.txt", content: "cached\n" } }] },
								{ type: "echo" },
							]
						: [{ text: "Nothing to run." }],
					extension: REPO_ROOT,
					env: { NODE_COMPILE_CACHE: cacheDir },
				});
				try {
					expect(run.exitCode, run.stderr).toBe(0);
					if (withCall) expect(run.readFile("a.txt")).toBe("cached\n");
				} finally {
					run.cleanup();
				}
			};
			// A first session that ran no call never compiled the call path: its cache is kept as partial.
			await start(false);
			expect(caches("whole")).toEqual([]);
			expect(caches("partial")).toHaveLength(1);
			await start(true);
			const saved = caches("whole");
			expect(saved).toHaveLength(1);
			expect(caches("partial")).toEqual([]);
			const written = statSync(saved[0] as string).mtimeMs;
			await start(true);
			await start(false);
			// Used as it was: V8 took it, so nothing was compiled again or written.
			expect(caches("whole")).toEqual(saved);
			expect(caches("partial")).toEqual([]);
			expect(statSync(saved[0] as string).mtimeMs).toBe(written);
		},
		120_000,
	);

	it("a fresh clone without a build (pi compiles the source) uses the host's packages", async () => {
		const clone = copyPackage(join(tempDir("pi-repair-clone-"), "pi-repair-layer"), false);
		const run = await probedRun(clone);
		expect(run.repaired, run.output).toBe(true);
		expect(secondPiFiles(await withoutLayer(), run)).toEqual([]);
		expect(run.files).toContain(join(clone, "src", "index.ts"));
	}, 120_000);

	it.skipIf(!built)(
		"a copy in pi's extensions folder uses the host's packages",
		async () => {
			let copy = "";
			const run = await probedRun(false, {
				noExtensions: false,
				prepare: (agentDir) => {
					copy = copyPackage(join(agentDir, "extensions", "pi-repair-layer"), true);
				},
			});
			expect(run.repaired, run.output).toBe(true);
			expect(secondPiFiles(await withoutLayer(), run)).toEqual([]);
			expect(run.files).toContain(join(copy, "dist", "bundle", "boot.cjs"));
		},
		120_000,
	);

	it("the probe sees a second pi when something loads one", async () => {
		// The check itself must be able to fail: pi's own unbundled entry, loaded as Node would resolve it.
		const dir = tempDir("pi-repair-second-");
		const extension = join(dir, "second-pi.ts");
		const piEntry = join(REPO_ROOT, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "index.js");
		writeFileSync(
			extension,
			`import { createRequire } from "node:module";\nexport default function (pi) {\n\tcreateRequire(import.meta.url)(${JSON.stringify(piEntry)});\n\tpi.on("session_start", () => {});\n}\n`,
		);
		const run = await probedRun(extension);
		expect(secondPiFiles(await withoutLayer(), run).length, run.output).toBeGreaterThan(0);
	}, 120_000);
});
