/**
 * Package smoke test: `npm run test:package`.
 *
 * Checks the artifact a user installs, not the checkout:
 *   1. builds `dist/` and packs the project with `npm pack` into a temp folder;
 *   2. checks the tarball's file list (dist, declarations, README, LICENSE and
 *      docs present; no tests, fixtures or scripts) and that every source map
 *      points only at files inside the tarball;
 *   3. installs the tarball into a fresh consumer project next to pi and the
 *      packages pi supplies to extensions (pi-ai, pi-agent-core, pi-tui,
 *      typebox), linked from this checkout's node_modules so no registry
 *      access is needed, and imports every public subpath from plain Node ESM
 *      (`test/package/consumer.mjs`) and from TypeScript, type-checked with
 *      tsc against the shipped declarations (`test/package/consumer.ts.txt`);
 *   4. checks that installing the tarball runs no build: its manifest has no
 *      install-time lifecycle script, and a real `npm install` of it with
 *      scripts enabled runs none of ours;
 *   5. runs the real pi CLI in print mode, offline, with an isolated agent
 *      folder: with `pi install` of the tarball, with `pi -e` of the
 *      installed package, and with `pi -e` of a copy whose TypeScript source
 *      throws when loaded (so the manifest's entry must pick the compiled
 *      `dist/`), each time with a scripted provider
 *      (`test/package/provider.ts`) whose `write` call uses `file_path`; the
 *      call must be repaired, the file written and the note visible; and each
 *      run must load no file of pi's packages or TypeBox that pi alone does not
 *      (test/package/module-probe.mjs lists what the process loads);
 *   6. the published route: publishes the tarball to a registry it starts on
 *      127.0.0.1 (verdaccio, scripts/registry-server.ts, no uplink), then
 *      `pi install npm:pi-repair-layer` from it, runs the scripted call
 *      through the real CLI, and checks that neither that install nor a plain
 *      `npm install pi-repair-layer` in a fresh project (the tool-owner guide's
 *      line) brought any other package, pi's optional peers included.
 *
 * Prints one line per check and exits non-zero when any fails. `--keep` leaves
 * the temp folder in place for inspection; `--no-build` packs the `dist/` that
 * is already there (the test suite's wrapper, test/package/package.test.ts,
 * uses it after CI's build step, so nothing rewrites `dist/` under other tests).
 */
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const keep = process.argv.includes("--keep");
const build = !process.argv.includes("--no-build");
const node = process.execPath;

interface Ran {
	status: number | null;
	stdout: string;
	stderr: string;
}

function run(command: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Ran {
	const result = spawnSync(command, args, {
		cwd: options.cwd,
		env: options.env ?? process.env,
		encoding: "utf8",
		timeout: 180_000,
		maxBuffer: 64 * 1024 * 1024,
	});
	return { status: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? String(result.error ?? "") };
}

let failures = 0;
function check(name: string, ok: boolean, detail?: string): boolean {
	if (!ok) failures += 1;
	console.log(
		`${ok ? "ok  " : "FAIL"} ${name}${!ok && detail ? `\n     ${detail.trim().split("\n").join("\n     ")}` : ""}`,
	);
	return ok;
}

function tail(text: string, lines = 25): string {
	return text.trim().split("\n").slice(-lines).join("\n");
}

/** The npm CLI for this platform; npm scripts put Node 22 first on PATH, so npm runs on it too. */
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

const work = mkdtempSync(join(tmpdir(), "pi-repair-package-"));
try {
	main();
} finally {
	if (keep) console.log(`kept ${work}`);
	else rmSync(work, { recursive: true, force: true });
}
if (failures > 0) {
	console.log(`\npackage smoke test: ${failures} check(s) failed`);
	process.exit(1);
}
console.log("\npackage smoke test: all checks passed");

function main(): void {
	if (build) {
		const built = run(npm, ["run", "build", "--silent"], { cwd: root });
		if (!check("npm run build", built.status === 0, tail(built.stdout + built.stderr))) return;
	} else if (!check("dist/ exists (--no-build)", existsSync(join(root, "dist", "index.js")))) return;

	// The build ran above (or is the one CI made); `prepack` must not rebuild dist/ under other tests.
	const packed = run(npm, ["pack", "--json", "--ignore-scripts", "--pack-destination", work], { cwd: root });
	if (!check("npm pack", packed.status === 0, tail(packed.stderr))) return;
	const manifest = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as Array<{
		filename: string;
		files: Array<{ path: string }>;
	}>;
	const entry = manifest[0];
	if (!check("npm pack reported one tarball", entry !== undefined) || entry === undefined) return;
	const tarball = join(work, entry.filename);
	const files = entry.files.map((file) => file.path);
	checkFileList(files);

	const extracted = join(work, "extracted");
	mkdirSync(extracted);
	const untar = run("tar", ["-xzf", tarball, "-C", extracted], { cwd: work });
	if (check("tarball extracts", untar.status === 0, untar.stderr)) {
		checkSourceMaps(join(extracted, "package"), files);
		checkDeclaredImports(join(extracted, "package"));
	}

	checkQuietInstall(tarball);
	const consumer = join(work, "consumer");
	if (!installConsumer(consumer, tarball)) return;
	checkImports(consumer);
	cpSync(join(root, "test", "package", "provider.ts"), join(consumer, "provider.ts"));
	const baseline = baselineModules(consumer);
	checkCli(consumer, tarball, baseline);
	checkRegistry(consumer, tarball, baseline);
}

function checkFileList(files: readonly string[]): void {
	const required = [
		"package.json",
		"README.md",
		"LICENSE",
		"extension.ts",
		"dist/bundle/layer.cjs",
		"dist/bundle/boot.cjs",
		"dist/index.js",
		"dist/index.d.ts",
		"dist/core/index.js",
		"dist/core/index.d.ts",
		"dist/pi/index.js",
		"dist/pi/index.d.ts",
		"dist/grammar/index.js",
		"dist/grammar/index.d.ts",
		"docs/how-it-works.md",
		"docs/operations.md",
		"docs/tool-owner-integration.md",
		"docs/research.md",
	];
	const missing = required.filter((file) => !files.includes(file));
	check(
		"tarball holds the manifest's entry, dist, types, README, LICENSE and docs",
		missing.length === 0,
		`missing: ${missing.join(", ")}`,
	);
	const forbidden = files.filter(
		(file) =>
			/^(test|tests|scripts|\.ci|coverage|node_modules|\.tmp)\//.test(file) ||
			/(^|\/)(fixtures?|__snapshots__)\//.test(file) ||
			/\.(test|spec|bench|fuzz)\.[cm]?[jt]s$/.test(file) ||
			/\.tgz$/.test(file),
	);
	check("tarball holds no tests, fixtures or scripts", forbidden.length === 0, `found: ${forbidden.join(", ")}`);
}

/** Every `sources` entry of every map must resolve inside the package and be shipped (or inlined). */
function checkSourceMaps(packageDir: string, files: readonly string[]): void {
	const maps = files.filter((file) => file.endsWith(".map"));
	const problems: string[] = [];
	for (const mapFile of maps) {
		const map = JSON.parse(readFileSync(join(packageDir, mapFile), "utf8")) as {
			sources?: string[];
			sourceRoot?: string;
			sourcesContent?: Array<string | null>;
		};
		for (const [index, source] of (map.sources ?? []).entries()) {
			const target = resolve(packageDir, dirname(mapFile), map.sourceRoot ?? "", source);
			const inside = target.startsWith(packageDir + sep);
			const shipped = inside && files.includes(relative(packageDir, target).split(sep).join("/"));
			const inlined = typeof map.sourcesContent?.[index] === "string";
			if (!inside || (!shipped && !inlined)) problems.push(`${mapFile} -> ${source}`);
		}
	}
	check(
		`${maps.length} source maps point only inside the tarball`,
		problems.length === 0,
		problems.slice(0, 10).join("\n"),
	);
}

/**
 * Every package the shipped JavaScript imports should be declared in the manifest
 * (pi's docs/packages.md: host-provided packages as peer dependencies). npm's
 * hoisting usually hides a missing declaration, stricter installers do not, so
 * this is reported as a warning rather than a failure.
 */
function checkDeclaredImports(packageDir: string): void {
	const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as Record<
		string,
		Record<string, string> | undefined
	>;
	const declared = new Set([
		...Object.keys(manifest.dependencies ?? {}),
		...Object.keys(manifest.peerDependencies ?? {}),
		...Object.keys(manifest.optionalDependencies ?? {}),
	]);
	const imported = new Set<string>();
	const specifier = /(?:^|[\s;])(?:import|export)\s[^"']*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/gm;
	for (const file of listFiles(join(packageDir, "dist")).filter((name) => name.endsWith(".js"))) {
		for (const match of readFileSync(file, "utf8").matchAll(specifier)) {
			const name = match[1] ?? match[2] ?? "";
			if (name.startsWith(".") || name.startsWith("node:") || name.startsWith("/")) continue;
			const parts = name.split("/");
			imported.add(name.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? name));
		}
	}
	const undeclared = [...imported].filter((name) => !declared.has(name)).sort();
	const line = `imports of dist/ declared in package.json (${[...imported].sort().join(", ")})`;
	if (undeclared.length === 0) console.log(`ok   ${line}`);
	else console.log(`warn ${line}\n     not declared as dependencies or peerDependencies: ${undeclared.join(", ")}`);
}

/** Installing the tarball builds nothing: the manifest holds no install-time script and npm runs none. */
function checkQuietInstall(tarball: string): void {
	// npm runs these for a package a consumer installs; a build there would need our dev dependencies.
	const INSTALL_LIFECYCLE = ["preinstall", "install", "postinstall", "prepare"] as const;
	const extracted = join(work, "extracted", "package", "package.json");
	const scripts = existsSync(extracted)
		? ((JSON.parse(readFileSync(extracted, "utf8")) as { scripts?: Record<string, string> }).scripts ?? {})
		: {};
	const lifecycle = INSTALL_LIFECYCLE.filter((name) => name in scripts);
	check(
		"the tarball's manifest has no install-time script (it ships dist/)",
		existsSync(extracted) && lifecycle.length === 0,
		`found: ${lifecycle.map((name) => `${name}: ${scripts[name]}`).join(", ")}`,
	);
	const project = join(work, "quiet-install");
	mkdirSync(project);
	writeFileSync(join(project, "package.json"), `${JSON.stringify({ name: "quiet-install", private: true })}\n`);
	// Scripts on and in the foreground, so any script of ours would print its `> pi-repair-layer@` banner.
	const installed = run(
		npm,
		["install", "--offline", "--no-audit", "--no-fund", "--legacy-peer-deps", "--foreground-scripts", tarball],
		{ cwd: project },
	);
	const output = installed.stdout + installed.stderr;
	check(
		"npm install <tarball> with scripts enabled runs no script of ours",
		installed.status === 0 && !output.includes("> pi-repair-layer@"),
		tail(output),
	);
}

/** A fresh project with the tarball and pi's host packages, linked from this checkout (offline). */
function installConsumer(consumer: string, tarball: string): boolean {
	mkdirSync(consumer);
	writeFileSync(
		join(consumer, "package.json"),
		`${JSON.stringify({ name: "pi-repair-layer-consumer", private: true, type: "module" }, null, 2)}\n`,
	);
	// The packages pi supplies to extensions (its docs/packages.md); a normal install of pi brings them along.
	const host = [
		"@earendil-works/pi-coding-agent",
		"@earendil-works/pi-ai",
		"@earendil-works/pi-agent-core",
		"@earendil-works/pi-tui",
		"typebox",
	].map((name) => join(root, "node_modules", name));
	const installed = run(
		npm,
		["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball, ...host],
		{
			cwd: consumer,
		},
	);
	return check(
		"npm install <tarball> next to pi in a fresh project",
		installed.status === 0 && existsSync(join(consumer, "node_modules", "pi-repair-layer", "dist", "index.js")),
		tail(installed.stdout + installed.stderr),
	);
}

function checkImports(consumer: string): void {
	cpSync(join(root, "test", "package", "consumer.mjs"), join(consumer, "consumer.mjs"));
	const esm = run(node, ["consumer.mjs"], { cwd: consumer });
	check("plain Node ESM imports . /core /pi /grammar", esm.status === 0, esm.stdout + esm.stderr);

	cpSync(join(root, "test", "package", "consumer.ts.txt"), join(consumer, "consumer.ts"));
	writeFileSync(
		join(consumer, "tsconfig.json"),
		`${JSON.stringify(
			{
				compilerOptions: {
					target: "ES2023",
					lib: ["ES2023"],
					module: "NodeNext",
					moduleResolution: "NodeNext",
					types: ["node"],
					typeRoots: [join(root, "node_modules", "@types")],
					strict: true,
					noEmit: true,
					skipLibCheck: true,
					verbatimModuleSyntax: true,
					erasableSyntaxOnly: true,
				},
				files: ["consumer.ts"],
			},
			null,
			2,
		)}\n`,
	);
	const tsc = run(node, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], {
		cwd: consumer,
	});
	check("TypeScript consumer type-checks against the shipped .d.ts", tsc.status === 0, tsc.stdout + tsc.stderr);
	const ts = run(node, ["consumer.ts"], { cwd: consumer });
	check("TypeScript consumer runs", ts.status === 0, ts.stdout + ts.stderr);
	// The shipped declarations themselves must compile for a consumer: check them without skipLibCheck.
	const declarations = listFiles(join(consumer, "node_modules", "pi-repair-layer", "dist")).filter((file) =>
		file.endsWith(".d.ts"),
	);
	const dts = run(
		node,
		[
			join(root, "node_modules", "typescript", "bin", "tsc"),
			"--noEmit",
			"--strict",
			"--module",
			"NodeNext",
			"--moduleResolution",
			"NodeNext",
			"--target",
			"ES2023",
			"--types",
			"node",
			"--typeRoots",
			join(root, "node_modules", "@types"),
			...declarations,
		],
		{ cwd: consumer },
	);
	const ownErrors = (dts.stdout + dts.stderr)
		.split("\n")
		.filter((line) => line.includes("node_modules/pi-repair-layer/") && line.includes("error TS"));
	check(`${declarations.length} shipped .d.ts files compile`, ownErrors.length === 0, ownErrors.join("\n"));
}

function listFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true, recursive: true })
		.filter((entry) => entry.isFile())
		.map((entry) => join(entry.parentPath, entry.name));
}

/** Runs pi in print mode with the smoke provider; `extensionArgs` decide how the packed extension is loaded. */
function runPi(consumer: string, label: string, extensionArgs: readonly string[], baseline?: readonly string[]): void {
	const workspace = mkdtempSync(join(work, `${label}-workspace-`));
	const modules = join(work, `${label}-modules.txt`);
	const env = { ...cliEnv(consumer, label), ...probeEnv(modules) };
	const result = run(node, printArgs(consumer, extensionArgs, "write the smoke file"), { cwd: workspace, env });
	const written = join(workspace, "smoke-output.txt");
	const content = existsSync(written) ? readFileSync(written, "utf8") : undefined;
	const output = result.stdout;
	check(
		`${label}: pi exits 0, the aliased write ran and the model saw a <repair_note> naming file_path`,
		result.status === 0 &&
			content === "written by the packed pi-repair-layer\n" &&
			output.includes("isError=false") &&
			output.includes("<repair_note>") &&
			output.includes("file_path"),
		`exit ${result.status}; file ${content === undefined ? "missing" : JSON.stringify(content)}\n${tail(output)}\n${tail(result.stderr)}`,
	);
	if (baseline === undefined) return;
	const extra = secondPiFiles(baseline, loadedModules(modules));
	check(
		`${label}: the layer loads no copy of pi's packages or TypeBox`,
		extra.length === 0,
		extra.slice(0, 10).join("\n"),
	);
}

/** pi in print mode, offline, with the smoke provider and `extensionArgs` before it. */
function printArgs(consumer: string, extensionArgs: readonly string[], prompt: string): string[] {
	const provider = join(consumer, "provider.ts");
	return [
		piBin(consumer),
		"-p",
		"--no-session",
		"--no-mcp",
		...extensionArgs,
		"-e",
		provider,
		"--provider",
		"pkg-smoke",
		"--model",
		"pkg-smoke-1",
		prompt,
	];
}

/** Preloads the module probe (test/package/module-probe.mjs), which lists every module file pi loads. */
function probeEnv(list: string): NodeJS.ProcessEnv {
	return {
		NODE_OPTIONS: `--import=${join(root, "test", "package", "module-probe.mjs")}`,
		PI_REPAIR_MODULE_PROBE: list,
	};
}

function loadedModules(list: string): string[] {
	return existsSync(list) ? readFileSync(list, "utf8").split("\n").filter(Boolean) : [];
}

/** Files of pi's packages or TypeBox a run loaded that the run without the layer did not. */
function secondPiFiles(baseline: readonly string[], loaded: readonly string[]): string[] {
	const known = new Set(baseline);
	return loaded.filter(
		(file) => !known.has(file) && /[\\/]node_modules[\\/](@earendil-works|@mariozechner|typebox)[\\/]/.test(file),
	);
}

/** The module files pi loads with the smoke provider alone, for comparison with each route. */
function baselineModules(consumer: string): string[] {
	const workspace = mkdtempSync(join(work, "baseline-workspace-"));
	const modules = join(work, "baseline-modules.txt");
	const env = { ...cliEnv(consumer, "baseline"), ...probeEnv(modules) };
	run(node, printArgs(consumer, [], "hello"), { cwd: workspace, env });
	const files = loadedModules(modules);
	check("the module probe lists the files pi loads", files.length > 0);
	return files;
}

function cliEnv(consumer: string, label: string): NodeJS.ProcessEnv {
	const agentDir = join(work, `${label}-agent`);
	mkdirSync(agentDir, { recursive: true });
	return {
		...process.env,
		PATH: `${dirname(node)}${process.platform === "win32" ? ";" : ":"}${process.env.PATH ?? ""}`,
		PI_CODING_AGENT_DIR: agentDir,
		PI_OFFLINE: "1",
		PI_TOOL_REPAIR_TELEMETRY: join(work, `${label}-telemetry.jsonl`),
		PI_TOOL_REPAIR_SETTINGS: join(work, `${label}-settings.json`),
		npm_config_cache: process.env.npm_config_cache ?? join(consumer, ".npm-cache"),
	};
}

function piBin(consumer: string): string {
	const pkg = join(consumer, "node_modules", "@earendil-works", "pi-coding-agent");
	const bin = (JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as { bin: Record<string, string> }).bin.pi;
	return join(pkg, bin ?? "dist/bundle/cli.js");
}

function checkCli(consumer: string, tarball: string, baseline: readonly string[]): void {
	// `pi install` of the tarball into an isolated agent folder, then a run that loads it from settings.
	const env = cliEnv(consumer, "installed");
	const install = run(node, [piBin(consumer), "install", `npm:pi-repair-layer@file:${tarball}`], {
		cwd: consumer,
		env,
	});
	if (
		check("pi install npm:pi-repair-layer@file:<tarball>", install.status === 0, tail(install.stdout + install.stderr))
	)
		runPi(consumer, "installed", [], baseline);

	// `pi -e` of the package installed in the consumer project (the pi manifest names extension.ts).
	const installedPackage = join(consumer, "node_modules", "pi-repair-layer");
	runPi(consumer, "extension", ["-e", installedPackage], baseline);

	// The same package with a source entry that throws: only a load of the compiled dist/ can pass.
	const distOnly = join(work, "dist-only", "pi-repair-layer");
	cpSync(installedPackage, distOnly, { recursive: true });
	writeFileSync(
		join(distOnly, "src", "index.ts"),
		'throw new Error("the packed extension loaded its TypeScript source instead of dist/");\n',
	);
	runPi(consumer, "dist-first", ["-e", distOnly], baseline);
}

/** Blocks for `ms` milliseconds (the checks are synchronous; the registry runs in its own process). */
function sleep(ms: number): void {
	Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Packages a `node_modules` folder holds, scoped ones as `@scope/name`. */
function installedPackages(nodeModules: string): string[] {
	if (!existsSync(nodeModules)) return [];
	return readdirSync(nodeModules, { withFileTypes: true })
		.filter((entry) => !entry.name.startsWith("."))
		.flatMap((entry) =>
			entry.name.startsWith("@")
				? readdirSync(join(nodeModules, entry.name)).map((name) => `${entry.name}/${name}`)
				: [entry.name],
		)
		.sort();
}

function checkRegistry(consumer: string, tarball: string, baseline: readonly string[]): void {
	const storage = join(work, "registry");
	mkdirSync(storage);
	const server = spawn(node, [join(root, "scripts", "registry-server.ts"), storage], {
		stdio: ["pipe", "ignore", "inherit"],
	});
	try {
		const urlFile = join(storage, "url");
		for (let waited = 0; waited < 60_000 && !existsSync(urlFile) && server.exitCode === null; waited += 100) sleep(100);
		if (!check("a local registry (verdaccio) starts on 127.0.0.1", existsSync(urlFile))) return;
		const url = readFileSync(urlFile, "utf8");
		// npm needs a token to publish even where the registry lets anyone publish.
		const npmrc = join(storage, "npmrc");
		writeFileSync(npmrc, `registry=${url}\n//${new URL(url).host}/:_authToken=local-test\n`);
		const registryEnv = {
			...process.env,
			npm_config_userconfig: npmrc,
			npm_config_registry: url,
			npm_config_cache: join(storage, "npm-cache"),
		};
		const published = run(npm, ["publish", tarball, "--ignore-scripts"], { cwd: storage, env: registryEnv });
		if (
			!check(
				"npm publish <tarball> to the local registry",
				published.status === 0,
				tail(published.stdout + published.stderr),
			)
		)
			return;

		// The way pi installs a published package: its own npm invocation, peers suppressed.
		const env = { ...cliEnv(consumer, "registry"), ...registryEnv };
		const install = run(node, [piBin(consumer), "install", "npm:pi-repair-layer"], { cwd: consumer, env });
		const agentModules = join(work, "registry-agent", "npm", "node_modules");
		if (
			check(
				"pi install npm:pi-repair-layer from the registry",
				install.status === 0,
				tail(install.stdout + install.stderr),
			)
		) {
			const packages = installedPackages(agentModules);
			check(
				"pi install brought pi-repair-layer alone (no copy of pi's packages)",
				packages.join(",") === "pi-repair-layer",
				`installed: ${packages.join(", ")}`,
			);
			runPi(consumer, "registry", [], baseline);
		}

		// The tool-owner guide's line, in a fresh project: the optional peers are not installed.
		const project = join(work, "tool-owner-project");
		mkdirSync(project);
		writeFileSync(join(project, "package.json"), `${JSON.stringify({ name: "tool-owner", private: true })}\n`);
		const plain = run(npm, ["install", "--no-audit", "--no-fund", "pi-repair-layer"], {
			cwd: project,
			env: registryEnv,
		});
		const packages = installedPackages(join(project, "node_modules"));
		check(
			"npm install pi-repair-layer in a fresh project installs that one package",
			plain.status === 0 && packages.join(",") === "pi-repair-layer",
			`exit ${plain.status}; installed: ${packages.join(", ")}\n${tail(plain.stdout + plain.stderr)}`,
		);
	} finally {
		server.stdin?.end();
		server.kill();
	}
}
