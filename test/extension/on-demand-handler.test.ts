import { describe, expect, it } from "vitest";
import { OnDemandHandler } from "../../src/extension/host/on-demand-handler.ts";

/** A host's `on` for one event: a list of handlers, and a remover when `removable`. */
function host(removable: boolean) {
	const handlers: Array<(event: number) => number> = [];
	const on = (handler: (event: number) => number) => {
		handlers.push(handler);
		if (!removable) return undefined;
		return () => {
			handlers.splice(handlers.indexOf(handler), 1);
		};
	};
	const emit = (event: number) => [...handlers].map((handler) => handler(event));
	return { handlers, on, emit };
}

describe("a handler registered only while it has something to do", () => {
	it("registers once however often it is wanted, runs at the next event, then removes itself", () => {
		const h = host(true);
		const seen: number[] = [];
		const onDemand = new OnDemandHandler(h.on, (event: number) => {
			seen.push(event);
			return event * 2;
		});
		expect(h.emit(1)).toEqual([]);
		onDemand.want();
		onDemand.want();
		expect(h.handlers).toHaveLength(1);
		expect(h.emit(2)).toEqual([4]);
		expect(h.handlers).toHaveLength(0);
		expect(h.emit(3)).toEqual([]);
		onDemand.want();
		expect(h.emit(5)).toEqual([10]);
		expect(seen).toEqual([2, 5]);
	});

	it("removes itself even when the handler throws", () => {
		const h = host(true);
		const onDemand = new OnDemandHandler(h.on, () => {
			throw new Error("boom");
		});
		onDemand.want();
		expect(() => h.emit(1)).toThrow("boom");
		expect(h.handlers).toHaveLength(0);
	});

	it("stays registered on a host whose on() returns no remover, and is never registered twice", () => {
		const h = host(false);
		const onDemand = new OnDemandHandler(h.on, (event: number) => event);
		onDemand.want();
		expect(h.emit(1)).toEqual([1]);
		onDemand.want();
		expect(h.handlers).toHaveLength(1);
		expect(h.emit(2)).toEqual([2]);
	});

	it("stays while more waits for it, and goes at the event after the last, or when settled", () => {
		const h = host(true);
		let waiting = 2;
		const onDemand = new OnDemandHandler(
			h.on,
			(event: number) => {
				waiting--;
				return event;
			},
			() => waiting > 0,
		);
		onDemand.want();
		expect(h.emit(1)).toEqual([1]);
		expect(h.handlers).toHaveLength(1);
		expect(h.emit(2)).toEqual([2]);
		expect(h.handlers).toHaveLength(0);
		// Dropped without its event: settle() removes it at once.
		waiting = 5;
		onDemand.want();
		onDemand.settle();
		expect(h.handlers).toHaveLength(1);
		waiting = 0;
		onDemand.settle();
		expect(h.handlers).toHaveLength(0);
		onDemand.want();
		expect(h.handlers).toHaveLength(1);
	});
});
