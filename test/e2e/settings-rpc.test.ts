/**
 * `/repair-settings` over pi's RPC mode with the real `pi` CLI: the settings
 * arrive as `select` dialogs on the extension UI protocol (not printed text),
 * a choice made by the client is applied and saved, and closing the menu sends
 * the summary as a notification.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SETTINGS_MENU_TITLE } from "../../src/extension/commands/commands.ts";
import { startPiRpc } from "../helpers/pi-rpc.ts";

describe("/repair-settings in pi's RPC mode", () => {
	it("offers the settings as select dialogs and saves the client's choice", async () => {
		const root = mkdtempSync(join(tmpdir(), "pi-repair-rpc-"));
		const settingsPath = join(root, "settings.json");
		const pi = startPiRpc({ root, env: { PI_TOOL_REPAIR_SETTINGS: settingsPath } });
		const select = () => pi.next((r) => r.method === "select");
		try {
			pi.prompt("/repair-settings");
			// Main menu: pick "Show indicator"; its values: pick "false"; the main menu again: close.
			const menu = await select();
			pi.answer(menu.id, { value: menu.options?.[1] });
			const values = await select();
			pi.answer(values.id, { value: "false" });
			const again = await select();
			pi.answer(again.id, { cancelled: true });
			const summary = await pi.next(
				(r) => r.method === "notify" && r.message?.startsWith("Tool repair settings:") === true,
			);
			expect(
				[menu, values, again].map(
					(d) => d.title?.startsWith(SETTINGS_MENU_TITLE) || d.title?.startsWith("Show indicator"),
				),
			).toEqual([true, true, true]);
			expect(menu.options?.[1]).toBe("Show indicator: true");
			expect(values.options).toEqual(["true", "false"]);
			expect(again.options?.[1]).toBe("Show indicator: false");
			expect(JSON.parse(readFileSync(settingsPath, "utf8"))).toMatchObject({ showIndicator: false });
			expect(summary.message).toContain("showIndicator false");
		} finally {
			pi.stop();
			rmSync(root, { recursive: true, force: true });
		}
	});
});
