import { MechError } from '../../src-shared/errors';
import type { ImplicitTightChannel } from '../mechanism/implicit/implicit-tight-channel';
import { buildPlanarOffsetTables } from '../mechanism/planar/offset-tables';
import type { Domain } from '../metric/domain';
import type { ColumnAccess } from './columns';

/**
 * Windowed column access for translation-structured grid mechanisms: the
 * entries C[x][y] for x in a rectangle of cells, and a proven upper bound on
 * every entry of column y outside the Chebyshev window of radius rho around
 * y. The remap of a large grid (bayes-remap.ts, 'certified-window') reads
 * only a window per output, O(rho^2) instead of O(n), and certifies the
 * choice with the bound (grid-best-guess.ts, bestIn).
 *
 * Both mechanisms here have entries that depend on the offset x - y only
 * through table look-ups indexed by (|dr|, |dc|) (planar Laplace: its cell,
 * tail and quadrant tables, tails indexed by the distance to the border,
 * which is |dr| or |dc| when y is a border cell; tight constraints:
 * exp(-eps d) times z[y]), so the bound is a suffix maximum of the tables
 * over the Chebyshev offset max(|dr|, |dc|).
 */
export interface WindowColumnAccess extends ColumnAccess {
  readonly gridRows: number;
  readonly gridCols: number;
  /**
   * out[(r - r0) * (c1 - c0 + 1) + (c - c0)] = C[(r, c)][y] for r0 <= r <= r1, c0 <= c <= c1 (row-major over the
   * window).
   */
  columnWindow(y: number, r0: number, r1: number, c0: number, c1: number, out: Float64Array): Float64Array;
  /** An upper bound on C[x][y] over all x with max(|dr|, |dc|) > rho. */
  outsideMax(y: number, rho: number): number;
}

/** suf[k] = max over k' >= k of at[k'] (length L + 1, suf[L] = 0). */
function suffixMax(at: Float64Array): Float64Array {
  const L = at.length;
  const suf = new Float64Array(L + 1);
  for (let k = L - 1; k >= 0; k--) suf[k] = Math.max(suf[k + 1]!, at[k]!);
  return suf;
}

/**
 * Planar Laplace on a grid (mechanism/planar-laplace.ts) with windowed columns; the same look-ups as its row filler.
 */
export function planarLaplaceWindows(domain: Domain, eps: number): WindowColumnAccess {
  const g = domain.structure.grid;
  if (!g || g.rows < 2 || g.cols < 2)
    throw new MechError(
      'not-applicable',
      `windowed planar Laplace columns need a grid with at least 2 rows and 2 columns, got ${domain.spec}`,
    );
  const R = g.rows;
  const C = g.cols;
  const t = buildPlanarOffsetTables(R, C, g.metric, eps * g.step);
  const n = R * C;
  const K = Math.max(R, C);
  const at = new Float64Array(K);
  const put = (a: number, b: number, v: number) => {
    const k = Math.max(a, b);
    if (v > at[k]!) at[k] = v;
  };
  if (t.kind === 'factorised') {
    // entries pr[a] * pc[b]: bound max(a, b) = k by max(PR[k] * maxPC, maxPR * PC[k])
    const PR = new Float64Array(K);
    const PC = new Float64Array(K);
    let mR = 0;
    let mC = 0;
    for (let a = 0; a < R; a++) {
      PR[a] = Math.max(t.rowCell![a]!, t.rowTailP![a]!);
      mR = Math.max(mR, PR[a]!);
    }
    for (let b = 0; b < C; b++) {
      PC[b] = Math.max(t.colCell![b]!, t.colTailP![b]!);
      mC = Math.max(mC, PC[b]!);
    }
    for (let k = 0; k < K; k++) at[k] = Math.max(PR[k]! * mC, mR * PC[k]!) * (1 + 1e-15);
  } else {
    for (let a = 0; a < R; a++)
      for (let b = 0; b < C; b++) {
        put(a, b, t.cell![a * C + b]!);
        put(a, b, t.rowTail![a * C + b]!);
        put(a, b, t.quad![a * C + b]!);
      }
    for (let tc = 0; tc < C; tc++) for (let a = 0; a < R; a++) put(a, tc, t.colTail![tc * R + a]!);
  }
  const suf = suffixMax(at);
  const kind = (L: number, p: number, q: number): number => {
    if (q === 0) return -(p + 1);
    if (q === L - 1) return -(L - 1 - p + 1);
    return Math.abs(q - p);
  };
  const fill = (y: number, r0: number, r1: number, c0: number, c1: number, out: Float64Array): Float64Array => {
    const q = Math.floor(y / C);
    const s = y - q * C;
    let i = 0;
    for (let r = r0; r <= r1; r++) {
      const kr = kind(R, r, q);
      for (let c = c0; c <= c1; c++, i++) {
        const kc = kind(C, c, s);
        if (t.kind === 'factorised') {
          const pr = kr >= 0 ? t.rowCell![kr]! : t.rowTailP![-kr - 1]!;
          const pc = kc >= 0 ? t.colCell![kc]! : t.colTailP![-kc - 1]!;
          out[i] = pr * pc;
        } else if (kr >= 0) {
          out[i] = kc >= 0 ? t.cell![kr * C + kc]! : t.colTail![(-kc - 1) * R + kr]!;
        } else {
          const tr = -kr - 1;
          out[i] = kc >= 0 ? t.rowTail![tr * C + kc]! : t.quad![tr * C + (-kc - 1)]!;
        }
      }
    }
    return out;
  };
  return {
    rows: n,
    cols: n,
    gridRows: R,
    gridCols: C,
    column: (y, out) => fill(y, 0, R - 1, 0, C - 1, out),
    columnWindow: fill,
    outsideMax: (_y, rho) => (rho + 1 >= K ? 0 : suf[Math.max(0, rho + 1)]!),
  };
}

/** The implicit tight-constraints channel on a 2-D lattice, with windowed columns. */
export function tightWindows(ch: ImplicitTightChannel): WindowColumnAccess | null {
  const lat = ch.op.lattice;
  if (!lat || lat.op.n1 < 2) return null;
  const op = lat.op;
  const R = op.n1;
  const C = op.n2;
  const z = ch.z;
  const K = Math.max(R, C);
  const at = new Float64Array(K);
  for (let a = -(R - 1); a < R; a++)
    for (let b = -(C - 1); b < C; b++) {
      const k = Math.max(Math.abs(a), Math.abs(b));
      const v = op.kernelAt(a, b);
      if (v > at[k]!) at[k] = v;
    }
  const suf = suffixMax(at);
  const fill = (y: number, r0: number, r1: number, c0: number, c1: number, out: Float64Array): Float64Array => {
    const r = Math.floor(y / C);
    const c = y - r * C;
    const zy = z[y]!;
    let i = 0;
    for (let r2 = r0; r2 <= r1; r2++) for (let c2 = c0; c2 <= c1; c2++, i++) out[i] = op.kernelAt(r - r2, c - c2) * zy;
    return out;
  };
  return {
    rows: ch.rows,
    cols: ch.cols,
    gridRows: R,
    gridCols: C,
    column: (y, out) => fill(y, 0, R - 1, 0, C - 1, out),
    columnWindow: fill,
    outsideMax: (y, rho) => (rho + 1 >= K ? 0 : suf[Math.max(0, rho + 1)]! * z[y]! * (1 + 1e-15)),
  };
}
