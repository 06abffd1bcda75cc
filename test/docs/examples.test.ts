/**
 * Keeps the documentation honest: the examples in docs/examples/ compile as a
 * consumer would write them and behave as the docs say, every code excerpt in
 * docs/tool-owner-integration.md is a verbatim piece of one of those files,
 * and the README's settings block, environment variables and npm commands
 * match the code.
 *
 * The examples import `pi-repair-layer/*` by package name, which inside this
 * checkout resolves only after a build. So the test type-checks them with a
 * tsconfig that maps those names to `src/`, and imports copies (under the
 * git-ignored `.tmp/`) whose package imports point at `src/`. The tool examples
 * then run in pi's real agent loop (test/helpers/pi-session.ts); the
 * optional-integration example also runs through the real pi CLI from a
 * folder where pi-repair-layer cannot be found, to prove its fallback.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_DISPLAY_SETTINGS } from "../../src/extension/files/settings.ts";
import { REPO_ROOT, runPiCli } from "../helpers/pi-cli.ts";
import { startPiSession } from "../helpers/pi-session.ts";

const examplesDir = join(REPO_ROOT, "docs", "examples");
const scratch = join(REPO_ROOT, ".tmp", "docs-examples");
const exampleFiles = readdirSync(examplesDir).filter((file) => file.endsWith(".ts"));

const SUBPATHS: Record<string, string> = {
	"pi-repair-layer/core": "src/core/index.ts",
	"pi-repair-layer/pi": "src/pi/index.ts",
	"pi-repair-layer/grammar": "src/grammar/index.ts",
	"pi-repair-layer": "src/index.ts",
};

/** The shape of docs/examples/core-only.ts (typed here: the root tsconfig cannot resolve the example's imports). */
interface CoreOnlyExample {
	parseDeployRequest(
		body: unknown,
	):
		| { ok: true; request: Record<string, unknown>; notes: string[] }
		| { ok: false; message: string; fingerprint: string | undefined };
}

function readDoc(path: string): string {
	return readFileSync(join(REPO_ROOT, path), "utf8");
}

/** A copy of an example whose package imports point at this checkout's sources. */
function localCopy(file: string): string {
	let text = readFileSync(join(examplesDir, file), "utf8");
	for (const [specifier, source] of Object.entries(SUBPATHS)) {
		const local = JSON.stringify(join(REPO_ROOT, source));
		text = text
			.replaceAll(`from "${specifier}"`, `from ${local}`)
			.replaceAll(`import("${specifier}")`, `import(${local})`);
	}
	const target = join(scratch, file);
	writeFileSync(target, text);
	return target;
}

function fencedBlocks(markdown: string, language: string): string[] {
	const blocks: string[] = [];
	const fence = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, "g");
	for (const match of markdown.matchAll(fence)) blocks.push(match[1] ?? "");
	return blocks;
}

beforeAll(() => {
	mkdirSync(scratch, { recursive: true });
});

afterAll(() => {
	rmSync(scratch, { recursive: true, force: true });
});

describe("docs/examples", () => {
	it("type-check under strict settings with the package names mapped to the sources", () => {
		const tsconfig = {
			compilerOptions: {
				target: "ES2023",
				lib: ["ES2023"],
				module: "NodeNext",
				moduleResolution: "NodeNext",
				types: ["node"],
				typeRoots: [join(REPO_ROOT, "node_modules", "@types")],
				strict: true,
				noEmit: true,
				skipLibCheck: true,
				allowImportingTsExtensions: true,
				verbatimModuleSyntax: true,
				erasableSyntaxOnly: true,
				paths: Object.fromEntries(Object.entries(SUBPATHS).map(([name, source]) => [name, [join(REPO_ROOT, source)]])),
			},
			files: exampleFiles.map((file) => join(examplesDir, file)),
		};
		const configPath = join(scratch, "tsconfig.json");
		writeFileSync(configPath, JSON.stringify(tsconfig, null, 2));
		const tsc = spawnSync(process.execPath, [join(REPO_ROOT, "node_modules/typescript/bin/tsc"), "-p", configPath], {
			cwd: REPO_ROOT,
			encoding: "utf8",
		});
		expect(`${tsc.stdout}${tsc.stderr}`).toBe("");
		expect(tsc.status).toBe(0);
	}, 240_000);

	describe("append-note-tool.ts in pi's real agent loop", () => {
		it("repairs aliases and a stringified array, writes the note and tells the model", async () => {
			const example = (await import(localCopy("append-note-tool.ts"))) as { default: ExtensionFactory };
			const run = await startPiSession({ extensions: [example.default], tools: ["append_note"] });
			try {
				await run.play([
					{
						toolCalls: [
							{
								id: "note-1",
								name: "append_note",
								arguments: { file: "log.md", note: "ship it", tags: '["release"]' },
							},
						],
					},
					{ toolCalls: [{ id: "note-2", name: "append_note", arguments: { path: "log.md", text: "second" } }] },
					{ toolCalls: [{ id: "note-3", name: "append_note", arguments: { nothing: "useful" } }] },
					{ text: "done" },
				]);
				expect(run.readFile("log.md")).toBe("[release] ship it\nsecond\n");
				const repaired = run.resultText("note-1");
				expect(repaired).toContain("<repair_note>");
				expect(repaired).toContain("file");
				expect(repaired).toContain("tags");
				expect(run.resultText("note-2")).not.toContain("<repair_note>");
				expect(run.toolResult("note-3")?.isError).toBe(true);
				expect(run.resultText("note-3")).toContain("append_note");
			} finally {
				await run.dispose();
			}
		});
	});

	describe("core-only.ts", () => {
		it("repairs a JSON-string body with an alias and a stringified array", async () => {
			const { parseDeployRequest } = (await import(localCopy("core-only.ts"))) as CoreOnlyExample;
			const parsed = parseDeployRequest('{"app":"api","regions":"[\\"eu-west\\",\\"us-east\\"]"}');
			expect(parsed).toMatchObject({ ok: true, request: { service: "api", regions: ["eu-west", "us-east"] } });
			expect(parsed.ok && parsed.notes.length).toBe(3);
		});

		it("returns a valid body as it is, with no notes", async () => {
			const { parseDeployRequest } = (await import(localCopy("core-only.ts"))) as CoreOnlyExample;
			const body = { service: "api", regions: ["eu-west"], replicas: 2 };
			const parsed = parseDeployRequest(body);
			expect(parsed).toEqual({ ok: true, request: body, notes: [] });
			expect(parsed.ok && parsed.request).toBe(body);
		});

		it("refuses what it cannot repair without guessing, naming the tool", async () => {
			const { parseDeployRequest } = (await import(localCopy("core-only.ts"))) as CoreOnlyExample;
			const parsed = parseDeployRequest({ service: "api", regions: ["eu"], replicas: null });
			expect(parsed).toMatchObject({ ok: true });
			const refused = parseDeployRequest({ service: null, regions: ["eu"] });
			expect(refused.ok).toBe(false);
			expect(!refused.ok && refused.message).toContain("deploy");
			expect(!refused.ok && refused.fingerprint).toMatch(/^[0-9a-f]{8}$/);
		});
	});
});

describe("optional-integration.ts", () => {
	interface OptionalExample {
		default: ExtensionFactory;
		shoutTool: unknown;
		withOptionalRepair(tool: unknown, load?: () => Promise<unknown>): Promise<{ tool: unknown; repaired: boolean }>;
	}
	const load = async () => (await import(localCopy("optional-integration.ts"))) as OptionalExample;
	const script = [
		{
			toolCalls: [
				{ id: "s1", name: "shout", arguments: { text: "hi" } },
				{ id: "s2", name: "shout", arguments: { message: "hey" } },
			],
		},
		{ type: "echo" as const },
	];

	it("repairs the tool's calls in pi's real agent loop when pi-repair-layer is installed", async () => {
		const example = await load();
		expect((await example.withOptionalRepair(example.shoutTool)).repaired).toBe(true);
		const run = await startPiSession({ extensions: [example.default], tools: ["shout"] });
		try {
			await run.play(script);
			expect(run.resultText("s1")).toBe("HI");
			expect(run.toolResult("s2")?.isError).toBe(false);
			expect(run.resultText("s2")).toBe("HEY");
		} finally {
			await run.dispose();
		}
	});

	it("registers the tool unchanged through the real pi CLI where pi-repair-layer is not installed", async () => {
		// Outside this checkout no package.json names pi-repair-layer, so its import fails as for a real user.
		const folder = mkdtempSync(join(tmpdir(), "pi-repair-optional-"));
		const extension = join(folder, "shout.ts");
		cpSync(join(examplesDir, "optional-integration.ts"), extension);
		const run = await runPiCli({ extension, script });
		try {
			expect(run.stderr).not.toContain("Failed to load extension");
			expect(run.exitCode, run.stderr).toBe(0);
			expect(run.stdout).toContain("--- tool result s1 (shout, ok) ---\nHI");
			expect(run.stdout).toContain("--- tool result s2 (shout, error) ---");
			expect(run.stdout).toContain("text: missing");
		} finally {
			run.cleanup();
			rmSync(folder, { recursive: true, force: true });
		}
	}, 120_000);

	it("does not hide a broken install: any other load failure is the extension's error", async () => {
		const example = await load();
		const broken = () => Promise.reject(new Error("pi-repair-layer/pi: SyntaxError in dist/pi/index.js"));
		await expect(example.withOptionalRepair(example.shoutTool, broken)).rejects.toThrow("SyntaxError");
	});
});

describe("docs/tool-owner-integration.md", () => {
	// Indentation is ignored: the markdown formatter re-indents code blocks.
	const lines = (text: string): string =>
		text
			.split("\n")
			.map((line) => line.trim())
			.filter((line) => line !== "")
			.join("\n");

	it("quotes only code that exists verbatim (up to indentation) in docs/examples", () => {
		const sources = exampleFiles.map((file) => lines(readFileSync(join(examplesDir, file), "utf8")));
		const blocks = fencedBlocks(readDoc("docs/tool-owner-integration.md"), "ts");
		expect(blocks.length).toBeGreaterThan(0);
		for (const block of blocks) {
			expect(
				sources.some((source) => source.includes(lines(block))),
				block,
			).toBe(true);
		}
	});
});

describe("README.md", () => {
	const readme = readDoc("README.md");

	it("shows the default settings file exactly", () => {
		const [settings] = fencedBlocks(readme, "json");
		expect(JSON.parse(settings ?? "null")).toEqual(DEFAULT_DISPLAY_SETTINGS);
	});

	it("documents only environment variables the extension reads", () => {
		const sources = readdirSync(join(REPO_ROOT, "src"), { recursive: true, encoding: "utf8" })
			.filter((file) => file.endsWith(".ts"))
			.map((file) => readFileSync(join(REPO_ROOT, "src", file), "utf8"))
			.join("\n");
		const documented = new Set([...readme.matchAll(/`(PI_TOOL_REPAIR_[A-Z_]+)/g)].map((match) => match[1]));
		expect(documented.size).toBeGreaterThanOrEqual(4);
		for (const name of documented) expect(sources, `${name}`).toContain(name);
	});

	it("keeps the two set-up commands and names only npm scripts that exist", () => {
		expect(readme).toContain("npm ci && npm run demo");
		expect(readme).toContain("npm ci && npm run ci");
		const scripts = (JSON.parse(readDoc("package.json")) as { scripts: Record<string, string> }).scripts;
		const docs = ["README.md", ...readdirSync(join(REPO_ROOT, "docs")).filter((file) => file.endsWith(".md"))];
		for (const doc of docs) {
			const text = readDoc(doc === "README.md" ? doc : relative(REPO_ROOT, join(REPO_ROOT, "docs", doc)));
			for (const match of text.matchAll(/npm run ([a-z:-]+)/g)) {
				expect(Object.keys(scripts), `${doc}: npm run ${match[1]}`).toContain(match[1]);
			}
		}
	});
});
