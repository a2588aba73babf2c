/**
 * The last values made, by a string key, least recently used out first: for work that is a pure function of its key
 * (a search's plan, a search's parsed request), asked again and again by callers such as dashboards. A value whose
 * making throws is never kept; keys longer than `maxKeyLength` are made every time (the key would outweigh the
 * value). Kept values are shared by every caller that hits them, so they must never change after they are made.
 */
export class KeptValues<V> {
  readonly #values = new Map<string, V>();
  readonly #entries: number;
  readonly #maxKeyLength: number;

  /** `entries`: the most values kept; 0 keeps none. */
  constructor(entries: number, maxKeyLength: number) {
    this.#entries = entries;
    this.#maxKeyLength = maxKeyLength;
  }

  /** The value kept for `key`, or `make()`'s, kept unless `worthKeeping` says otherwise. */
  get(key: string, make: () => V, worthKeeping?: (value: V) => boolean): V {
    if (this.#entries === 0 || key.length > this.#maxKeyLength) return make();
    const known = this.#values.get(key);
    if (known !== undefined) {
      // Most recent last: Map keeps insertion order, so the first key is the least recently used.
      this.#values.delete(key);
      this.#values.set(key, known);
      return known;
    }
    const value = make();
    if (worthKeeping && !worthKeeping(value)) return value;
    if (this.#values.size >= this.#entries) this.#values.delete(this.#values.keys().next().value!);
    this.#values.set(key, value);
    return value;
  }
}

/** Freezes `value` and everything in it: a kept value shared by every caller can then not be changed by one. */
export function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}
