/** `legacyConfig`, the original's name for the engine config, keeps working; `engineConfig` wins when both are set. */
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { runRepairPipeline } from "../../src/core/pipeline.ts";

const schema = Type.Object({ path: Type.String() });
const run = (config: object) =>
	runRepairPipeline({ input: { file_path: "a.md" }, config: { toolName: "read", schema, ...config } });

describe("legacyConfig", () => {
	it("is read as the engine config when engineConfig is absent", () => {
		const result = run({ legacyConfig: { fieldAliases: { path: ["file_path"] } } });
		expect(result.outcome).toBe("repaired");
		expect(result.args).toEqual({ path: "a.md" });
	});

	it("is ignored when engineConfig is set, even to a config without the alias", () => {
		expect(run({ engineConfig: {}, legacyConfig: { fieldAliases: { path: ["file_path"] } } }).outcome).toBe(
			"unrepairable",
		);
		const both = run({
			engineConfig: { fieldAliases: { path: ["file_path"] } },
			legacyConfig: { fieldAliases: { path: ["other"] } },
		});
		expect(both.args).toEqual({ path: "a.md" });
	});

	it("is seen again when the caller changes it on the same config object", () => {
		const config: { toolName: string; schema: typeof schema; legacyConfig?: object } = { toolName: "read", schema };
		expect(runRepairPipeline({ input: { file_path: "a.md" }, config }).outcome).toBe("unrepairable");
		config.legacyConfig = { fieldAliases: { path: ["file_path"] } };
		expect(runRepairPipeline({ input: { file_path: "a.md" }, config }).outcome).toBe("repaired");
	});
});
