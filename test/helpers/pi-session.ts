/**
 * Runs pi's real agent loop in-process: `createAgentSession` with a
 * `DefaultResourceLoader` that loads the given extension factories (the repair
 * extension by default), pi-ai's faux provider playing a scripted conversation,
 * in-memory settings and session, and a throwaway workspace.
 *
 * The script uses the same turn format as test/fixtures/scripted-provider.ts
 * (`toolCalls` with `arguments` or raw `rawArguments` text, `echo` turns), and
 * the same conversion, so a raw-text call arrives with `argumentsError` exactly
 * as from a real provider.
 *
 * Usage:
 *   const run = await startPiSession({ files: { "a.txt": "hi\n" }, model: "glm-4.6" });
 *   await run.play([{ toolCalls: [{ id: "c1", name: "read", arguments: { file_path: "a.txt" } }] }, { type: "echo" }]);
 *   run.resultText("c1");       // the text of the tool result the model saw
 *   run.toolResult("c1")?.isError;
 *   run.readFile("a.txt");
 *   await run.dispose();         // also restores any `env` it set
 * Environment variables in `env` are set before the extensions load (the
 * extension reads settings at activation and switches on every call) and
 * restored by `dispose()`; telemetry and settings default to files in the
 * run's temporary root.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fauxProvider, type ToolResultMessage } from "@earendil-works/pi-ai";
import {
	type AgentSession,
	createAgentSession,
	createCodemodeExtension,
	DefaultResourceLoader,
	type InlineExtension,
	ModelRuntime,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";
import repairExtension from "../../src/index.ts";
import { type ScriptStep, scriptResponses } from "../fixtures/scripted-provider.ts";
import { readTelemetryRecords, readWorkspaceFile, seedRunFolders } from "./workspace-files.ts";

export const ALL_BUILTIN_TOOLS = ["read", "bash", "edit", "write", "grep", "find", "ls", "powershell"] as const;

export interface PiSessionOptions {
	/** Model id of the faux provider (gates model-family repairs). Default `scripted-1`. */
	model?: string;
	/** More model ids the provider offers, for switching with `harness.switchModel(id)`. */
	otherModels?: string[];
	/** Extension factories to load; default `[repairExtension]`. */
	extensions?: InlineExtension[];
	/** Active tools; default all eight built-ins (plus `codemode` when `codemode` is set). */
	tools?: string[];
	/** Load pi's codemode extension and activate its tool. */
	codemode?: boolean;
	/** Workspace files, relative path -> content. */
	files?: Record<string, string>;
	/** Environment for the run (`undefined` deletes); restored on dispose. */
	env?: Record<string, string | undefined>;
	/** Reuse a session manager (e.g. to resume a session with persisted entries). */
	sessionManager?: SessionManager;
	/** Reuse a workspace root from an earlier run (for resume tests). */
	root?: string;
	/** pi settings (in-memory). */
	settings?: Record<string, unknown>;
}

export interface PiSessionHarness {
	session: AgentSession;
	sessionManager: SessionManager;
	root: string;
	workspace: string;
	agentDir: string;
	telemetryPath: string;
	settingsPath: string;
	/** Selects another model of the provider, as `/model` does (fires `model_select`). */
	switchModel(modelId: string): Promise<void>;
	/** The messages of each provider request so far, as the provider received them (JSON copies), in request order. */
	providerMessages(): unknown[][];
	/** Plays the script: queues its turns and sends one prompt. */
	play(script: readonly ScriptStep[], prompt?: string): Promise<void>;
	toolResults(): ToolResultMessage[];
	toolResult(toolCallId: string): ToolResultMessage | undefined;
	/** Text blocks of one tool result, joined by newlines ("" when there is none). */
	resultText(toolCallId: string): string;
	/** The last assistant message's text. */
	lastAssistantText(): string;
	readFile(relativePath: string): string | undefined;
	telemetry(): Record<string, unknown>[];
	dispose(options?: { keepRoot?: boolean }): Promise<void>;
}

export async function startPiSession(options: PiSessionOptions = {}): Promise<PiSessionHarness> {
	const root = options.root ?? mkdtempSync(join(tmpdir(), "pi-repair-session-"));
	const { workspace, agentDir } = seedRunFolders(root, options.files);
	const telemetryPath = join(root, "telemetry.jsonl");
	const settingsPath = join(root, "settings.json");

	const env: Record<string, string | undefined> = {
		PI_TOOL_REPAIR_TELEMETRY: telemetryPath,
		PI_TOOL_REPAIR_SETTINGS: settingsPath,
		PI_TOOL_REPAIR_LOG: undefined,
		PI_TOOL_REPAIR_PASSTHROUGH: undefined,
		...options.env,
	};
	const saved = new Map<string, string | undefined>();
	for (const [key, value] of Object.entries(env)) {
		saved.set(key, process.env[key]);
		if (value === undefined) delete process.env[key];
		else process.env[key] = value;
	}

	const modelId = options.model ?? "scripted-1";
	const faux = fauxProvider({
		provider: "scripted",
		models: [modelId, ...(options.otherModels ?? [])].map((id) => ({ id })),
		tokenSize: { min: 64, max: 64 },
	});
	const modelRuntime = await ModelRuntime.create({
		authPath: join(agentDir, "auth.json"),
		modelsPath: join(agentDir, "models.json"),
	});
	modelRuntime.registerNativeProvider(faux.provider);

	const settingsManager = SettingsManager.inMemory(options.settings ?? {});
	const factories: InlineExtension[] = [...(options.extensions ?? [repairExtension])];
	if (options.codemode) factories.push(createCodemodeExtension());
	const resourceLoader = new DefaultResourceLoader({
		cwd: workspace,
		agentDir,
		settingsManager,
		noSkills: true,
		noPromptTemplates: true,
		noThemes: true,
		noContextFiles: true,
		extensionFactories: factories,
	});
	await resourceLoader.reload();

	const sessionManager = options.sessionManager ?? SessionManager.inMemory(workspace);
	const tools = options.tools ?? [...ALL_BUILTIN_TOOLS, ...(options.codemode ? ["codemode"] : [])];
	const { session } = await createAgentSession({
		cwd: workspace,
		agentDir,
		modelRuntime,
		model: faux.getModel(),
		resourceLoader,
		settingsManager,
		sessionManager,
		tools,
	});
	await session.bindExtensions({ mode: "print" });

	const providerMessages: unknown[][] = [];
	const toolResults = () => session.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
	const toolResult = (id: string) => toolResults().find((m) => m.toolCallId === id);
	return {
		session,
		sessionManager,
		root,
		workspace,
		agentDir,
		telemetryPath,
		settingsPath,
		async switchModel(id) {
			const next = faux.getModel(id);
			if (next === undefined) throw new Error(`the scripted provider offers no model ${id}`);
			await session.setModel(next);
		},
		providerMessages: () => providerMessages,
		async play(script, prompt = "go") {
			// Every step is a factory; each is wrapped to keep a copy of what the provider was sent.
			faux.setResponses(
				scriptResponses(script).map((step) => (context, ...rest) => {
					providerMessages.push(JSON.parse(JSON.stringify(context.messages)) as unknown[]);
					return typeof step === "function" ? step(context, ...rest) : step;
				}),
			);
			await session.prompt(prompt);
		},
		toolResults,
		toolResult,
		resultText(id) {
			const result = toolResult(id);
			if (!result) return "";
			return result.content
				.filter((block): block is { type: "text"; text: string } => block.type === "text")
				.map((block) => block.text)
				.join("\n");
		},
		lastAssistantText() {
			for (let index = session.messages.length - 1; index >= 0; index--) {
				const message = session.messages[index];
				if (message?.role !== "assistant") continue;
				return message.content
					.filter((block): block is { type: "text"; text: string } => block.type === "text")
					.map((block) => block.text)
					.join("\n");
			}
			return "";
		},
		readFile: (relativePath) => readWorkspaceFile(workspace, relativePath),
		telemetry: () => readTelemetryRecords(telemetryPath),
		dispose(disposeOptions) {
			try {
				session.dispose();
			} finally {
				for (const [key, value] of saved) {
					if (value === undefined) delete process.env[key];
					else process.env[key] = value;
				}
				if (!disposeOptions?.keepRoot && options.root === undefined) rmSync(root, { recursive: true, force: true });
			}
			return Promise.resolve();
		},
	};
}
