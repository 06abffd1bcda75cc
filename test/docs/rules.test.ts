/**
 * Keeps docs/rules.md and the code in step: every rule ID the code can emit
 * is catalogued under its stage with a source and a test file that exist,
 * the catalogue lists nothing the code cannot emit, and no module spells a
 * rule ID itself instead of importing it from src/core/rule-ids.ts.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { PIPELINE_PREPROCESSORS, REPAIR_CONFIGS } from "../../src/core/builtin-tables.ts";
import { GRAMMAR_RECOVERY_RULE_PREFIX, RULE, RULE_STAGE } from "../../src/core/rule-ids.ts";
import { ISSUE_RULES } from "../../src/core/schema-repair/rules.ts";
import { GRAMMAR_NAMES } from "../../src/grammar/types.ts";
import { REPO_ROOT } from "../helpers/pi-cli.ts";

interface Row {
	id: string;
	stage: string;
	sources: string[];
	tests: string[];
}

const text = readFileSync(join(REPO_ROOT, "docs", "rules.md"), "utf8");

/** The catalogue's table rows: ID, stage, repairs, refuses, source files, test files. */
function catalogue(): Row[] {
	const rows: Row[] = [];
	for (const line of text.split("\n")) {
		if (!line.startsWith("| `")) continue;
		const cells = line
			.split("|")
			.slice(1, -1)
			.map((cell) => cell.trim());
		const files = (cell: string | undefined) =>
			[...(cell ?? "").matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
		rows.push({
			id: (cells[0] ?? "").replaceAll("`", ""),
			stage: cells[1] ?? "",
			sources: files(cells[4]),
			tests: files(cells[5]),
		});
	}
	return rows;
}

const rows = catalogue();
const byId = new Map(rows.map((row) => [row.id, row]));

function sourceFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith(".ts") ? [path] : [];
	});
}

describe("docs/rules.md", () => {
	it("catalogues every rule ID of the rule-ID module under its stage", () => {
		for (const id of Object.values(RULE)) {
			expect(byId.get(id)?.stage, id).toBe(RULE_STAGE[id]);
		}
	});

	it("lists only rule IDs the code can emit", () => {
		const known = new Set<string>([...Object.values(RULE), `${GRAMMAR_RECOVERY_RULE_PREFIX}<family>`]);
		for (const row of rows) expect(known.has(row.id), row.id).toBe(true);
	});

	it("names every grammar family of the recovery rule", () => {
		const listed = text.slice(text.indexOf("The grammar families of"));
		for (const grammar of GRAMMAR_NAMES) expect(listed).toContain(`\`${grammar}\``);
	});

	it("points at source and test files that exist", () => {
		for (const row of rows) {
			expect(row.sources.length, row.id).toBeGreaterThan(0);
			expect(row.tests.length, row.id).toBeGreaterThan(0);
			for (const file of [...row.sources, ...row.tests]) expect(existsSync(join(REPO_ROOT, file)), file).toBe(true);
		}
	});

	it("covers the rule IDs the built-in tables and the engine's rule table emit", () => {
		const emitted = [
			...ISSUE_RULES.map((rule) => rule.id),
			...Object.values(PIPELINE_PREPROCESSORS).flatMap((list) =>
				list.flatMap((preprocessor) => (preprocessor.kind === "structural" ? [preprocessor.ruleId] : [])),
			),
			...Object.values(REPAIR_CONFIGS).flatMap((config) => (config.structural ?? []).map((repair) => repair.name)),
		];
		for (const id of emitted) expect(byId.has(id), id).toBe(true);
	});

	it("has every other module import rule IDs instead of spelling them", () => {
		const ruleModule = join(REPO_ROOT, "src", "core", "rule-ids.ts");
		const offenders: string[] = [];
		for (const file of sourceFiles(join(REPO_ROOT, "src"))) {
			if (file === ruleModule) continue;
			const source = readFileSync(file, "utf8");
			for (const id of [...Object.values(RULE), GRAMMAR_RECOVERY_RULE_PREFIX]) {
				if (source.includes(`"${id}`)) offenders.push(`${relative(REPO_ROOT, file)}: ${id}`);
			}
		}
		expect(offenders).toEqual([]);
	});
});
