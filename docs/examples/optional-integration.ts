/**
 * A tool that uses pi-repair-layer when it is installed and works unchanged
 * when it is not: the optional-integration recipe of
 * docs/tool-owner-integration.md.
 *
 * The tool's package lists pi-repair-layer as an optional peer dependency and
 * imports it only dynamically, when the extension loads. Installed, the
 * tool's arguments go through the repair pipeline (here: the alias `message`
 * for `text`); not installed, the same tool registers as it is and pi
 * validates its calls alone. Any other failure to load the layer (a broken
 * install) is not hidden: it fails the extension's load with its own message.
 *
 * Its tests live in test/docs/examples.test.ts: with the layer, in pi's real
 * agent loop; without it, through the real pi CLI from a folder where
 * pi-repair-layer cannot be found.
 */
import type { ExtensionAPI, ToolDefinition } from "@earendil-works/pi-coding-agent";
import type { PiToolOwnerAdapterOptions } from "pi-repair-layer/pi";
import { Type } from "typebox";

const parameters = Type.Object({ text: Type.String({ description: "What to shout" }) });
type ShoutTool = ToolDefinition<typeof parameters>;

export const shoutTool: ShoutTool = {
	name: "shout",
	label: "Shout",
	description: "Repeats the text in capitals.",
	parameters,
	execute(_toolCallId, params) {
		return Promise.resolve({ content: [{ type: "text", text: params.text.toUpperCase() }], details: undefined });
	},
};

const repairOptions: PiToolOwnerAdapterOptions = {
	preprocessors: [{ kind: "alias", selector: "/text", aliases: ["message"], accepts: "string" }],
};

/** Loads the adapter subpath; rejects when pi-repair-layer is not installed. */
export type AdapterLoader = () => Promise<typeof import("pi-repair-layer/pi")>;

const loadInstalled: AdapterLoader = () => import("pi-repair-layer/pi");

/** Is this the error of pi-repair-layer itself not being found, rather than a broken install? */
function isNotInstalled(error: unknown): boolean {
	const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
	const notFound = code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
	return notFound && String(message).includes("pi-repair-layer");
}

/** The tool adapted by the repair layer when it is installed, else the tool as it is. */
export async function withOptionalRepair(
	tool: ShoutTool,
	load: AdapterLoader = loadInstalled,
): Promise<{ tool: ShoutTool; repaired: boolean }> {
	try {
		const { adaptToolDefinition } = await load();
		return { tool: adaptToolDefinition(tool, repairOptions), repaired: true };
	} catch (error) {
		if (isNotInstalled(error)) return { tool, repaired: false };
		throw error;
	}
}

export default async function shoutExtension(pi: ExtensionAPI): Promise<void> {
	const { tool } = await withOptionalRepair(shoutTool);
	pi.registerTool(tool);
}
