/**
 * The pure pipeline without pi: repairing a request body against a schema in
 * any Node program (a JSON API, a queue consumer, another agent framework).
 *
 * `runRepairPipeline` never throws and never mutates its input. It returns
 * `valid` (the caller's own object), `repaired` (a new object that passes the
 * schema, with one note per change) or `unrepairable` (the input untouched and
 * a retry message listing the problems). Its tests live in
 * test/docs/examples.test.ts.
 */
import { type RepairPipelineConfig, runRepairPipeline } from "pi-repair-layer/core";
import { type Static, Type } from "typebox";

export const deploySchema = Type.Object({
	service: Type.String(),
	regions: Type.Array(Type.String()),
	replicas: Type.Optional(Type.Integer({ minimum: 1 })),
});

export type DeployRequest = Static<typeof deploySchema>;

const config: RepairPipelineConfig = {
	toolName: "deploy",
	schema: deploySchema,
	// The conservative profile: no heuristic clean-ups, only repairs the schema proves.
	policy: "conservative",
	engineConfig: { fieldAliases: { service: ["name", "app"] } },
};

export type DeployParse =
	| { ok: true; request: DeployRequest; notes: string[] }
	| { ok: false; message: string; fingerprint: string | undefined };

export function parseDeployRequest(body: unknown): DeployParse {
	const result = runRepairPipeline({ input: body, config });
	if (result.outcome === "unrepairable") {
		return { ok: false, message: result.retryMessage ?? "invalid request", fingerprint: result.fingerprint };
	}
	return { ok: true, request: result.args as DeployRequest, notes: result.changes.map((change) => change.note) };
}
