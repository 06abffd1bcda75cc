/**
 * One settings table: README.md and docs/operations.md hold the same table,
 * with a row for every setting the settings menu and the settings file know
 * and every environment variable the layer reads.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SETTINGS_KEYS } from "../../src/extension/files/settings.ts";
import { REPO_ROOT } from "../helpers/pi-cli.ts";

const MARKER = "<!-- settings-table:";

/** The table block: from the marker comment to the end of the table. */
function tableOf(path: string): string {
	const text = readFileSync(join(REPO_ROOT, path), "utf8");
	const start = text.indexOf(MARKER);
	expect(start, `${path} has no settings table marker`).toBeGreaterThanOrEqual(0);
	const lines = text.slice(start).split("\n");
	const end = lines.findIndex((line, index) => index > 2 && !line.startsWith("|"));
	return lines.slice(0, end).join("\n");
}

function rowNames(table: string): string[] {
	return [...table.matchAll(/^\| `([^`]+)`/gm)].map((match) => match[1] ?? "");
}

describe("the settings table", () => {
	const readme = tableOf("README.md");

	it("is the same in the README and docs/operations.md", () => {
		expect(tableOf("docs/operations.md")).toBe(readme);
	});

	it("has a row for every menu setting and every file-only setting", () => {
		const names = rowNames(readme);
		for (const key of [...SETTINGS_KEYS, "toolAliases", "codemodeRepair"]) expect(names, key).toContain(key);
	});

	it("has a row for every environment variable the layer reads", () => {
		const names = rowNames(readme);
		const sources = readdirSync(join(REPO_ROOT, "src"), { recursive: true, encoding: "utf8" })
			.filter((file) => file.endsWith(".ts"))
			.map((file) => readFileSync(join(REPO_ROOT, "src", file), "utf8"))
			.join("\n");
		const variables = new Set(
			[...sources.matchAll(/\b(PI_TOOL_REPAIR_[A-Z_]+|PI_REPAIR_[A-Z_]+|NO_COLOR)\b/g)].map((match) => match[1]),
		);
		expect(variables.size).toBeGreaterThan(3);
		for (const variable of variables) expect(names, variable).toContain(variable);
	});
});
