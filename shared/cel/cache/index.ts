// A bounded cache for values computed from strings an expression meets at run
// time (a quantity's text, a computed regex pattern): the same params or the
// same few field values come back in every review, and parsing them again is
// most of a call's cost. Keys come from requests, so the cache is bounded in
// entries, key length and total weight, and is emptied when full: a caller
// can only make it miss, never make it grow. Callers charge cost whether or
// not the value was cached, so budgets do not change.

export class BoundedCache<V> {
  readonly #entries = new Map<string, V>();
  #weight = 0;

  constructor(
    /** Most entries kept at once. */
    private readonly maxEntries: number,
    /** Longest key kept (UTF-16 units): longer ones are computed every time. */
    private readonly maxKeyLength: number,
    /** Most total weight kept (an entry weighs 1 unless `weigh` says otherwise). */
    private readonly maxWeight = maxEntries,
    private readonly weigh: (value: V) => number = () => 1,
  ) {}

  /** The value for `key`, computed by `make` on a miss. */
  get(key: string, make: (key: string) => V): V {
    const cached = this.#entries.get(key);
    if (cached !== undefined) return cached;
    const made = make(key);
    if (key.length > this.maxKeyLength) return made;
    const weight = this.weigh(made);
    if (weight > this.maxWeight) return made;
    if (this.#entries.size >= this.maxEntries || this.#weight + weight > this.maxWeight) {
      this.#entries.clear();
      this.#weight = 0;
    }
    this.#entries.set(key, made);
    this.#weight += weight;
    return made;
  }
}
