/**
 * The working value of the preprocessing stage. The input is never cloned
 * wholesale and never mutated: a write copies only the containers on the path
 * from the root to the written location; untouched siblings (a large
 * `content` string, say) are reused by reference, and when nothing changes
 * the input itself comes back.
 */
import { defineOwn, shallowCopyRecord } from "../json-value.ts";

export type Path = readonly (string | number)[];
export type Container = Record<string, unknown> | unknown[];

/** What a row's rewrite produced at one location. */
export interface Rewrite {
	value: unknown;
	note: string;
}

/**
 * The working value. Containers this tree copied are "owned" and may be
 * written in place; anything else still belongs to the caller and is copied
 * before the first write beneath it.
 */
export class CopyOnWriteTree {
	root: unknown;
	private readonly owned = new Set<object>();

	constructor(root: unknown) {
		this.root = root;
	}

	/** Sets the value at `path`; the empty path replaces the root. */
	write(path: Path, value: unknown): void {
		if (path.length === 0) {
			this.root = value;
			return;
		}
		const parent = this.writableAt(path.slice(0, -1));
		const key = path[path.length - 1]!;
		if (Array.isArray(parent)) {
			parent[key as number] = value;
		} else {
			defineOwn(parent, String(key), value);
		}
	}

	/** The container at `path`, copied (with its ancestors) if the tree does not own it yet. */
	private writableAt(path: Path): Container {
		if (!this.isOwned(this.root)) {
			this.root = this.adopt(this.root as Container);
		}
		let container = this.root as Container;
		for (const key of path) {
			const child = (container as Record<string | number, unknown>)[key] as Container;
			if (this.isOwned(child)) {
				container = child;
				continue;
			}
			const copy = this.adopt(child);
			if (Array.isArray(container)) {
				container[key as number] = copy;
			} else {
				defineOwn(container, String(key), copy);
			}
			container = copy;
		}
		return container;
	}

	private isOwned(value: unknown): boolean {
		return typeof value === "object" && value !== null && this.owned.has(value);
	}

	private adopt(container: Container): Container {
		const copy = shallowCopy(container);
		this.owned.add(copy);
		return copy;
	}
}

/** A one-level copy of an array or a record. */
export function shallowCopy(container: Container): Container {
	return Array.isArray(container) ? container.slice() : shallowCopyRecord(container);
}
