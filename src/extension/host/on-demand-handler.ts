/**
 * A pi event handler registered only while it has something to do.
 *
 * pi runs every `turn_end` handler through its turn boundary, which rebuilds
 * the session's context before and after each handler: work linear in the
 * session's length, on every turn, whether or not the handler acts. A
 * handler that acts on a few turns is registered when one of them comes and
 * removes itself after it runs. A host whose `on` returns no way to remove
 * a handler keeps it registered, and it runs every turn as before.
 */
export class OnDemandHandler<E, R> {
	private readonly register: (handler: (event: E) => R) => unknown;
	private readonly handle: (event: E) => R;
	private registered = false;
	private remove: (() => void) | undefined;

	constructor(register: (handler: (event: E) => R) => unknown, handle: (event: E) => R) {
		this.register = register;
		this.handle = handle;
	}

	/** Makes sure the handler runs at the next event. */
	want(): void {
		if (this.registered) return;
		this.registered = true;
		const remove = this.register((event) => {
			try {
				return this.handle(event);
			} finally {
				this.release();
			}
		});
		this.remove = typeof remove === "function" ? (remove as () => void) : undefined;
	}

	private release(): void {
		if (this.remove === undefined) return;
		this.remove();
		this.remove = undefined;
		this.registered = false;
	}
}
