import { resized } from './typed-arrays';
/**
 * Binary min-heap of (key, value) pairs in typed arrays: Float64Array keys,
 * Int32Array values (node ids). Duplicates are allowed, so shortest-path
 * users decrease a key by pushing the node again and skipping stale entries
 * when popped (lazy deletion: `if (key > dist[node]) continue`). Grows by
 * doubling. For a max-heap push negated keys.
 */
export class MinHeap {
  private keys: Float64Array;
  private values: Int32Array;
  /** Number of entries currently held. */
  size = 0;

  constructor(capacity = 16) {
    const cap = Math.max(16, Math.floor(capacity));
    this.keys = new Float64Array(cap);
    this.values = new Int32Array(cap);
  }

  /** Drop every entry (keeps the storage). */
  clear(): void {
    this.size = 0;
  }

  /** Smallest key (undefined behaviour when empty). */
  topKey(): number {
    return this.keys[0]!;
  }

  /** Value of the entry with the smallest key (undefined behaviour when empty). */
  topValue(): number {
    return this.values[0]!;
  }

  push(key: number, value: number): void {
    if (this.size === this.keys.length) this.grow();
    const keys = this.keys;
    const values = this.values;
    let i = this.size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (keys[p]! <= key) break;
      keys[i] = keys[p]!;
      values[i] = values[p]!;
      i = p;
    }
    keys[i] = key;
    values[i] = value;
  }

  /** Remove the entry with the smallest key and return its value (read topKey() first if needed). */
  pop(): number {
    const keys = this.keys;
    const values = this.values;
    const top = values[0]!;
    const n = --this.size;
    if (n <= 0) {
      this.size = Math.max(0, n);
      return top;
    }
    const key = keys[n]!;
    const value = values[n]!;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && keys[c + 1]! < keys[c]!) c++;
      if (keys[c]! >= key) break;
      keys[i] = keys[c]!;
      values[i] = values[c]!;
      i = c;
    }
    keys[i] = key;
    values[i] = value;
    return top;
  }

  private grow(): void {
    const cap = this.keys.length * 2;
    this.keys = resized(this.keys, cap);
    this.values = resized(this.values, cap);
  }
}
