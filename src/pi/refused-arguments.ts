/**
 * A mark on a tool call's `arguments` object saying "pi refuses this call
 * with its own `argumentsError` text; hand the object over unchanged".
 *
 * A call whose argument text was not a JSON object reaches a tool's
 * `prepareArguments` as `{}` (pi-ai keeps the text in `argumentsError`). A
 * repairing shim that judged that `{}` would tell the model it sent no
 * arguments, hiding pi's message, which quotes what it really sent. The
 * repair layer marks such objects at `message_end`; every copy of the
 * adapter, bundled by whichever tool owner, reads the same registered
 * symbol, so the mark works across package copies.
 */

const REFUSED = Symbol.for("pi-repair-layer.refused-arguments");

/** Marks `args` (non-enumerable, so JSON, persistence and `structuredClone` never see it); false when it is frozen. */
export function markArgumentsRefused(args: object): boolean {
	if (!Object.isExtensible(args)) return false;
	Object.defineProperty(args, REFUSED, { value: true, enumerable: false, configurable: true });
	return true;
}

export function isArgumentsRefused(args: unknown): boolean {
	return typeof args === "object" && args !== null && (args as Record<symbol, unknown>)[REFUSED] === true;
}
