import type { Lifter } from '../model/privacy-repair';

/**
 * Plateau columns for the column decomposition, found without an LP.
 * Guarantee: every column returned is a point of the column polytope P (a
 * pointwise maximum of lifted indicators, each in P), so it may enter the
 * master as it is; the search is a heuristic and certifies nothing (the
 * bound comes from exact pricing only).
 */

/** Rounds with plateau columns only (no bound) between two rounds of exact pricing. */
export const PLATEAU_MAX_SKIP = 3;

/**
 * Plateau columns (see DecompositionOptions.plateau). G row s is
 * e^(-dist(., s)) along the pair graph (the lifted indicator of s, a point of
 * P); a plateau r_S = max over s in S of G[s] is in P too (P is closed under
 * pointwise max: r_a <= f r_b for each term).
 */
export class PlateauSearch {
  private readonly G: Float64Array;
  private readonly order: Int32Array;
  private readonly K: number;
  private readonly v: Float64Array;

  constructor(
    private readonly n: number,
    private readonly m: number,
    lifter: Lifter,
    candidates: number,
  ) {
    this.G = new Float64Array(n * n);
    for (let s = 0; s < n; s++) {
      const r = this.G.subarray(s * n, (s + 1) * n);
      r[s] = 1;
      lifter.lift(r);
    }
    this.K = Math.max(0, Math.min(candidates, n - 1));
    this.order = new Int32Array(m * this.K);
    const idx = Array.from({ length: n }, (_, i) => i);
    for (let w = 0; w < m; w++) {
      const row = this.G.subarray(w * n, (w + 1) * n);
      const near = idx.filter((s) => s !== w).sort((a, b) => row[b]! - row[a]!);
      for (let k = 0; k < this.K; k++) this.order[w * this.K + k] = near[k]!;
    }
    this.v = new Float64Array(n);
  }

  /** Plateau columns with reduced cost below `threshold` (< 0) at duals lam, costs c column-major. */
  columns(c: Float64Array, lam: Float64Array, threshold: number): { w: number; r: Float64Array }[] {
    const out: { w: number; r: Float64Array }[] = [];
    for (let w = 0; w < this.m; w++) {
      const r = this.column(w, c, lam, threshold);
      if (r) out.push({ w, r });
    }
    return out;
  }

  /** The plateau grown around output w at duals lam, when its reduced cost is below `threshold` (< 0); else null. */
  column(w: number, c: Float64Array, lam: Float64Array, threshold: number): Float64Array | null {
    const { n, G, K, order, v } = this;
    for (let x = 0; x < n; x++) v[x] = c[w * n + x]! - lam[x]!;
    if (v[w]! >= 0) return null; // r_S = 1 at w: only worth it where w's own entry pays
    const r = G.slice(w * n, (w + 1) * n);
    let val = 0;
    for (let x = 0; x < n; x++) val += v[x]! * r[x]!;
    for (let k = 0; k < K; k++) {
      const s = order[w * K + k]!;
      if (v[s]! >= 0) continue;
      const gs = s * n;
      let delta = 0;
      for (let x = 0; x < n; x++) {
        const d = G[gs + x]! - r[x]!;
        if (d > 0) delta += v[x]! * d;
      }
      if (delta < 0) {
        for (let x = 0; x < n; x++) if (G[gs + x]! > r[x]!) r[x] = G[gs + x]!;
        val += delta;
      }
    }
    return val < threshold ? r : null;
  }
}
