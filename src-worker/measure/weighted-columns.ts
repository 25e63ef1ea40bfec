import type { RowSource } from '../mechanism/channel';

/** Column blocks hold at most this many entries (secrets x block width): 32 MiB. */
const COLUMN_BLOCK_ENTRIES = 1 << 22;

/**
 * Visit every column y of the joint matrix q_y(x) = pi_x C[x][y] without
 * materialising C: columns are gathered in blocks of width B (secrets x B <=
 * COLUMN_BLOCK_ENTRIES), each block by one streaming pass over the rows. One
 * pass in total whenever n x m fits the budget; otherwise ceil(m / B) passes,
 * so memory stays bounded for implicit mechanisms on huge domains.
 * `visit` receives a column vector q (length rows) it may read but not keep.
 */
export function forEachWeightedColumn(
  p: Float64Array,
  channel: RowSource,
  visit: (y: number, q: Float64Array) => void,
  blockEntries = COLUMN_BLOCK_ENTRIES,
): void {
  const n = channel.rows;
  const m = channel.cols;
  const width = Math.max(1, Math.min(m, Math.floor(blockEntries / Math.max(1, n))));
  const block = new Float64Array(n * width); // column-major: block[b * n + x]
  const rowBuf = new Float64Array(m);
  const col = new Float64Array(n);
  for (let y0 = 0; y0 < m; y0 += width) {
    const w = Math.min(width, m - y0);
    for (let x = 0; x < n; x++) {
      const px = p[x]!;
      channel.row(x, rowBuf);
      for (let b = 0; b < w; b++) block[b * n + x] = px * rowBuf[y0 + b]!;
    }
    for (let b = 0; b < w; b++) {
      col.set(block.subarray(b * n, (b + 1) * n));
      visit(y0 + b, col);
    }
  }
}
