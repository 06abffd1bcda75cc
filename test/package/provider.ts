/**
 * A tiny offline provider for the package smoke test (`scripts/test-package.ts`).
 *
 * It plays two turns through pi-ai's faux provider: first a `write` call that
 * uses the Claude-style alias `file_path` instead of `path` (pi alone would
 * refuse it with "path: missing"), then a reply that repeats the text of the
 * tool result, so the smoke test can read on stdout exactly what the model saw.
 *
 * Load it next to the packed extension:
 *   pi -p --no-session -e ./provider.ts -e <installed package> --provider pkg-smoke --model pkg-smoke-1 go
 */
import { fauxAssistantMessage, fauxProvider, fauxText, fauxToolCall } from "@earendil-works/pi-ai";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

/** The file the scripted call writes, relative to pi's working directory. */
export const SMOKE_FILE = "smoke-output.txt";
export const SMOKE_CONTENT = "written by the packed pi-repair-layer\n";

export default function packageSmokeProvider(pi: ExtensionAPI): void {
	const faux = fauxProvider({ provider: "pkg-smoke", models: [{ id: "pkg-smoke-1", name: "Package smoke" }] });
	faux.setResponses([
		fauxAssistantMessage(
			[fauxToolCall("write", { file_path: SMOKE_FILE, content: SMOKE_CONTENT }, { id: "pkg-smoke-write" })],
			{ stopReason: "toolUse" },
		),
		(context) => {
			const results = context.messages.filter((message) => message.role === "toolResult");
			const last = results.at(-1);
			const text = last
				? last.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n")
				: "(no tool result)";
			return fauxAssistantMessage([fauxText(`TOOL RESULT (isError=${String(last?.isError)}):\n${text}`)]);
		},
	]);
	pi.registerProvider(faux.provider);
}
