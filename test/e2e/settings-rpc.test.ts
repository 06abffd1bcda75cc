/**
 * `/repair-settings` over pi's RPC mode with the real `pi` CLI: the settings
 * arrive as `select` dialogs on the extension UI protocol (not printed text),
 * a choice made by the client is applied and saved, and closing the menu sends
 * the summary as a notification.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { SETTINGS_MENU_TITLE } from "../../src/extension/commands.ts";
import { EXTENSION_ENTRY, node22, PI_BIN, SCRIPTED_PROVIDER_PATH } from "../helpers/pi-cli.ts";

interface UiRequest {
	type: string;
	id?: string;
	method?: string;
	title?: string;
	options?: string[];
	message?: string;
}

describe("/repair-settings in pi's RPC mode", () => {
	it("offers the settings as select dialogs and saves the client's choice", async () => {
		const root = mkdtempSync(join(tmpdir(), "pi-repair-rpc-"));
		const workspace = join(root, "workspace");
		mkdirSync(join(root, "agent"), { recursive: true });
		mkdirSync(workspace, { recursive: true });
		writeFileSync(join(root, "script.json"), "[]");
		const settingsPath = join(root, "settings.json");
		const child = spawn(
			node22(),
			[PI_BIN, "--mode", "rpc", "--no-session", "-ne", "-e", SCRIPTED_PROVIDER_PATH, "-e", EXTENSION_ENTRY].concat([
				"--provider",
				"scripted",
				"--model",
				"scripted-1",
			]),
			{
				cwd: workspace,
				stdio: ["pipe", "pipe", "pipe"],
				env: {
					PATH: `${dirname(node22())}:${process.env.PATH ?? ""}`,
					HOME: root,
					PI_CODING_AGENT_DIR: join(root, "agent"),
					PI_OFFLINE: "1",
					PI_SCRIPTED_SCRIPT: join(root, "script.json"),
					PI_TOOL_REPAIR_TELEMETRY: "off",
					PI_TOOL_REPAIR_SETTINGS: settingsPath,
				},
			},
		);
		const dialogs: UiRequest[] = [];
		const notices: string[] = [];
		const answer = (id: string | undefined, body: Record<string, unknown>) =>
			child.stdin.write(`${JSON.stringify({ type: "extension_ui_response", id, ...body })}\n`);
		try {
			const finished = new Promise<void>((resolve, reject) => {
				child.once("exit", (code) => reject(new Error(`pi exited early with ${code}`)));
				createInterface({ input: child.stdout }).on("line", (line) => {
					let event: UiRequest;
					try {
						event = JSON.parse(line) as UiRequest;
					} catch {
						return;
					}
					if (event.type !== "extension_ui_request") return;
					if (event.method === "notify" && event.message?.startsWith("Tool repair settings:")) {
						notices.push(event.message);
						resolve();
						return;
					}
					if (event.method !== "select") return;
					dialogs.push(event);
					// Main menu: pick "Show indicator"; its values: pick "false"; the main menu again: close.
					if (dialogs.length === 1) answer(event.id, { value: event.options?.[1] });
					else if (dialogs.length === 2) answer(event.id, { value: "false" });
					else answer(event.id, { cancelled: true });
				});
			});
			child.stdin.write(`${JSON.stringify({ id: "p1", type: "prompt", message: "/repair-settings" })}\n`);
			await finished;
			expect(
				dialogs.map((d) => d.title?.startsWith(SETTINGS_MENU_TITLE) || d.title?.startsWith("Show indicator")),
			).toEqual([true, true, true]);
			expect(dialogs[0]?.options?.[1]).toBe("Show indicator: true");
			expect(dialogs[1]?.options).toEqual(["true", "false"]);
			expect(dialogs[2]?.options?.[1]).toBe("Show indicator: false");
			expect(JSON.parse(readFileSync(settingsPath, "utf8"))).toMatchObject({ showIndicator: false });
			expect(notices[0]).toContain("showIndicator false");
		} finally {
			child.removeAllListeners("exit");
			child.kill("SIGTERM");
			rmSync(root, { recursive: true, force: true });
		}
	});
});
