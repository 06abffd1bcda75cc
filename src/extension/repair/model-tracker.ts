/**
 * The session's current model, as pi reports it: `ctx.model` at session start
 * and the selected model on every `model_select`. The model-family gates
 * (anchor bleed, grammar tokens, grammar leaks) and every telemetry or
 * feedback record read it from here, never from an assistant message's own
 * `model` field. While it is unknown, every model gate stays closed.
 */

interface ModelLike {
	id?: unknown;
	provider?: unknown;
}

function asModel(value: unknown): ModelLike | undefined {
	return typeof value === "object" && value !== null ? value : undefined;
}

export class ModelTracker {
	id: string | undefined;
	provider: string | undefined;

	/** `session_start`: take the context's model (it may be absent). */
	fromContext(ctx: { model?: unknown } | undefined): void {
		const model = asModel(ctx?.model);
		this.id = typeof model?.id === "string" ? model.id : undefined;
		this.provider = typeof model?.provider === "string" ? model.provider : undefined;
	}

	/** `model_select`: the event's model, else the context's, else keep what we had. */
	fromSelect(event: { model?: unknown } | undefined, ctx: { model?: unknown } | undefined): void {
		const model = [asModel(event?.model), asModel(ctx?.model)].find((m) => typeof m?.id === "string");
		if (model === undefined) return;
		this.id = model.id as string;
		this.provider = typeof model.provider === "string" ? model.provider : undefined;
	}
}
