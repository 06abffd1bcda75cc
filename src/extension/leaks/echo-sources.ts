/**
 * The texts the model did not write in the current run: the user's message
 * and every tool result since it (a file the model read, a command's output).
 * A leaked call in the model's reply that repeats one of them is an echo, data
 * being quoted back, and never runs or continues the loop.
 *
 * Fed from pi's `message_end` events, which fire for user and tool-result
 * messages too; a user message starts a new run. Memory is bounded: past
 * {@link MAX_ECHO_CHARS} the oldest tool results go first (the user's
 * message stays).
 */

/** How much text one run keeps for echo checks. */
export const MAX_ECHO_CHARS = 8 * 1024 * 1024;

/** Calls `visit` with each text part of a message's content (a string, or parts with `type: "text"`). */
function eachText(content: unknown, visit: (text: string) => void): void {
	if (typeof content === "string") {
		visit(content);
		return;
	}
	if (!Array.isArray(content)) return;
	for (const part of content) {
		if (part !== null && typeof part === "object") {
			const { type, text } = part as { type?: unknown; text?: unknown };
			if (type === "text" && typeof text === "string" && text !== "") visit(text);
		}
	}
}

export class EchoSources {
	private user: string[] = [];
	private results: string[] = [];
	private chars = 0;

	/** Notes a finished message: a user message starts over, a tool result is added. */
	note(message: unknown): void {
		if (message === null || typeof message !== "object") return;
		const { role, content } = message as { role?: unknown; content?: unknown };
		if (role === "user") {
			const user: string[] = [];
			eachText(content, (text) => user.push(text));
			this.user = user;
			this.results = [];
			this.chars = 0;
		} else if (role === "toolResult") {
			// Every tool result passes here: its texts go straight in, with no list of them made first.
			eachText(content, this.add);
		}
	}

	/** The user's message and the run's tool results, as texts. */
	texts(): readonly string[] {
		return [...this.user, ...this.results];
	}

	clear(): void {
		this.user = [];
		this.results = [];
		this.chars = 0;
	}

	private readonly add = (text: string): void => {
		this.results.push(text);
		this.chars += text.length;
		while (this.chars > MAX_ECHO_CHARS && this.results.length > 1) this.chars -= this.results.shift()?.length ?? 0;
	};
}
