import type { RowSource } from '../mechanism/channel';

/**
 * Least-recently-used cache of generated rows, bounded by a number of Float64
 * entries, so a check that visits each row a few times (graph edges) does
 * not regenerate implicit rows more than it must, and never holds more than
 * the budget.
 */
export class RowCache {
  private readonly src: RowSource;
  private readonly capacity: number;
  private readonly map = new Map<number, Float64Array>();
  generated = 0;

  /** Called on every row as it is generated (e.g. to validate its entries). */
  private readonly onLoad: ((i: number, row: Float64Array) => void) | undefined;

  constructor(src: RowSource, budgetEntries = 2 ** 23, onLoad?: (i: number, row: Float64Array) => void) {
    this.src = src;
    this.onLoad = onLoad;
    this.capacity = Math.max(2, Math.floor(budgetEntries / Math.max(1, src.cols)));
  }

  get(i: number): Float64Array {
    const hit = this.map.get(i);
    if (hit) {
      this.map.delete(i);
      this.map.set(i, hit);
      return hit;
    }
    let buf: Float64Array;
    if (this.map.size >= this.capacity) {
      const oldest = this.map.keys().next().value as number;
      buf = this.map.get(oldest)!;
      this.map.delete(oldest);
    } else {
      buf = new Float64Array(this.src.cols);
    }
    this.src.row(i, buf);
    this.onLoad?.(i, buf);
    this.generated++;
    this.map.set(i, buf);
    return buf;
  }
}
