/**
 * Tripwire: pi's `turn_end` continuation, which the no-silent-stops guard
 * relies on. A `turn_end` handler may return `{ entries, continue: true }`;
 * pi appends a `custom_message` draft as a user-role context message, makes
 * exactly one more provider request for that boundary when nothing else
 * would, and fires `turn_end` again after the next response. Pinned against
 * pi's docs, its dist, and its real agent loop with a bare extension (not
 * ours), so a host change shows up here before it silently breaks the guard.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionAPI, TurnEndEventResult } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { type PiSessionHarness, startPiSession } from "../helpers/pi-session.ts";

const PI = join(process.cwd(), "node_modules/@earendil-works/pi-coding-agent");

describe("pi's turn_end continuation", () => {
	let run: PiSessionHarness | undefined;
	afterEach(async () => {
		await run?.dispose();
		run = undefined;
	});

	it("is documented as entries plus continue, with custom_message drafts", () => {
		const docs = readFileSync(join(PI, "docs/extensions.md"), "utf8");
		expect(docs).toContain("`turn_end` can append entries and request a continuation");
		expect(docs).toContain("`continue: true` ensures one next provider request");
		expect(docs).toContain("Allowed draft entry types are `custom`, `custom_message`");
		expect(docs).toContain("A `custom_message` draft contributes a user-role model message");
	});

	it("is implemented by the session's boundary dispatch in pi's dist", () => {
		const session = readFileSync(join(PI, "dist/core/agent-session.js"), "utf8");
		expect(session).toContain("_dispatchTurnEndBoundary");
		expect(session).toMatch(/return boundary\.continue;/);
		expect(session).toContain(
			"appendCustomMessageEntry(draft.customType, draft.content, draft.display, draft.details)",
		);
	});

	it("makes exactly one more request per continue, with the hidden note in its context", async () => {
		const seen: { role: string; text: string }[][] = [];
		let boundaries = 0;
		const bare = (pi: ExtensionAPI) => {
			pi.on("context", (event) => {
				seen.push(
					event.messages.map((message) => {
						const record = message as { role: string; content?: unknown };
						return { role: record.role, text: JSON.stringify(record.content ?? "") };
					}),
				);
			});
			pi.on("turn_end", (event): TurnEndEventResult | undefined => {
				boundaries++;
				if (boundaries > 1) return undefined;
				return {
					entries: [
						...event.entries,
						{ type: "custom_message", customType: "drift-note", content: "drift continuation note", display: false },
					],
					continue: true,
				};
			});
		};
		run = await startPiSession({ extensions: [bare] });
		await run.play([{ text: "first", stopReason: "toolUse" }, { text: "second" }]);
		expect(boundaries).toBe(2);
		expect(seen).toHaveLength(2);
		const last = seen[1]?.at(-1);
		expect(last?.text).toContain("drift continuation note");
		expect(run.session.messages.filter((message) => message.role === "assistant")).toHaveLength(2);
	});
});
