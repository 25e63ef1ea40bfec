/**
 * The numbers exact pricing (exact-pricing.ts) reads and certifies with: the factors of an exact model or of a
 * graph's closure, and the certificate's bound from any flows.
 */
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
 * Secrets up to which the decomposition prices exactly (its n x n factors: 134 MB at 4,096, shared by the pricing
 * threads).
 */
export const EXACT_PRICING_MAX_SECRETS = 4096;
