/**
 * The test harnesses themselves, run against the real host WITHOUT the repair
 * layer: they must reproduce pi's own behaviour faithfully, or every end-to-end
 * test built on them would prove nothing.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type PiCliResult, runPiCli } from "../helpers/pi-cli.ts";
import { type PiSessionHarness, startPiSession } from "../helpers/pi-session.ts";

describe("in-process harness (real agent loop, no repair layer)", () => {
	let run: PiSessionHarness | undefined;
	afterEach(async () => {
		await run?.dispose();
		run = undefined;
	});

	it("executes a valid scripted call and shows its result to the model", async () => {
		run = await startPiSession({ extensions: [] });
		await run.play([
			{ toolCalls: [{ id: "w1", name: "write", arguments: { path: "out.txt", content: "hello\n" } }] },
			{ type: "echo" },
		]);
		expect(run.readFile("out.txt")).toBe("hello\n");
		expect(run.toolResult("w1")?.isError).toBe(false);
		expect(run.lastAssistantText()).toContain("--- tool result w1 (write, ok) ---");
	});

	it("lets pi reject an aliased field with its own validation message", async () => {
		run = await startPiSession({ extensions: [] });
		await run.play([
			{ toolCalls: [{ id: "w1", name: "write", arguments: { file_path: "out.txt", content: "x" } }] },
			{ type: "echo" },
		]);
		expect(run.readFile("out.txt")).toBeUndefined();
		expect(run.toolResult("w1")?.isError).toBe(true);
		expect(run.resultText("w1")).toContain('Validation failed for tool "write"');
	});

	it("delivers raw argument text the way pi-ai does: argumentsError set, arguments empty", async () => {
		run = await startPiSession({ extensions: [] });
		await run.play([
			{ toolCalls: [{ id: "w1", name: "write", rawArguments: '{"path":"a.txt","content":"x"' }] },
			{ type: "echo" },
		]);
		const assistant = run.session.messages.find((m) => m.role === "assistant");
		const call = assistant?.role === "assistant" ? assistant.content.find((b) => b.type === "toolCall") : undefined;
		expect(call).toMatchObject({ id: "w1", name: "write", arguments: {} });
		expect(call && "argumentsError" in call ? call.argumentsError : undefined).toContain(
			'Received arguments:\n{"path":"a.txt","content":"x"',
		);
		expect(run.resultText("w1")).toContain('Invalid arguments for tool "write"');
		expect(run.readFile("a.txt")).toBeUndefined();
	});
});

describe("CLI harness (real pi bin in print mode, no repair layer)", () => {
	let run: PiCliResult | undefined;
	afterEach(() => {
		run?.cleanup();
		run = undefined;
	});

	it("runs offline with the scripted provider and prints the echoed tool results", async () => {
		run = await runPiCli({
			extension: false,
			script: [
				{ toolCalls: [{ id: "w1", name: "write", arguments: { path: "out.txt", content: "cli\n" } }] },
				{ type: "echo", prefix: "ECHO" },
			],
		});
		expect(run.stderr).not.toContain("Error");
		expect(run.exitCode).toBe(0);
		expect(run.readFile("out.txt")).toBe("cli\n");
		expect(run.stdout).toContain("ECHO");
		expect(run.stdout).toContain("--- tool result w1 (write, ok) ---");
	});

	it("offers the model id chosen by PI_SCRIPTED_MODEL", async () => {
		run = await runPiCli({ extension: false, model: "glm-4.6", script: [{ text: "plain answer" }] });
		expect(run.exitCode).toBe(0);
		expect(run.stdout.trim()).toBe("plain answer");
	});
});
