/**
 * pi's tool lists, read at most once per event.
 *
 * `pi.getAllTools()` builds a fresh record for every registered tool on each
 * call, and the stages of one `message_end` (names, leaks, calls, silent
 * stops) all need the lists: asked separately, a valid message paid for
 * several surveys. One event sees one survey; the next event reads pi again,
 * since an extension can register, activate or drop a tool between events.
 */
import type { ExtensionAPI, ToolInfo } from "@earendil-works/pi-coding-agent";

export class ToolSurvey {
	private readonly pi: Pick<ExtensionAPI, "getActiveTools" | "getAllTools">;
	private active: string[] | undefined;
	private all: ToolInfo[] | undefined;
	private schemas: ReadonlyMap<string, unknown> | undefined;

	constructor(pi: Pick<ExtensionAPI, "getActiveTools" | "getAllTools">) {
		this.pi = pi;
	}

	/** Forgets the lists: called as each event starts, so no event sees another's tools. */
	refresh(): void {
		this.active = undefined;
		this.all = undefined;
		this.schemas = undefined;
	}

	activeTools(): string[] {
		this.active ??= this.pi.getActiveTools();
		return this.active;
	}

	allTools(): ToolInfo[] {
		this.all ??= this.pi.getAllTools();
		return this.all;
	}

	/** Parameter schemas of every tool pi knows, for typing values recovered from grammar leaks. */
	toolSchemas(): ReadonlyMap<string, unknown> {
		this.schemas ??= new Map(this.allTools().map((tool) => [tool.name, tool.parameters] as const));
		return this.schemas;
	}

	schemaOf(name: string): unknown {
		return this.toolSchemas().get(name);
	}
}
