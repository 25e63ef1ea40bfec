import { MechError } from '../../src-shared/errors';
import type { RowSource } from '../mechanism/channel';

/**
 * The channel C . R of a channel C followed by a deterministic remap R of its
 * outputs y to guesses w = remap[y] (R[y][w] = 1 iff remap[y] = w):
 *
 *   (C R)[x][w] = sum over y with remap[y] = w of C[x][y]   (summed in y order).
 *
 * Post-processing: if C is eps*d-private, so is C R (each ratio
 * (CR)[x][w] / (CR)[x'][w] is a ratio of sums of terms each within
 * e^(eps d(x, x')) of its counterpart). Rows are generated on demand from
 * C's rows, so no n x n array is held. Guesses never chosen are all-zero
 * columns (kept, so the outputs stay the guess set, e.g. the grid's cells).
 */
export class RemappedChannel implements RowSource {
  readonly rows: number;
  readonly cols: number;
  readonly source: RowSource;
  readonly remap: Int32Array;
  private readonly buf: Float64Array;
  private readonly guessName: (w: number) => string;

  constructor(source: RowSource, remap: Int32Array, guesses: number, guessLabel: (w: number) => string) {
    if (remap.length !== source.cols)
      throw new MechError('internal', `remap has ${remap.length} entries but the channel has ${source.cols} outputs`);
    if (!Number.isInteger(guesses) || guesses < 1)
      throw new MechError('internal', `remap needs at least one guess, got ${guesses}`);
    for (let y = 0; y < remap.length; y++) {
      const w = remap[y]!;
      if (w < 0 || w >= guesses)
        throw new MechError('internal', `remap sends output ${y} to guess ${w}, outside 0..${guesses - 1}`);
    }
    this.rows = source.rows;
    this.cols = guesses;
    this.source = source;
    this.remap = remap;
    this.buf = new Float64Array(source.cols);
    this.guessName = guessLabel;
  }

  row(i: number, out: Float64Array): Float64Array {
    if (out.length < this.cols)
      throw new MechError('internal', `row buffer has ${out.length} entries, needs ${this.cols}`);
    const b = this.source.row(i, this.buf);
    out.fill(0, 0, this.cols);
    const r = this.remap;
    for (let y = 0; y < r.length; y++) out[r[y]!]! += b[y]!;
    return out;
  }

  rowLabel(i: number): string {
    return this.source.rowLabel(i);
  }

  colLabel(j: number): string {
    return this.guessName(j);
  }
}
