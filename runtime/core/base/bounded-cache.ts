/**
 * Remembers what a pure function gave for a string key, holding at most
 * `limit` entries: when full it starts over, so a stream of distinct keys (a
 * caller's garbage) costs a bounded amount of memory, and the few keys real
 * callers repeat are soon back.
 */
export class BoundedCache<V> {
  readonly #entries = new Map<string, V>();
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  get(key: string, compute: (key: string) => V): V {
    let value = this.#entries.get(key);
    if (value === undefined) {
      value = compute(key);
      if (this.#entries.size >= this.#limit) this.#entries.clear();
      this.#entries.set(key, value);
    }
    return value;
  }
}
