/**
 * `adaptToolDefinition`: a tool owner's own pi
 * definition with repairing argument preparation. Uses pi's real `write`
 * definition where a host definition is needed, and a minimal hand-made
 * definition where the test needs a shim of its own.
 */
import { validateToolArguments } from "@earendil-works/pi-ai";
import {
	createEditToolDefinition,
	createWriteToolDefinition,
	type ToolDefinition,
} from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import type { RepairPipelineResult } from "../../src/core/types.ts";
import { adaptToolDefinition, markArgumentsRefused, UnrepairableToolInputError } from "../../src/pi/index.ts";

const pathSchema = Type.Object({ path: Type.String() });

function pathTool(prepareArguments?: (args: unknown) => { path: string }): ToolDefinition<typeof pathSchema> {
	return {
		name: "open_path",
		label: "Open path",
		description: "Opens a path",
		parameters: pathSchema,
		...(prepareArguments ? { prepareArguments } : {}),
		execute() {
			return Promise.resolve({ content: [{ type: "text", text: "ok" }], details: undefined });
		},
	};
}

const stringToPath = (args: unknown) => (typeof args === "string" ? { path: args } : (args as { path: string }));

describe("adaptToolDefinition", () => {
	it("returns a new definition and leaves the original untouched, reusing execute and schema by reference", () => {
		const original = createWriteToolDefinition("/tmp");
		const snapshot = { ...original };
		const adapted = adaptToolDefinition(original);
		expect(adapted).not.toBe(original);
		expect(adapted.execute).toBe(original.execute);
		expect(adapted.parameters).toBe(original.parameters);
		expect(adapted.renderResult).toBe(original.renderResult);
		expect(adapted.constrainedSampling).toBe(original.constrainedSampling);
		expect({ ...original }).toEqual(snapshot);
		expect(original.prepareArguments).toBeUndefined();
	});

	it("returns valid input as the same object", () => {
		const adapted = adaptToolDefinition(createWriteToolDefinition("/tmp"));
		const input = { path: "a.txt", content: "x" };
		expect(adapted.prepareArguments?.(input)).toBe(input);
	});

	it("repairs with the given options, and the result passes pi's own validation", () => {
		const adapted = adaptToolDefinition(createWriteToolDefinition("/tmp"), {
			preprocessors: [{ kind: "alias", selector: "/path", aliases: ["file_path"], accepts: "string" }],
		});
		const repaired = adapted.prepareArguments?.({ file_path: "a.txt", content: "x" });
		expect(repaired).toEqual({ path: "a.txt", content: "x" });
		const call = { type: "toolCall" as const, id: "1", name: "write", arguments: repaired as never };
		expect(validateToolArguments(adapted, call)).toEqual(repaired);
	});

	it("chains the owner's own prepareArguments, so a shim that maps strings to objects still runs", () => {
		const outcomes: RepairPipelineResult[] = [];
		const adapted = adaptToolDefinition(pathTool(stringToPath), { onOutcome: (result) => outcomes.push(result) });
		expect(adapted.prepareArguments?.("/x")).toEqual({ path: "/x" });
		expect(outcomes).toHaveLength(1);
	});

	it("keeps pi's own edit shim working: flat oldText/newText still become edits", () => {
		const adapted = adaptToolDefinition(createEditToolDefinition("/tmp"));
		expect(adapted.prepareArguments?.({ path: "a.txt", oldText: "one", newText: "1" })).toEqual({
			path: "a.txt",
			edits: [{ oldText: "one", newText: "1" }],
		});
	});

	it("throws UnrepairableToolInputError carrying the result and the retry message", () => {
		const adapted = adaptToolDefinition(pathTool(stringToPath));
		let thrown: unknown;
		try {
			adapted.prepareArguments?.(42);
		} catch (error) {
			thrown = error;
		}
		expect(thrown).toBeInstanceOf(UnrepairableToolInputError);
		const error = thrown as UnrepairableToolInputError;
		expect(error.name).toBe("UnrepairableToolInputError");
		expect(error.result.outcome).toBe("unrepairable");
		expect(error.message).toBe(error.result.retryMessage);
		expect(error.message).toContain("open_path");
		expect(error.message).toContain("Received: 42");
	});

	it("hands the raw input back unchanged with unrepairable: passthrough", () => {
		const adapted = adaptToolDefinition(pathTool(), { unrepairable: "passthrough" });
		const input = { nothing: "useful" };
		expect(adapted.prepareArguments?.(input)).toBe(input);
		expect(adapted.prepareArguments?.(42)).toBe(42);
	});

	it("uses one fixed, non-empty fallback message when a result has no retry message", () => {
		const result: RepairPipelineResult = {
			outcome: "unrepairable",
			args: 1,
			policy: "adaptive",
			changes: [],
			observations: [],
		};
		const first = new UnrepairableToolInputError(result);
		const second = new UnrepairableToolInputError({ ...result });
		expect(first.message.length).toBeGreaterThan(0);
		expect(first.message).toBe(second.message);
	});
});

describe("calls pi refuses with its own argumentsError", () => {
	it("hands the marked empty stand-in over unchanged, so pi's message with the model's text stands", () => {
		const adapted = adaptToolDefinition(pathTool());
		// Unmarked too: alone, the adapter cannot tell a real `{}` from a stand-in, and pi's validation names the field.
		const bare = {};
		expect(adapted.prepareArguments?.(bare)).toBe(bare);
		expect(() =>
			validateToolArguments(adapted, { type: "toolCall", id: "c", name: "open_path", arguments: bare }),
		).toThrow(/path/);
		const args = {};
		markArgumentsRefused(args);
		expect(adapted.prepareArguments?.(args)).toBe(args);
		const argumentsError = "Expected ',' or '}'\n\nReceived arguments:\n{\"path\": \"a";
		expect(() =>
			validateToolArguments(adapted, { type: "toolCall", id: "c", name: "open_path", arguments: args, argumentsError }),
		).toThrow(argumentsError);
	});
});
