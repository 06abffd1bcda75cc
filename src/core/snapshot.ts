/**
 * The pipeline reads its input once, here, at the entry. Every later stage
 * judges and repairs what this walk read, so the value that runs is the value
 * that was checked: a getter that answers differently on a second read, or a
 * sparse array whose holes a check skips, never reaches a tool unjudged.
 *
 * Plain data (plain objects and arrays of own data properties, no holes) is
 * handed on as the caller's own reference, so a valid call costs no copy.
 * Anything else (an accessor, a hole, an object with another prototype) is
 * handed on as a copy of plain data made from that one read (a getter runs
 * once). A proxy is read through its traps like any object, once; a trap that
 * throws makes the walk throw, for the pipeline's boundary to contain.
 *
 * The walk is bounded by the limits before it does the work: a value count
 * over `maxNodes` (an array's length counts in full, so a sparse array of
 * millions of holes is refused at once) or a depth over `maxNestingDepth`
 * (a cycle too) stops it.
 */

import { defineOwn } from "./json-value.ts";

export type InputSnapshot =
	| { readonly within: true; readonly value: unknown }
	| { readonly within: false; readonly bound: "nodes" | "depth" };

const OVER_NODES: unique symbol = Symbol("over-nodes");
const OVER_DEPTH: unique symbol = Symbol("over-depth");

// The one allocation-free test for an accessor: `undefined` for a data property (and a missing one).
// Read from Object.prototype once, so a null-prototype record or a hostile prototype cannot replace it.
const lookupGetter = (Object.prototype as unknown as { __lookupGetter__(key: PropertyKey): unknown }).__lookupGetter__;

/** What the pipeline judges in place of `input`; see the file header. Throws what a proxy trap throws. */
export function snapshotInput(input: unknown, maxNodes: number, maxDepth: number): InputSnapshot {
	try {
		// Most calls are plain data: one pass that reads no accessor and allocates no copy proves it.
		if (new PlainDataCheck(maxNodes, maxDepth).holds(input, 0)) return { within: true, value: input };
		return { within: true, value: new SnapshotWalk(maxNodes, maxDepth).take(input, 0) };
	} catch (error) {
		if (error === OVER_NODES) return { within: false, bound: "nodes" };
		if (error === OVER_DEPTH) return { within: false, bound: "depth" };
		throw error;
	}
}

/**
 * True when `value` is plain data: plain or null-prototype records and dense
 * arrays of own data properties, all the way down. It never runs a getter (an
 * accessor answers `false` before it is read) and applies the walk's bounds,
 * so a value it accepts is exactly what the copying walk would hand back.
 */
class PlainDataCheck {
	private nodes = 0;
	private readonly maxNodes: number;
	private readonly maxDepth: number;

	constructor(maxNodes: number, maxDepth: number) {
		this.maxNodes = maxNodes;
		this.maxDepth = maxDepth;
	}

	holds(value: unknown, depth: number): boolean {
		if (depth > this.maxDepth) throw OVER_DEPTH;
		if (++this.nodes > this.maxNodes) throw OVER_NODES;
		if (typeof value !== "object" || value === null) return true;
		if (Array.isArray(value)) {
			const length = value.length;
			if (this.nodes + length > this.maxNodes) throw OVER_NODES;
			for (let index = 0; index < length; index++) {
				if (!(index in value) || lookupGetter.call(value, index) !== undefined) return false;
				if (!this.holds(value[index], depth + 1)) return false;
			}
			return true;
		}
		const prototype: unknown = Object.getPrototypeOf(value);
		if (prototype !== Object.prototype && prototype !== null) return false;
		const keys = Object.keys(value);
		for (let index = 0; index < keys.length; index++) {
			const key = keys[index]!;
			if (lookupGetter.call(value, key) !== undefined) return false;
			if (!this.holds((value as Record<string, unknown>)[key], depth + 1)) return false;
		}
		return true;
	}
}

class SnapshotWalk {
	private nodes = 0;
	private readonly maxNodes: number;
	private readonly maxDepth: number;

	constructor(maxNodes: number, maxDepth: number) {
		this.maxNodes = maxNodes;
		this.maxDepth = maxDepth;
	}

	private count(nodes: number): void {
		this.nodes += nodes;
		if (this.nodes > this.maxNodes) throw OVER_NODES;
	}

	/** `value` itself when it is plain data, else its plain copy. */
	take(value: unknown, depth: number): unknown {
		if (depth > this.maxDepth) throw OVER_DEPTH;
		this.count(1);
		if (typeof value !== "object" || value === null) return value;
		return Array.isArray(value) ? this.array(value, depth) : this.record(value, depth);
	}

	private array(array: readonly unknown[], depth: number): unknown[] {
		const length = array.length;
		// Every slot counts, holes included, before any is read.
		if (this.nodes + length > this.maxNodes) throw OVER_NODES;
		let copy: unknown[] | undefined;
		for (let index = 0; index < length; index++) {
			const getter = lookupGetter.call(array, index);
			const item: unknown = array[index];
			const taken = this.take(item, depth + 1);
			const plain = getter === undefined && taken === item && (item !== undefined || index in array);
			if (copy === undefined && !plain) copy = array.slice(0, index);
			if (copy !== undefined) copy[index] = taken;
		}
		return copy ?? (array as unknown[]);
	}

	private record(record: object, depth: number): Record<string, unknown> {
		const prototype: unknown = Object.getPrototypeOf(record);
		let changed = prototype !== Object.prototype && prototype !== null;
		const keys = Object.keys(record);
		const values: unknown[] = new Array(keys.length);
		for (let index = 0; index < keys.length; index++) {
			const key = keys[index]!;
			const getter = lookupGetter.call(record, key);
			const item: unknown = (record as Record<string, unknown>)[key];
			const value = this.take(item, depth + 1);
			if (getter !== undefined || value !== item) changed = true;
			values[index] = value;
		}
		if (!changed) return record as Record<string, unknown>;
		const copy: Record<string, unknown> = prototype === null ? Object.create(null) : {};
		// An own `__proto__` stays an inert data property, as in every copy the pipeline makes.
		for (let index = 0; index < keys.length; index++) defineOwn(copy, keys[index]!, values[index]);
		return copy;
	}
}
