/**
 * The one bounded, most-recent-last map of the extension's session state
 * (failure counts, indicator info, held codemode notes): a write moves its key
 * to the end, and the oldest keys go first once the map holds more than its
 * limit, so memory stays flat however long a session runs.
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
