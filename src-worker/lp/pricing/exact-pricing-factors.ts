/**
 * The numbers exact pricing (exact-pricing.ts) reads and certifies with: the factors of an exact model or of a
 * graph's closure, and the certificate's bound from any flows.
 */
import { MechError } from '../../../src-shared/errors';
import { weightedAllPairs } from '../../metric/shortest-paths';

/**
 * min(0, v + A' mu) summed, for multipliers mu_ab = g_ab y on the rows r_a <= f_ab r_b (y clipped at 0): a valid lower
 * bound for any y.
 */
export function certificateBound(
  v: Float64Array,
  g: (a: number, b: number) => number,
  a: Int32Array,
  b: Int32Array,
  y: Float64Array,
): number {
  const d = Float64Array.from(v);
  for (let k = 0; k < y.length; k++) {
    const f = y[k]!;
    if (!(f > 0)) continue;
    d[a[k]!]! += g(a[k]!, b[k]!) * f;
    d[b[k]!]! -= f;
  }
  let s = 0;
  for (let x = 0; x < d.length; x++) if (d[x]! < 0) s += d[x]!;
  return s;
}

/**
 * The pricing factors of an exact model, G[a*n + b] = e^(-exponent) on every constrained pair (both directions),
 * 1 on the diagonal, 0 where no pair constrains (an infinite distance), in shared memory so that pricing threads
 * read one copy.
 */
export function exactPricingFactors(n: number, from: Int32Array, to: Int32Array, exponent: Float64Array): Float64Array {
  const G = new Float64Array(new SharedArrayBuffer(8 * n * n));
  for (let x = 0; x < n; x++) G[x * n + x] = 1;
  for (let e = 0; e < from.length; e++) {
    const a = from[e]!;
    const b = to[e]!;
    const g = Math.exp(-exponent[e]!);
    G[a * n + b] = g;
    G[b * n + a] = g;
  }
  return G;
}

/**
 * The factors of a spanner's or an edge graph's polytope for exact pricing: the shortest-path closure of its edge
 * exponents (the same polytope: every closure row is implied by a path of edge rows), G = e^(-closure).
 */
export function closurePricingFactors(
  n: number,
  from: Int32Array,
  to: Int32Array,
  exponent: Float64Array,
): Float64Array {
  const D = weightedAllPairs(n, { from, to, weight: exponent }, 'exact pricing factors');
  const G = new Float64Array(new SharedArrayBuffer(8 * n * n));
  for (let i = 0; i < n * n; i++) G[i] = Math.exp(-D[i]!);
  return G;
}

/**
 * The factors 1/f_ab exact pricing reads (symmetric, 1 on the diagonal, ln(1/g) a metric): a dense n x n table, or a
 * grid's table by offset (n entries instead of n^2, for grids beyond EXACT_PRICING_MAX_SECRETS).
 */
export interface PricingFactors {
  readonly n: number;
  at(a: number, b: number): number;
  /** out[o + j] = g(a, idx[from + j]) for j < count. */
  gather(a: number, idx: Int32Array, from: number, count: number, out: Float64Array, o: number): void;
}

/** A dense table G[a*n + b] as pricing factors. */
export class DenseFactors implements PricingFactors {
  constructor(
    readonly n: number,
    readonly G: Float64Array,
  ) {}
  at(a: number, b: number): number {
    return this.G[a * this.n + b]!;
  }
  gather(a: number, idx: Int32Array, from: number, count: number, out: Float64Array, o: number): void {
    const { G } = this;
    const row = a * this.n;
    for (let j = 0; j < count; j++) out[o + j] = G[row + idx[from + j]!]!;
  }
}

/**
 * The factors of a grid whose distance depends on the offset alone (every grid metric): g(a, b) = T[|dr| cols + |dc|]
 * with T = e^(-eps d(offset)). 80 kB on 100 x 100 where the dense table takes 800 MB.
 */
export class GridFactors implements PricingFactors {
  readonly n: number;
  private readonly row: Int32Array;
  private readonly col: Int32Array;

  constructor(
    readonly rows: number,
    readonly cols: number,
    readonly T: Float64Array,
  ) {
    if (T.length !== rows * cols)
      throw new MechError('internal', `grid pricing factors: ${rows} x ${cols} offsets need ${rows * cols} entries`);
    this.n = rows * cols;
    this.row = new Int32Array(this.n);
    this.col = new Int32Array(this.n);
    for (let x = 0; x < this.n; x++) {
      this.row[x] = Math.floor(x / cols);
      this.col[x] = x % cols;
    }
  }
  at(a: number, b: number): number {
    return this.T[Math.abs(this.row[a]! - this.row[b]!) * this.cols + Math.abs(this.col[a]! - this.col[b]!)]!;
  }
  gather(a: number, idx: Int32Array, from: number, count: number, out: Float64Array, o: number): void {
    const { T, row, col, cols } = this;
    const ra = row[a]!;
    const ca = col[a]!;
    for (let j = 0; j < count; j++) {
      const b = idx[from + j]!;
      out[o + j] = T[Math.abs(ra - row[b]!) * cols + Math.abs(ca - col[b]!)]!;
    }
  }
}

/** The grid factors for eps d, d(dr, dc) the grid's distance of an offset. */
export function gridPricingFactors(
  rows: number,
  cols: number,
  eps: number,
  offset: (dr: number, dc: number) => number,
): GridFactors {
  const T = new Float64Array(rows * cols);
  for (let dr = 0; dr < rows; dr++)
    for (let dc = 0; dc < cols; dc++) T[dr * cols + dc] = Math.exp(-eps * offset(dr, dc));
  return new GridFactors(rows, cols, T);
}

/**
 * Secrets up to which the decomposition prices exactly (its n x n factors: 134 MB at 4,096, shared by the pricing
 * threads).
 */
export const EXACT_PRICING_MAX_SECRETS = 4096;
