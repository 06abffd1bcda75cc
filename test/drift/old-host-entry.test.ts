/**
 * The package's entry on a pi below the floor registers nothing but the
 * warning. pi's exported VERSION is replaced here because an older pi cannot
 * run in this suite (its packages differ from the installed ones); everything
 * else is the real module, and the entry is the file pi's manifest names.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { describe, expect, it, vi } from "vitest";

vi.mock("@earendil-works/pi-coding-agent", async (original) => ({
	...(await original<Record<string, unknown>>()),
	VERSION: "1.0.3",
}));

describe("the entry on pi 1.0.3", () => {
	it("loads nothing and warns once at session start", async () => {
		const { default: entry } = await import("../../extension.ts");
		const registered: string[] = [];
		const handlers: Array<(event: unknown, ctx: unknown) => void> = [];
		const pi = new Proxy(
			{},
			{
				get: (_target, key) =>
					key === "on"
						? (event: string, handler: (event: unknown, ctx: unknown) => void) => {
								registered.push(`on:${event}`);
								handlers.push(handler);
							}
						: (..._args: unknown[]) => registered.push(String(key)),
			},
		) as ExtensionAPI;
		await entry(pi);
		expect(registered).toEqual(["on:session_start"]);
		const notices: string[] = [];
		const ctx = { hasUI: true, ui: { notify: (text: string, level: string) => notices.push(`${level}: ${text}`) } };
		handlers[0]?.({}, ctx);
		handlers[0]?.({}, ctx);
		expect(notices).toEqual([
			expect.stringMatching(
				/^warning: pi-repair-layer needs pi 1\.3\.0 or newer and found pi 1\.0\.3; it loaded nothing/,
			),
		]);
	});
});
