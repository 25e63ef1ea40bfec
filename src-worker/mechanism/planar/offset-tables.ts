import type { GridMetric } from '../../metric/domain';
import { normLaplaceRegion } from './norm-laplace-region';

/**
 * Translation-invariant probabilities of planar Laplace snapped to an R x C
 * grid (SPEC §2), computed once per (grid, metric, e = eps * step). Units:
 * cells. The true point sits at the origin; output cell offsets are
 * (a, b) along (rows, columns). The densities are symmetric under both
 * reflections and under swapping the axes, so every region reduces to one
 * of these, all with non-negative arguments:
 *
 *   cell(a, b)   [a-1/2, a+1/2] x [b-1/2, b+1/2]           a < R, b < C
 *   rowTail(t,b) [t-1/2, inf)   x [b-1/2, b+1/2]           t < R, b < C
 *   colTail(t,a) [a-1/2, a+1/2] x [t-1/2, inf)             t < C, a < R
 *   quad(t1,t2)  [t1-1/2, inf)  x [t2-1/2, inf)            t1 < R, t2 < C
 *
 * A border output cell absorbs the unbounded region beyond it: the first
 * and last rows/columns are tails (t = distance of the true cell to that
 * border), corner cells are quadrants. Only the cells and R + 2C
 * "beyond the grid" regions are integrated; tails and quadrants are then
 * sums of positive terms (rowTail(t,b) = rowTail(t+1,b) + cell(t,b), ...),
 * so no accuracy is lost to cancellation. Degenerate grids (one row or one
 * column) use full-line strips instead (integrated directly).
 */
export interface PlanarOffsetTables {
  rows: number;
  cols: number;
  /** 1-D tables along rows and columns (Manhattan: the density factorises). */
  kind: 'factorised' | 'tables';
  // 'tables'
  cell?: Float64Array; // [a * C + b]
  rowTail?: Float64Array; // [t * C + b]
  colTail?: Float64Array; // [t * R + a]
  quad?: Float64Array; // [t1 * C + t2]
  /** One row (R = 1): fullCell[b] = line x [b-1/2,b+1/2], fullTail[t] = line x [t-1/2, inf). One column likewise. */
  fullCell?: Float64Array;
  fullTail?: Float64Array;
  // 'factorised': probability of each 1-D interval type along rows / columns
  rowCell?: Float64Array; // [a], a < R
  rowTailP?: Float64Array; // [t], t < R
  colCell?: Float64Array;
  colTailP?: Float64Array;
  integrations: number;
}

/**
 * 1-D Laplace (density (e/2) exp(-e |x|)) probabilities, closed form:
 *   cell a = 0:  1 - e^(-e/2);  a >= 1: e^(-e(a-1/2)) (1 - e^-e) / 2
 *   tail t = 0:  1 - e^(-e/2)/2; t >= 1: e^(-e(t-1/2)) / 2
 */
export function laplace1d(e: number, n: number): { cell: Float64Array; tail: Float64Array } {
  const cell = new Float64Array(n);
  const tail = new Float64Array(n);
  const oneMinus = -Math.expm1(-e);
  for (let a = 0; a < n; a++) {
    cell[a] = a === 0 ? -Math.expm1(-e / 2) : 0.5 * Math.exp(-e * (a - 0.5)) * oneMinus;
    tail[a] = a === 0 ? 1 - 0.5 * Math.exp(-e / 2) : 0.5 * Math.exp(-e * (a - 0.5));
  }
  return { cell, tail };
}

/** Index strides of a table read or written as (t, j): entry t * t-stride + j * j-stride. */
interface Strides {
  t: number;
  j: number;
}

/**
 * The tail sums the tables are made of: for each j < J, dst(t, j) = start(j) + sum_{k=t}^{T-1} src(k, j),
 * summed from k = T-1 down (one region integral start(j) per j). dst has J * T entries.
 */
function tailSums(
  J: number,
  T: number,
  start: (j: number) => number,
  src: Float64Array,
  from: Strides,
  to: Strides,
): Float64Array {
  const dst = new Float64Array(J * T);
  for (let j = 0; j < J; j++) {
    let s = start(j);
    for (let t = T - 1; t >= 0; t--) {
      s += src[t * from.t + j * from.j]!;
      dst[t * to.t + j * to.j] = s;
    }
  }
  return dst;
}

export function buildPlanarOffsetTables(rows: number, cols: number, metric: GridMetric, e: number): PlanarOffsetTables {
  const R = rows;
  const C = cols;
  if (metric === 'manhattan') {
    // Density (e^2/4) exp(-e(|x|+|y|)) = product of two 1-D Laplace densities: exact closed forms.
    const r = laplace1d(e, R);
    const c = laplace1d(e, C);
    return {
      rows: R,
      cols: C,
      kind: 'factorised',
      rowCell: r.cell,
      rowTailP: r.tail,
      colCell: c.cell,
      colTailP: c.tail,
      integrations: 0,
    };
  }
  const I = Infinity;
  const region = (x0: number, x1: number, y0: number, y1: number) => normLaplaceRegion(metric, e, x0, x1, y0, y1);
  let integrations = 0;
  if (R === 1 || C === 1) {
    const L = R === 1 ? C : R;
    const fullCell = new Float64Array(L);
    const fullTail = new Float64Array(L);
    for (let b = 0; b < L; b++) {
      fullCell[b] = region(-I, I, b - 0.5, b + 0.5);
      fullTail[b] = region(-I, I, b - 0.5, I);
      integrations += 2;
    }
    return { rows: R, cols: C, kind: 'tables', fullCell, fullTail, integrations };
  }
  const cell = new Float64Array(R * C);
  for (let a = 0; a < R; a++)
    for (let b = 0; b < C; b++) {
      // Swap symmetry: cell(a, b) = cell(b, a).
      if (b < a && b < R && a < C) {
        cell[a * C + b] = cell[b * C + a]!;
        continue;
      }
      cell[a * C + b] = region(a - 0.5, a + 0.5, b - 0.5, b + 0.5);
      integrations++;
    }
  // rowTail(t, b) = [R-1/2, inf) x cell b  +  sum_{k=t}^{R-1} cell(k, b)
  const rowTail = tailSums(C, R, (b) => region(R - 0.5, I, b - 0.5, b + 0.5), cell, { t: C, j: 1 }, { t: C, j: 1 });
  // colTail(t, a) = cell a x [C-1/2, inf)  +  sum_{k=t}^{C-1} cell(a, k)
  const colTail = tailSums(R, C, (a) => region(a - 0.5, a + 0.5, C - 0.5, I), cell, { t: 1, j: C }, { t: R, j: 1 });
  // quad(t1, t2) = [R-1/2, inf) x [t2-1/2, inf)  +  sum_{k=t1}^{R-1} colTail(t2, k)
  const quad = tailSums(C, R, (t2) => region(R - 0.5, I, t2 - 0.5, I), colTail, { t: 1, j: R }, { t: C, j: 1 });
  integrations += C + R + C;
  return { rows: R, cols: C, kind: 'tables', cell, rowTail, colTail, quad, integrations };
}
