/**
 * Version matrix: `npm run test:pi-versions [-- 1.3.0 1.5.2 ...]`.
 *
 * Runs the extension tests (pi's agent loop in-process) and the real-CLI
 * end-to-end tests against each listed pi release (default: the oldest
 * supported, 1.3.0, a middle one, 1.5.2, and the verified 1.6.0):
 *   1. installs `@earendil-works/pi-coding-agent` and its siblings pi-ai,
 *      pi-agent-core and pi-tui at that version into a temporary folder, from
 *      the npm registry (the one network step);
 *   2. links every other package this checkout has installed (vitest,
 *      typescript, fast-check, node, ...) into that folder's node_modules, so
 *      only pi differs;
 *   3. copies the files the tests need (sources, tests, configs) beside it
 *      and runs `vitest run` on MATRIX_TESTS there, with this checkout's Node 22.
 *
 * Prints one line per version with its test counts and time, and exits
 * non-zero when any version fails. `--keep` leaves the folders in place.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** pi 1.3.0 introduced `argumentsError`, which the rescue relies on; 1.6.0 is the verified host. */
export const DEFAULT_PI_VERSIONS = ["1.3.0", "1.5.2", "1.6.0"] as const;

/** The packages pi supplies to extensions; they move together, at pi's own version. */
const PI_PACKAGES = [
	"@earendil-works/pi-coding-agent",
	"@earendil-works/pi-ai",
	"@earendil-works/pi-agent-core",
	"@earendil-works/pi-tui",
] as const;

/**
 * The tests that exercise the layer inside pi: the extension's hooks in pi's
 * agent loop, composition with other extensions, continuations (silent
 * stops), the grammar dialects, who said a leaked call (echoes of what the
 * session saved included), one pi per route, and the real CLI end to end
 * (tmux screens and the package smoke test stay with the main run, which
 * keeps the matrix inside CI's time).
 */
export const MATRIX_TESTS = [
	"test/extension",
	"test/e2e/cli.test.ts",
	"test/e2e/commands-print.test.ts",
	"test/e2e/composition.test.ts",
	"test/e2e/composition-cli.test.ts",
	"test/e2e/edits-stops-names.cli.test.ts",
	"test/e2e/edits-stops-names.real-loop.test.ts",
	"test/e2e/grammar-dialects.e2e.test.ts",
	"test/e2e/grammar-leak.e2e.test.ts",
	"test/e2e/lifecycle.test.ts",
	"test/e2e/one-pi.test.ts",
	"test/e2e/provenance.e2e.test.ts",
	"test/e2e/quoted-leak.e2e.test.ts",
	"test/e2e/real-loop.test.ts",
	"test/drift/arguments-error.test.ts",
	"test/drift/builtin-schemas.test.ts",
	"test/drift/host-contract.test.ts",
	"test/drift/pi-version.test.ts",
] as const;

/**
 * What the copied tests read: sources, tests, fixtures, the docs some tests check against, the manifest, the
 * configs, and the build when there is one (the one-pi test loads the bundle against each release).
 */
const COPIED = [
	"dist",
	"src",
	"test",
	"docs",
	"index.ts",
	"extension.ts",
	"package.json",
	"tsconfig.json",
	"tsconfig.build.json",
	"vitest.config.ts",
];

const npm = process.platform === "win32" ? "npm.cmd" : "npm";

interface Outcome {
	version: string;
	ok: boolean;
	summary: string;
	seconds: number;
}

function run(command: string, args: readonly string[], cwd: string, timeout: number, env?: NodeJS.ProcessEnv) {
	return spawnSync(command, args, { cwd, encoding: "utf8", timeout, maxBuffer: 64 * 1024 * 1024, env });
}

/** Links every package of this checkout that the pi install did not bring, scope by scope. */
function linkMissing(from: string, to: string): void {
	for (const entry of readdirSync(from, { withFileTypes: true })) {
		if (entry.name === ".bin" || entry.name.startsWith(".")) continue;
		const source = join(from, entry.name);
		const target = join(to, entry.name);
		if (entry.name.startsWith("@") && entry.isDirectory()) {
			mkdirSync(target, { recursive: true });
			linkMissing(source, target);
		} else if (!existsSync(target)) symlinkSync(source, target, "junction");
	}
}

function testVersion(version: string, parent: string): Outcome {
	const started = performance.now();
	const folder = join(parent, `pi-${version}`);
	mkdirSync(folder, { recursive: true });
	writeFileSync(join(folder, "package.json"), `${JSON.stringify({ name: "pi-matrix", private: true })}\n`);
	const specs = PI_PACKAGES.map((name) => `${name}@${version}`);
	const installed = run(npm, ["install", "--no-audit", "--no-fund", "--ignore-scripts", ...specs], folder, 600_000);
	const seconds = () => Math.round((performance.now() - started) / 1000);
	if (installed.status !== 0) {
		return { version, ok: false, summary: `npm install failed:\n${installed.stderr.trim()}`, seconds: seconds() };
	}
	linkMissing(join(root, "node_modules"), join(folder, "node_modules"));
	for (const entry of COPIED)
		if (existsSync(join(root, entry))) cpSync(join(root, entry), join(folder, entry), { recursive: true });
	const vitest = join(root, "node_modules", "vitest", "vitest.mjs");
	const tests = MATRIX_TESTS.filter((path) => existsSync(join(folder, path)));
	// pi keeps Node's compile cache in the temporary folder: one of its own, removed with the copy, or every
	// run would leave an entry for each module of this copy of pi (over a thousand files) in the machine's.
	const temp = join(folder, "tmp");
	mkdirSync(temp);
	const ran = run(process.execPath, [vitest, "run", ...tests], folder, 1_500_000, {
		...process.env,
		TMPDIR: temp,
		TMP: temp,
		TEMP: temp,
	});
	const output = `${ran.stdout}${ran.stderr}`;
	const plain = output.replace(/\x1b\[[0-9;]*m/g, "");
	const counts = /^\s*Tests\s+(.+)$/m.exec(plain)?.[1]?.trim() ?? "no test summary";
	const ok = ran.status === 0;
	return {
		version,
		ok,
		summary: ok ? counts : `${counts}\n${plain.trim().split("\n").slice(-60).join("\n")}`,
		seconds: seconds(),
	};
}

function main(): number {
	const keep = process.argv.includes("--keep");
	const listed = process.argv.slice(2).filter((arg) => /^\d+\.\d+\.\d+/.test(arg));
	const versions = listed.length > 0 ? listed : [...DEFAULT_PI_VERSIONS];
	const parent = mkdtempSync(join(tmpdir(), "pi-repair-versions-"));
	const outcomes: Outcome[] = [];
	try {
		for (const version of versions) {
			const outcome = testVersion(version, parent);
			outcomes.push(outcome);
			console.log(`${outcome.ok ? "ok  " : "FAIL"} pi ${version}: ${outcome.summary} (${outcome.seconds} s)`);
		}
	} finally {
		if (keep) console.log(`kept ${parent}`);
		else rmSync(parent, { recursive: true, force: true });
	}
	const failed = outcomes.filter((outcome) => !outcome.ok).length;
	console.log(
		failed === 0
			? `\npi versions ${versions.join(", ")}: all passed`
			: `\npi versions: ${failed} of ${versions.length} failed`,
	);
	return failed === 0 ? 0 : 1;
}

process.exitCode = main();
