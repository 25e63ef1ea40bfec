import { MechError } from '../../src-shared/errors';
import { DenseChannel, type RowSource } from '../mechanism/channel';
import { ImplicitTightChannel } from '../mechanism/implicit/implicit-tight-channel';
import { buildPlanarOffsetTables } from '../mechanism/planar/offset-tables';
import { planarRowFiller } from '../mechanism/planar-laplace';
import { kernelRow } from '../mechanism/row-normalised-kernel';
import type { Domain } from '../metric/domain';

/**
 * Column access to a channel: column y is the vector C[.][y] over secrets.
 * The Bayesian remap works column by column (the posterior of output y is
 * pi .* C[.][y]); a RowSource only gives rows, so gathering columns costs a
 * pass over all rows per block of columns. Mechanisms whose entries are
 * table look-ups (planar Laplace, tight constraints, dense channels) give a
 * column in O(n) directly. Every entry must be bit-for-bit the value the
 * row generator returns (same look-ups, same products), so the remap agrees
 * exactly with the row-streaming measure (measure/optimal-remap.ts);
 * `verifyColumns` spot-checks that.
 */
export interface ColumnAccess {
  readonly rows: number;
  readonly cols: number;
  /** Fill out (length >= rows) with column y and return it. */
  column(y: number, out: Float64Array): Float64Array;
}

/** Columns of a dense channel. */
export function denseColumns(ch: DenseChannel): ColumnAccess {
  const m = ch.matrix;
  return {
    rows: m.rows,
    cols: m.cols,
    column(y, out) {
      for (let x = 0; x < m.rows; x++) out[x] = m.get(x, y);
      return out;
    },
  };
}

/**
 * Columns of planar Laplace on a grid (mechanism/planar-laplace.ts): the
 * same offset tables, the same look-ups as planarRowFiller, read along a
 * column. O(n) per column after the O(n)-entry tables.
 */
export function planarLaplaceColumns(domain: Domain, eps: number): ColumnAccess {
  const g = domain.structure.grid;
  if (!g) throw new MechError('not-applicable', `planar Laplace columns need a grid domain, got ${domain.spec}`);
  const R = g.rows;
  const C = g.cols;
  const t = buildPlanarOffsetTables(R, C, g.metric, eps * g.step);
  const n = R * C;
  if (R === 1 || C === 1) {
    // One-dimensional grids: cheap enough to read the column from rows through the filler.
    const fill = planarRowFiller(t);
    const buf = new Float64Array(n);
    return {
      rows: n,
      cols: n,
      column(y, out) {
        for (let x = 0; x < n; x++) {
          fill(x, buf);
          out[x] = buf[y]!;
        }
        return out;
      },
    };
  }
  // kind of interval of output coordinate q for true coordinate p on an axis of length L
  // (>= 0: a cell offset; < 0: a tail -(t+1)), exactly as planarRowFiller's `describe`.
  const kind = (L: number, p: number, q: number): number => {
    if (q === 0) return -(p + 1);
    if (q === L - 1) return -(L - 1 - p + 1);
    return Math.abs(q - p);
  };
  return {
    rows: n,
    cols: n,
    column(y, out) {
      const q = Math.floor(y / C);
      const s = y - q * C;
      for (let r = 0; r < R; r++) {
        const kr = kind(R, r, q);
        const o = r * C;
        for (let c = 0; c < C; c++) {
          const kc = kind(C, c, s);
          if (t.kind === 'factorised') {
            const pr = kr >= 0 ? t.rowCell![kr]! : t.rowTailP![-kr - 1]!;
            const pc = kc >= 0 ? t.colCell![kc]! : t.colTailP![-kc - 1]!;
            out[o + c] = pr * pc;
          } else if (kr >= 0) {
            out[o + c] = kc >= 0 ? t.cell![kr * C + kc]! : t.colTail![(-kc - 1) * R + kr]!;
          } else {
            const tr = -kr - 1;
            out[o + c] = kc >= 0 ? t.rowTail![tr * C + kc]! : t.quad![tr * C + (-kc - 1)]!;
          }
        }
      }
      return out;
    },
  };
}

/**
 * Columns of the implicit tight-constraints channel C[x][y] = Phi[x][y] z[y]
 * on a lattice (FFT operator): the same kernel-table look-up as the row
 * generator, times z[y].
 */
export function tightColumns(ch: ImplicitTightChannel): ColumnAccess | null {
  const lat = ch.op.lattice;
  if (!lat) return null;
  const op = lat.op;
  const n1 = op.n1;
  const n2 = op.n2;
  const z = ch.z;
  return {
    rows: ch.rows,
    cols: ch.cols,
    column(y, out) {
      const r = Math.floor(y / n2);
      const c = y - r * n2;
      const zy = z[y]!;
      for (let r2 = 0, x = 0; r2 < n1; r2++)
        for (let c2 = 0; c2 < n2; c2++, x++) out[x] = op.kernelAt(r - r2, c - c2) * zy;
      return out;
    },
  };
}

/**
 * Columns of a row-normalised kernel (mechanism/row-normalised-kernel.ts: the exponential mechanism, the
 * row-normalised Laplace): C[x][y] = exp(-rate d(x,y)) / Z_x. The n normalisers are computed once (one pass over
 * the rows, the rows' own sums), then a column is O(n) distance calls. Without it a remap gathers columns from
 * row blocks, n^2 kernel entries per block (2.5 minutes for the exponential mechanism on a 100 x 100 grid).
 */
export function rowNormalisedColumns(domain: Domain, rate: number): ColumnAccess {
  const n = domain.n;
  const inv = new Float64Array(n);
  const row = new Float64Array(n);
  for (let x = 0; x < n; x++) inv[x] = kernelRow(domain, rate, x, row);
  return {
    rows: n,
    cols: n,
    column(y, out) {
      for (let x = 0; x < n; x++) out[x] = Math.exp(-rate * domain.distance(x, y)) * inv[x]!;
      return out;
    },
  };
}

/**
 * Spot-check column access against the channel's rows: `samples` rows
 * spread over the domain, every column entry compared bit for bit. A
 * mismatch means the column access does not describe this channel (e.g.
 * planar Laplace columns built with another eps): an internal error, never a
 * silently different remap.
 */
export function verifyColumns(channel: RowSource, cols: ColumnAccess, samples = 8): void {
  if (cols.rows !== channel.rows || cols.cols !== channel.cols) {
    throw new MechError(
      'internal',
      `column access is ${cols.rows} x ${cols.cols} but the channel is ${channel.rows} x ${channel.cols}`,
    );
  }
  const n = channel.rows;
  const m = channel.cols;
  const k = Math.min(samples, n);
  const rowIdx: number[] = [];
  for (let t = 0; t < k; t++) rowIdx.push(Math.min(n - 1, Math.floor(((t + 0.5) * n) / k)));
  rowIdx[0] = 0;
  // The sampled columns' entries at the sampled rows (k x <= 64 numbers), then one row at a time.
  const colStep = Math.max(1, Math.floor(m / 64));
  const ys: number[] = [];
  for (let y = 0; y < m; y += colStep) ys.push(y);
  const fromCols = new Float64Array(k * ys.length);
  const colBuf = new Float64Array(n);
  ys.forEach((y, j) => {
    cols.column(y, colBuf);
    for (let t = 0; t < k; t++) fromCols[t * ys.length + j] = colBuf[rowIdx[t]!]!;
  });
  const rowBuf = new Float64Array(m);
  for (let t = 0; t < k; t++) {
    channel.row(rowIdx[t]!, rowBuf);
    ys.forEach((y, j) => {
      const a = rowBuf[y]!;
      const b = fromCols[t * ys.length + j]!;
      if (!Object.is(a, b) && a !== b) {
        throw new MechError(
          'internal',
          `column access disagrees with the channel at (${channel.rowLabel(rowIdx[t]!)}, ${channel.colLabel(y)}): ${b} vs ${a}`,
        );
      }
    });
  }
}
