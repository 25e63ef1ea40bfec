import { MechError } from '../../errors';
import type { RowSource } from '../../mechanism/channel';

/**
 * Rows of an implicit channel for display (heat map of one secret's
 * output distribution, a table of a few rows): each row is generated on
 * demand in O(cols), never the whole matrix.
 */
export function readRows(source: RowSource, indices: readonly number[]): Float64Array[] {
  return indices.map((i) => {
    if (!Number.isInteger(i) || i < 0 || i >= source.rows) {
      throw new MechError('invalid-input', `row ${i} does not exist (the channel has rows 0..${source.rows - 1})`);
    }
    return source.row(i, new Float64Array(source.cols));
  });
}

export interface RowEntry {
  col: number;
  label: string;
  p: number;
}

/** The k most likely outputs of row i, largest first (ties by column), with labels. */
export function topOutputs(source: RowSource, i: number, k: number): RowEntry[] {
  if (!Number.isInteger(k) || k < 1) throw new MechError('invalid-input', `number of outputs to show must be an integer >= 1, got ${k}`);
  const [row] = readRows(source, [i]);
  const m = source.cols;
  // bounded selection: keep the best k in a small sorted list (k << m)
  const best: number[] = [];
  for (let j = 0; j < m; j++) {
    const v = row![j]!;
    if (best.length === k && v <= row![best[k - 1]!]!) continue;
    let pos = best.length;
    while (pos > 0 && row![best[pos - 1]!]! < v) pos--;
    best.splice(pos, 0, j);
    if (best.length > k) best.pop();
  }
  return best.map((j) => ({ col: j, label: source.colLabel(j), p: row![j]! }));
}
