/**
 * The pipeline reads its input once, here, at the entry. Every later stage
 * judges and repairs what this walk read, so the value that runs is the value
 * that was checked: a getter that answers differently on a second read, or a
 * sparse array whose holes a check skips, never reaches a tool unjudged.
 *
 * Plain data (plain records of own enumerable data properties, and plain
 * arrays of own data elements with no holes) is handed on as the caller's own
 * reference, so a valid call costs no copy. Anything else (an accessor, a
 * hidden property, a hole, an object with another prototype) is handed on as
 * a copy of plain data made from that one read (a getter runs once). A
 * proxy is read through its traps like any object, and a trap that throws
 * makes the walk throw, for the pipeline's boundary to contain; but a proxy
 * whose traps describe plain data is handed on as itself, so later reads ask
 * its traps again (a proxy cannot be told from an object without copying it,
 * which a valid call must not pay).
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

// Taken once at load, so a caller that replaces them later cannot change how the walk reads.
const { getOwnPropertyDescriptor, getOwnPropertyNames: ownNames, getPrototypeOf, hasOwn, keys: ownKeys } = Object;
const { isArray } = Array;
// Allocation-free for an element, where a descriptor costs several times more: `undefined` for a data property.
const lookupGetter = (Object.prototype as unknown as { __lookupGetter__(key: PropertyKey): unknown }).__lookupGetter__;
const { apply } = Reflect;
const OBJECT_PROTOTYPE: unknown = Object.prototype;
const ARRAY_PROTOTYPE: unknown = Array.prototype;

/** What the pipeline judges in place of `input`; see the file header. Throws what a proxy trap throws. */
export function snapshotInput(input: unknown, maxNodes: number, maxDepth: number): InputSnapshot {
	const read = new EntryRead(maxNodes, maxDepth);
	try {
		// Most calls are plain data: one pass that runs no getter and copies nothing proves it.
		if (read.isPlain(input, 0)) return { within: true, value: input };
		read.restart();
		return { within: true, value: read.copy(input, 0) };
	} catch (error) {
		if (error === OVER_NODES) return { within: false, bound: "nodes" };
		if (error === OVER_DEPTH) return { within: false, bound: "depth" };
		throw error;
	}
}

/**
 * True when `input` is plain data within the bounds, proved by the first pass
 * alone: no getter runs and nothing is copied, so asking first and reading
 * with {@link snapshotInput} later runs no getter twice.
 */
export function isPlainInput(input: unknown, maxNodes: number, maxDepth: number): boolean {
	try {
		return new EntryRead(maxNodes, maxDepth).isPlain(input, 0);
	} catch (error) {
		if (error === OVER_NODES || error === OVER_DEPTH) return false;
		throw error;
	}
}

/**
 * The one read, in two passes over the same bookkeeping: `isPlain` proves a
 * value plain data without running a getter or copying, and only when it
 * cannot, `copy` reads the value again from the start and copies it. Both
 * count every value (an array's slots before any is read) and every level.
 *
 * A record's property is read through its own descriptor: one call that says
 * whether it is an accessor and, when it is not, gives the value, so a
 * getter is never run to find out and a data property is read once.
 */
class EntryRead {
	private nodes = 0;
	private readonly maxNodes: number;
	private readonly maxDepth: number;

	constructor(maxNodes: number, maxDepth: number) {
		this.maxNodes = maxNodes;
		this.maxDepth = maxDepth;
	}

	restart(): void {
		this.nodes = 0;
	}

	/** One more value, at `depth`. */
	private visit(depth: number): void {
		if (depth > this.maxDepth) throw OVER_DEPTH;
		if (++this.nodes > this.maxNodes) throw OVER_NODES;
	}

	/** An array's slots all count, holes included, before any is read. */
	private slots(length: number): void {
		if (this.nodes + length > this.maxNodes) throw OVER_NODES;
	}

	/** True when `value` is plain data: plain or null-prototype records of own enumerable data properties and dense plain arrays of own data elements, all the way down. */
	isPlain(value: unknown, depth: number): boolean {
		this.visit(depth);
		if (typeof value !== "object" || value === null) return true;
		const inner = depth + 1;
		if (isArray(value)) {
			// Another prototype could iterate, map or index other values than the elements checked.
			if (getPrototypeOf(value) !== ARRAY_PROTOTYPE) return false;
			const length = value.length;
			this.slots(length);
			for (let index = 0; index < length; index++) {
				// An element's descriptor costs several times a key's, so a hole and an accessor are asked for directly.
				if (!hasOwn(value, index) || lookupGetter.call(value, index) !== undefined) return false;
				const item: unknown = value[index];
				if (typeof item === "object" && item !== null) {
					if (!this.isPlain(item, inner)) return false;
				} else this.visit(inner);
			}
			return true;
		}
		const prototype: unknown = getPrototypeOf(value);
		if (prototype !== OBJECT_PROTOTYPE && prototype !== null) return false;
		// Every own name, not only the enumerable ones: a check reads a hidden getter by name as readily as any other.
		const names = ownNames(value);
		for (let index = 0; index < names.length; index++) {
			const own = getOwnPropertyDescriptor(value, names[index] as string);
			if (own === undefined || !own.enumerable || own.get !== undefined || own.set !== undefined) return false;
			const item: unknown = own.value;
			if (typeof item === "object" && item !== null) {
				if (!this.isPlain(item, inner)) return false;
			} else this.visit(inner);
		}
		return true;
	}

	/** A plain-data copy of `value`, each getter run once and each hole read as `undefined`. */
	copy(value: unknown, depth: number): unknown {
		this.visit(depth);
		if (typeof value !== "object" || value === null) return value;
		const inner = depth + 1;
		if (isArray(value)) {
			const length = value.length;
			this.slots(length);
			const copy: unknown[] = [];
			for (let index = 0; index < length; index++) copy.push(this.copy(readOnce(value, index), inner));
			return copy;
		}
		const copy: Record<string, unknown> = getPrototypeOf(value) === null ? Object.create(null) : {};
		const keys = ownKeys(value);
		for (let index = 0; index < keys.length; index++) {
			const key = keys[index] as string;
			// An own `__proto__` stays an inert data property, as in every copy the pipeline makes.
			defineOwn(copy, key, this.copy(readOnce(value, key), inner));
		}
		return copy;
	}
}

/** The value of `key`: a data property's from its descriptor, an accessor's by running its getter once. */
function readOnce(owner: object, key: string | number): unknown {
	const own = getOwnPropertyDescriptor(owner, key);
	if (own === undefined) return undefined;
	// Own fields only: a field inherited from a polluted `Object.prototype` must not decide what is read.
	if (!hasOwn(own, "get")) return hasOwn(own, "value") ? own.value : undefined;
	const getter = own.get;
	return getter === undefined ? undefined : apply(getter, owner, []);
}
