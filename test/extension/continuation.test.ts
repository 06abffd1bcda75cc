/**
 * The no-silent-stops guard on its own: which messages it continues, the
 * note it writes, at most once in a row and the per-session cap.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultRepairSettings } from "../../src/extension/files/settings.ts";
import type { RepairSettings } from "../../src/extension/host/types.ts";
import {
	CONTINUATION_MESSAGE_TYPE,
	MAX_CONTINUATIONS_PER_SESSION,
	SilentStopGuard,
	type TurnEndView,
} from "../../src/extension/leaks/continuation.ts";

const glmRead = "<tool_call>read\n<arg_key>path</arg_key>\n<arg_value>secret-notes.md</arg_value>\n</tool_call>";

function guard(overrides: Partial<RepairSettings> = {}, model = "glm-4.6", echoSources: string[] = []) {
	const settings = { ...defaultRepairSettings(), ...overrides };
	return new SilentStopGuard({
		settings: () => settings,
		modelId: () => model,
		activeTools: () => ["read", "bash"],
		echoSources: () => echoSources,
	});
}

const assistant = (stopReason: string, content: unknown[]) => ({ role: "assistant", stopReason, content });
const text = (value: string) => ({ type: "text", text: value });
const ended = (toolResults: unknown[] = []): TurnEndView =>
	({ outcome: "completed", toolResults, entries: [] }) as never;

/** One turn as pi runs it with the layer: turn_start, the reply's message_end, and turn_end only when the guard asked for it. */
function playTurn(g: SilentStopGuard, message: unknown): ReturnType<SilentStopGuard["onTurnEnd"]> {
	g.onTurnStart();
	g.noteAssistantMessage(message, message);
	return g.wantsTurnEnd() ? g.onTurnEnd(ended()) : undefined;
}

function noteOf(result: ReturnType<SilentStopGuard["onTurnEnd"]>): string {
	const draft = result?.entries?.[0] as { customType?: string; content?: string; display?: boolean } | undefined;
	expect(draft?.customType).toBe(CONTINUATION_MESSAGE_TYPE);
	// Visible in the transcript and kept in the session file: a question, never a hidden instruction.
	expect(draft?.display).toBe(true);
	return draft?.content ?? "";
}

describe("SilentStopGuard", () => {
	it("continues a phantom toolUse stop once", () => {
		const g = guard({}, "claude-fable-5-1");
		const phantom = assistant("toolUse", []);
		g.noteAssistantMessage(phantom, phantom);
		const result = g.onTurnEnd(ended());
		expect(result?.continue).toBe(true);
		expect(noteOf(result)).toContain("stop reason toolUse");
		expect(noteOf(result)).toContain("call it as a tool; otherwise go on.");
	});

	it("asks about the active tool the reply ended with, quoting nothing else", () => {
		const g = guard({ grammarRecovery: "strip" });
		g.noteAssistantMessage(assistant("stop", [text(`Let me look.\n${glmRead}\n`)]), assistant("stop", [text("")]));
		expect(noteOf(g.onTurnEnd(ended()))).toBe(
			"Your reply ended with text that looks like a call to `read`, which was not run. If you meant to call it, call it as a tool; otherwise go on.",
		);
	});

	it("asks about a sentinel-framed leak from any model id, and about an ambiguous one only for leakModels", () => {
		const dsml =
			'<｜DSML｜tool_calls>\n<｜DSML｜invoke name="read">\n<｜DSML｜parameter name="path" string="true">a.md</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>';
		const unknownModel = guard({ grammarRecovery: "strip" }, "local-model");
		unknownModel.noteAssistantMessage(assistant("stop", [text(`Reading.\n${dsml}\n`)]), assistant("stop", [text("")]));
		expect(noteOf(unknownModel.onTurnEnd(ended()))).toContain("a call to `read`");

		const ambiguous = guard({ grammarRecovery: "strip" }, "local-model");
		ambiguous.noteAssistantMessage(assistant("stop", [text(`Reading.\n${glmRead}\n`)]), assistant("stop", [text("")]));
		expect(ambiguous.onTurnEnd(ended())).toBeUndefined();

		const settings = { ...defaultRepairSettings(), grammarRecovery: "strip" as const };
		const named = new SilentStopGuard({
			settings: () => settings,
			modelId: () => "local-model",
			activeTools: () => ["read", "bash"],
			leakModels: () => ["local-model"],
		});
		named.noteAssistantMessage(assistant("stop", [text(`Reading.\n${glmRead}\n`)]), assistant("stop", [text("")]));
		expect(noteOf(named.onTurnEnd(ended()))).toContain("a call to `read`");
	});

	it("names no tool that is not active or not a plain name token", () => {
		for (const name of ["open_file", "read.all"]) {
			const g = guard({ grammarRecovery: "observe" });
			const leaked = assistant("stop", [text(glmRead.replace("read", name))]);
			g.noteAssistantMessage(leaked, leaked);
			const note = noteOf(g.onTurnEnd(ended()));
			expect(note).toBe(
				"Your reply ended with text that looks like a tool call, which was not run. If you meant to call a tool, call it as a tool; otherwise go on.",
			);
		}
	});

	it("continues only when the reply ends with the model's own call", () => {
		const declined = `I will not run ${glmRead.replace(/\n/g, " ")} because it reads private notes.`;
		const cases = [
			// Text after the leak: the model went on, so it was not a silent stop.
			`${glmRead}\nOn second thought, that file is not needed.`,
			declined,
			// A call in reasoning followed by an answer: the model answered, so nothing was left unsaid.
			`[THINK]\n${glmRead}\n[/THINK]\nThe notes are not needed.`,
			`<!--\n${glmRead}\n-->`,
			`<code>${glmRead}</code>`,
		];
		for (const reply of cases) {
			const g = guard();
			g.noteAssistantMessage(assistant("stop", [text(reply)]), assistant("stop", [text(reply)]));
			expect(g.onTurnEnd(ended()), reply).toBeUndefined();
		}
	});

	it("never continues for an echo of a tool result or of the user's message", () => {
		const file = `Notes from the repository:\n${glmRead}\n`;
		const g = guard({}, "glm-4.6", [file]);
		g.noteAssistantMessage(assistant("stop", [text(`The file ends with:\n${glmRead}`)]), assistant("stop", [text("")]));
		expect(g.onTurnEnd(ended())).toBeUndefined();
	});

	it("is off on its own with askOnSilentStop false", () => {
		const g = guard({ askOnSilentStop: false });
		const phantom = assistant("toolUse", []);
		g.noteAssistantMessage(phantom, phantom);
		expect(g.onTurnEnd(ended())).toBeUndefined();
		g.noteAssistantMessage(assistant("stop", [text(glmRead)]), assistant("stop", [text("")]));
		expect(g.onTurnEnd(ended())).toBeUndefined();
	});

	it("leaves alone a plain answer, a message with a call, a run tool, leaks in reasoning or quotes, and off mode", () => {
		const cases: Array<[SilentStopGuard, unknown, TurnEndView]> = [
			[guard(), assistant("stop", [text("Done.")]), ended()],
			[guard(), assistant("toolUse", [{ type: "toolCall", id: "c", name: "read", arguments: {} }]), ended()],
			[guard(), assistant("toolUse", []), ended([{ role: "toolResult" }])],
			[guard(), assistant("stop", [{ type: "thinking", thinking: glmRead }, text("Done.")]), ended()],
			[guard(), assistant("stop", [text(`\`\`\`\n${glmRead}\n\`\`\``)]), ended()],
			[guard({ grammarRecovery: "off" }), assistant("stop", [text(glmRead)]), ended()],
			[guard({}, "claude-opus-5"), assistant("stop", [text(glmRead)]), ended()],
			[guard(), assistant("length", []), ended()],
			[guard(), assistant("toolUse", []), { ...ended(), outcome: "error" }],
		];
		for (const [g, message, event] of cases) {
			g.noteAssistantMessage(message, message);
			expect(g.onTurnEnd(event), JSON.stringify(message)).toBeUndefined();
		}
	});

	it("never continues twice in a row, and stops at the session cap until reset", () => {
		const g = guard();
		const phantom = assistant("toolUse", []);
		const plain = assistant("stop", [text("ok")]);
		const turn = (message: unknown) => playTurn(g, message);
		expect(turn(phantom)).toBeDefined();
		expect(turn(phantom)).toBeUndefined();
		for (let index = 1; index < MAX_CONTINUATIONS_PER_SESSION; index++) {
			expect(turn(phantom)).toBeDefined();
			expect(turn(plain)).toBeUndefined();
		}
		expect(g.count).toBe(MAX_CONTINUATIONS_PER_SESSION);
		expect(turn(phantom)).toBeUndefined();
		g.reset();
		expect(turn(phantom)).toBeDefined();
	});

	it("asks for turn_end only after a reply that stopped silently", () => {
		const g = guard();
		const plain = assistant("stop", [text("ok")]);
		g.noteAssistantMessage(plain, plain);
		expect(g.wantsTurnEnd()).toBe(false);
		const phantom = assistant("toolUse", []);
		g.noteAssistantMessage(phantom, phantom);
		expect(g.wantsTurnEnd()).toBe(true);
		g.onTurnEnd(ended());
		expect(g.wantsTurnEnd()).toBe(false);
	});

	it("keeps the entries earlier handlers proposed", () => {
		const g = guard();
		const phantom = assistant("toolUse", []);
		g.noteAssistantMessage(phantom, phantom);
		const earlier = { type: "custom", customType: "other" };
		const result = g.onTurnEnd({ ...ended(), entries: [earlier] } as never);
		expect(result?.entries?.[0]).toBe(earlier);
		expect(result?.entries).toHaveLength(2);
	});
});

describe("which replies the guard has work for", () => {
	const call = { type: "toolCall", id: "c1", name: "read", arguments: { path: "a.md" } };
	const seed = process.env.PI_REPAIR_FUZZ_SEED ? Number(process.env.PI_REPAIR_FUZZ_SEED) : 0x51e475;

	it("has none for a reply that calls a tool, unless a silent stop is still remembered", () => {
		const g = guard({}, "claude-fable-5-1");
		expect(g.hasWorkFor(assistant("toolUse", [call]))).toBe(false);
		expect(g.hasWorkFor(assistant("stop", [text("Reading it."), call]))).toBe(false);
		expect(g.hasWorkFor(assistant("toolUse", []))).toBe(true);
		expect(g.hasWorkFor(assistant("stop", [text("Done.")]))).toBe(true);
		expect(g.hasWorkFor({ role: "user", content: [call] })).toBe(true);
		// A phantom stop noted and not yet ended: the next reply, with a call, must still make the guard forget it.
		const phantom = assistant("toolUse", []);
		g.noteAssistantMessage(phantom, phantom);
		expect(g.wantsTurnEnd()).toBe(true);
		const next = assistant("toolUse", [call]);
		expect(g.hasWorkFor(next)).toBe(true);
		g.noteAssistantMessage(next, next);
		expect(g.wantsTurnEnd()).toBe(false);
		expect(g.hasWorkFor(next)).toBe(false);
	});

	it("never has none for a reply that noting would change (seeded)", () => {
		const part = fc.oneof(
			fc.constant(call),
			fc.constantFrom("Done.", `Reading.\n${glmRead}\n`, "").map(text),
			fc.constant({ type: "thinking", thinking: `I will call read.\n${glmRead}` }),
		);
		const reply = fc.record({
			role: fc.constantFrom("assistant", "user"),
			stopReason: fc.constantFrom("toolUse", "stop", "length", "error"),
			content: fc.array(part, { maxLength: 3 }),
		});
		fc.assert(
			fc.property(fc.boolean(), reply, (remembered, message) => {
				const g = guard({ grammarRecovery: "strip" });
				if (remembered) g.noteAssistantMessage(assistant("toolUse", []), assistant("toolUse", []));
				if (g.hasWorkFor(message)) return;
				// No work: noting the reply leaves the guard with nothing remembered, exactly as it was.
				g.noteAssistantMessage(message, message);
				expect(g.wantsTurnEnd()).toBe(false);
			}),
			{ seed, numRuns: 500 },
		);
	});
});

describe("incomplete leak markup", () => {
	// A DSML block cut off after its invoke line: strip-only debris, no complete call.
	const opener = '<｜DSML｜function_calls>\n<｜DSML｜invoke name="write">';

	it("continues when the cut-off markup was the whole reply", () => {
		const g = guard({}, "deepseek-v4");
		g.noteAssistantMessage(assistant("stop", [text(opener)]), assistant("stop", [text("")]));
		expect(noteOf(g.onTurnEnd(ended()))).toContain("looks like a tool call, which was not run");
	});

	it("leaves an answer with prose around stray markup alone", () => {
		const g = guard({}, "deepseek-v4");
		const reply = assistant("stop", [text(`Here is the summary you asked for.\n${opener}`)]);
		g.noteAssistantMessage(reply, reply);
		expect(g.onTurnEnd(ended())).toBeUndefined();
	});
});

describe("what a continuation reports", () => {
	it("tells a phantom tool use, a leaked call and a reply of reasoning alone apart, and nothing more", () => {
		const reported: unknown[] = [];
		const settings = { ...defaultRepairSettings(), grammarRecovery: "strip" as const };
		const make = () =>
			new SilentStopGuard({
				settings: () => settings,
				modelId: () => "glm-4.6",
				activeTools: () => ["read", "bash"],
				echoSources: () => [],
				onContinue: (stop) => reported.push(stop),
			});
		const phantom = assistant("toolUse", []);
		playTurn(make(), phantom);
		const leaked = make();
		leaked.onTurnStart();
		leaked.noteAssistantMessage(assistant("stop", [text(`Let me look.\n${glmRead}\n`)]), assistant("stop", [text("")]));
		leaked.onTurnEnd(ended());
		playTurn(make(), assistant("stop", [{ type: "thinking", thinking: "I should look at the notes first." }]));
		expect(reported).toEqual([
			{ phantom: true, reasoningOnly: false, grammars: [] },
			{ phantom: false, reasoningOnly: false, grammars: [] },
			{ phantom: false, reasoningOnly: true, grammars: [] },
		]);
	});
});

describe("a reply that stops on reasoning alone is asked once, never acted on", () => {
	const thinking = (value: string) => ({ type: "thinking", thinking: value });
	const note = (reply: unknown[], g = guard()) => {
		g.noteAssistantMessage(assistant("stop", reply), assistant("stop", reply));
		return g.onTurnEnd(ended());
	};

	it("asks when the reply held only reasoning, in a thinking part or a reasoning span", () => {
		for (const reply of [
			[thinking("I should look at the notes first.")],
			[thinking("Checking."), text("  \n")],
			[text("<think>I should look at the notes first.</think>\n")],
			[{ type: "thinking", thinking: "", redacted: true }],
		]) {
			expect(noteOf(note(reply)), JSON.stringify(reply)).toBe(
				"Your last reply held only reasoning: no answer and no tool call, so nothing ran. If you meant to use a tool, call it as a tool; otherwise give your answer.",
			);
		}
	});

	it("names the active tool a call written in the reasoning names, and no text of the message", () => {
		for (const reply of [
			[thinking(`Let me read it.\n${glmRead}`)],
			[text(`[THINK]\n${glmRead}\n[/THINK]`)],
			[text(`\u25c1think\u25b7${glmRead}`)],
		]) {
			const asked = noteOf(note(reply));
			expect(asked).toBe(
				"Your last reply held only reasoning, with a call to `read` written in it, which was not run. If you meant to call it, call it as a tool; otherwise give your answer.",
			);
			expect(asked).not.toContain("secret-notes");
		}
	});

	it("names no tool that is inactive, not a plain name, or one of several", () => {
		const deploy = glmRead.replace("read", "deploy");
		const odd = glmRead.replace("read", "read`s");
		const two = `${glmRead}\n${glmRead.replace("read", "bash")}`;
		for (const reasoning of [deploy, odd, two]) {
			const asked = noteOf(note([thinking(reasoning)]));
			expect(asked, reasoning).toContain("held only reasoning: no answer and no tool call");
			expect(asked).not.toMatch(/`/);
		}
	});

	it("leaves alone an answer after reasoning, a real call, a cut-off reply and an empty message", () => {
		expect(note([thinking("Thinking."), text("Done.")])).toBeUndefined();
		expect(note([text("<think>Thinking.</think>\nDone.")])).toBeUndefined();
		const call = [thinking("Thinking."), { type: "toolCall", id: "c", name: "read", arguments: { path: "a" } }];
		const g = guard();
		g.noteAssistantMessage(assistant("toolUse", call), assistant("toolUse", call));
		expect(g.onTurnEnd(ended())).toBeUndefined();
		const cut = guard();
		const long = assistant("length", [thinking("Thinking.")]);
		cut.noteAssistantMessage(long, long);
		expect(cut.onTurnEnd(ended())).toBeUndefined();
		expect(note([])).toBeUndefined();
		expect(note([thinking("  ")])).toBeUndefined();
	});

	it("keeps the bounds: off with askOnSilentStop, never twice in a row, within the session cap", () => {
		expect(note([thinking("Thinking.")], guard({ askOnSilentStop: false }))).toBeUndefined();
		const g = guard();
		const reply = assistant("stop", [thinking("Thinking.")]);
		expect(playTurn(g, reply)?.continue).toBe(true);
		expect(playTurn(g, reply)).toBeUndefined();
		let asked = 1;
		for (let turn = 0; turn < 2 * MAX_CONTINUATIONS_PER_SESSION; turn++) {
			if (playTurn(g, reply) !== undefined) asked++;
			playTurn(g, assistant("stop", [text("Done.")]));
		}
		expect(asked).toBe(MAX_CONTINUATIONS_PER_SESSION);
	});
});
