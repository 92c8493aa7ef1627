/**
 * A bounded memo in two generations, shared by the verified-value caches on
 * hot paths: the adapter's cookie codec, the API's service-token check and its
 * memo of tokens it signed. When the current generation is full it becomes the
 * previous one and the older generation is dropped whole, so the oldest
 * entries go first and every operation is O(1) (deleting one entry at a time
 * from the head of a full `Map` scanned its deleted slots on every insert).
 * At most twice `generationSize` entries are held.
 *
 * @example
 * const seen = generationalMemo<string, number>(256);
 * seen.set('token', 1);
 * seen.get('token'); // 1
 */
export interface GenerationalMemo<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
  /** Entries held, both generations. */
  readonly size: number;
}

export function generationalMemo<K, V>(generationSize: number): GenerationalMemo<K, V> {
  let current = new Map<K, V>();
  let previous = new Map<K, V>();
  return {
    get: (key) => current.get(key) ?? previous.get(key),
    set(key, value) {
      if (current.size >= generationSize) {
        previous = current;
        current = new Map();
      }
      current.set(key, value);
    },
    get size() {
      return current.size + previous.size;
    },
  };
}
