/**
 * The extension's bounded maps. The most-recent-last map of session state
 * (failure counts, indicator info, held codemode notes): a write moves its key
 * to the end, and the oldest keys go first once the map holds more than its
 * limit, so memory stays flat however long a session runs. And the tallies
 * of `/repair-stats`, which keep every count but only so many names.
 */

/** Sets `key` as the newest entry and drops the oldest entries beyond `max`. */
export function setNewest<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
	map.delete(key);
	map.set(key, value);
	for (const oldest of map.keys()) {
		if (map.size <= max) break;
		map.delete(oldest);
	}
}

/**
 * The key a tally may count under: `key` itself when the map already holds it
 * or has room for it, else `overflow`, so a map fed ever new names (a file
 * anyone may have written) grows to `max` rows plus the overflow row and no
 * further, and no count is lost.
 */
export function keyWithin<K, V>(map: ReadonlyMap<K, V>, key: K, max: number, overflow: K): K {
	return map.has(key) || map.size < max ? key : overflow;
}
