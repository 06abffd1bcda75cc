/**
 * A pi event handler registered only while it has something to do.
 *
 * pi pays for a handler whether or not it acts: around every `turn_end`
 * handler it rebuilds the session's context (work linear in the session's
 * length), and for `tool_call` and `tool_result` it builds an extension
 * context and awaits the handlers around every call it runs. A handler that
 * acts on a few events is registered when one of them is due and removes
 * itself once nothing is left for it: after the event it handled, unless
 * `keep` says more is waiting. A host whose `on` returns no way to remove a
 * handler keeps it registered, and it runs at every event as before.
 */
export class OnDemandHandler<E, R> {
	private readonly register: (handler: (event: E) => R) => unknown;
	private readonly handle: (event: E) => R;
	private readonly keep: () => boolean;
	private registered = false;
	private remove: (() => void) | undefined;

	constructor(
		register: (handler: (event: E) => R) => unknown,
		handle: (event: E) => R,
		keep: () => boolean = () => false,
	) {
		this.register = register;
		this.handle = handle;
		this.keep = keep;
	}

	/** Makes sure the handler runs at the next event. */
	want(): void {
		if (this.registered) return;
		this.registered = true;
		const remove = this.register((event) => {
			try {
				return this.handle(event);
			} finally {
				this.settle();
			}
		});
		this.remove = typeof remove === "function" ? (remove as () => void) : undefined;
	}

	/** Removes the handler when nothing waits for it any more (after the layer dropped what was waiting). */
	settle(): void {
		if (this.remove === undefined || this.keep()) return;
		this.remove();
		this.remove = undefined;
		this.registered = false;
	}
}
