import type { PricingRows } from './pricing';
import { MinHeap } from '../../numeric/min-heap';

/**
 * The rows of the decomposition's pricing LPs (column-decomposition.ts):
 * which directed pair rows r_a <= f r_b a pricing model holds. Guarantee:
 * every row set built here is a subset of the model's rows, so the pricing
 * LP is a relaxation of the column polytope P and the Lagrangian bound
 * computed from it stays a valid lower bound (docs/lp.md, "The certified
 * lower bound and the gap"); lazily added rows only tighten the relaxation.
 */

/** Undirected constrained pairs of a decomposition with their row coefficient. */
export interface DecompositionPairs {
  from: Int32Array;
  to: Int32Array;
  /** e^(exponent), possibly capped: the coefficient in the pair rows. */
  factor: Float64Array;
}

/**
 * Pair rows with a larger factor are left out of the pricing LP: such rows
 * only ask r_b >= r_a / f (<= e^-12), and leaving them out makes the pricing
 * LP a relaxation of P, so the bound stays a lower bound; the columns are
 * lifted into P (ColumnLifter) before they enter the master, so the master's
 * channel is private on every pair (the capped factors included).
 */
export const MAX_PRICING_FACTOR = Math.exp(18);
/**
 * Lazy (all-pairs) pricing starts with rows up to this factor, and admits
 * rows up to MAX_PRICING_FACTOR only once the loop stalls above its target
 * (e^18 from the start: on the 20 x 20 city, all pairs, the far rows' duals were so
 * inexact that ~190 pricing solves per round failed their safe-bound check and
 * the bound stalled at a 30% gap for 17 rounds; at e^6 no cold re-solve was
 * needed and the gap fell to 17.5% in 7 rounds; a looser relaxation near the
 * optimum, hence the second stage: 7x7 at eps 2.5 stalls at 3.8e-6 with e^12 alone).
 */
export const LAZY_START_FACTOR = Math.exp(12);

/** Lazy rows added per output and round: the most violated ones (one model shared by every output). */
export const LAZY_ROWS_PER_OUTPUT = 16;
/**
 * ... when each group of outputs has its own model (pricing.ts PricingGroups): an output no longer gains the
 * rows other outputs found, so it takes more of its own. 20 x 20 city, all pairs, eps 1, 2 threads, groups of 2:
 * 1% gap at 100 / 78 / 65 s and 1e-6 at 153 / 132 s / not (stalled at 1.4e-6) with 16 / 32 / 64.
 */
export const LAZY_ROWS_PER_GROUPED_OUTPUT = 32;

export const toRows = (o: { from: number[]; to: number[]; factor: number[] }): PricingRows => ({
  from: Int32Array.from(o.from),
  to: Int32Array.from(o.to),
  factor: Float64Array.from(o.factor),
});

function rowsOf(pairs: DecompositionPairs, keep: (e: number) => boolean): PricingRows {
  let k = 0;
  for (let e = 0; e < pairs.from.length; e++) if (keep(e)) k++;
  const from = new Int32Array(2 * k);
  const to = new Int32Array(2 * k);
  const factor = new Float64Array(2 * k);
  let i = 0;
  for (let e = 0; e < pairs.from.length; e++) {
    if (!keep(e)) continue;
    const a = pairs.from[e]!;
    const b = pairs.to[e]!;
    const f = pairs.factor[e]!;
    from[i] = a;
    to[i] = b;
    factor[i] = f;
    i++;
    from[i] = b;
    to[i] = a;
    factor[i] = f;
    i++;
  }
  return { from, to, factor };
}

/**
 * The rows a pricing model starts from: all pairs (factor <= e^18), or with
 * lazy rows ('auto': more than 8 pairs per secret) for each secret its
 * shortest pairs (log factor within 1.5x of its shortest: the 8-neighbours
 * on a grid), with a flag per directed pair row (2e, 2e + 1) held.
 */
export function pricingSeed(
  n: number,
  pairs: DecompositionPairs,
  mode: 'all' | 'lazy' | 'auto',
  extra?: { from: Int32Array; to: Int32Array },
  lazyMaxFactor = MAX_PRICING_FACTOR,
): { rows: PricingRows; inPricing: Uint8Array | null } {
  const P = pairs.from.length;
  const lazy = mode === 'lazy' || (mode === 'auto' && P > 8 * n);
  let keep: (e: number) => boolean = (e) => pairs.factor[e]! <= MAX_PRICING_FACTOR;
  if (lazy) {
    let chosen: Uint8Array | null = null;
    if (extra && n * n <= 1 << 26) {
      // Mark the extra pairs: index of each pair of `pairs` by (a, b).
      const index = new Int32Array(n * n).fill(-1);
      for (let e = 0; e < P; e++) {
        index[pairs.from[e]! * n + pairs.to[e]!] = e;
        index[pairs.to[e]! * n + pairs.from[e]!] = e;
      }
      chosen = new Uint8Array(P);
      for (let k = 0; k < extra.from.length; k++) {
        const e = index[extra.from[k]! * n + extra.to[k]!]!;
        if (e >= 0) chosen[e] = 1;
      }
    }
    const minLog = new Float64Array(n).fill(Infinity);
    for (let e = 0; e < P; e++) {
      const l = Math.log(pairs.factor[e]!);
      const a = pairs.from[e]!;
      const b = pairs.to[e]!;
      if (l < minLog[a]!) minLog[a] = l;
      if (l < minLog[b]!) minLog[b] = l;
    }
    keep = (e) => {
      const f = pairs.factor[e]!;
      if (f > lazyMaxFactor) return false;
      if (chosen?.[e]) return true;
      return Math.log(f) <= 1.5 * Math.max(minLog[pairs.from[e]!]!, minLog[pairs.to[e]!]!) * (1 + 1e-12);
    };
  }
  const inPricing = lazy ? new Uint8Array(2 * P) : null;
  if (inPricing) for (let e = 0; e < P; e++) if (keep(e)) inPricing[2 * e] = inPricing[2 * e + 1] = 1;
  return { rows: rowsOf(pairs, keep), inPricing };
}

/**
 * Directed pair rows (factor <= e^18) that r violates and the pricing model
 * does not hold yet (marked held in inPricing and appended to out).
 */
export function violatedRows(
  r: Float64Array,
  pairs: DecompositionPairs,
  inPricing: Uint8Array,
  out: { from: number[]; to: number[]; factor: number[] },
  limit = Infinity,
  maxFactor = MAX_PRICING_FACTOR,
): void {
  const P = pairs.from.length;
  const { from, to, factor } = pairs;
  // Candidates: directed row index 2e or 2e + 1 and its relative violation; the `limit` most violated are kept in a
  // min-heap by violation (a sort of every candidate, as objects, took 4 of a round's 12 s of row checks on 30 x 30).
  const heap = new MinHeap(Math.min(limit, 1024));
  let found = 0;
  const offer = (k: number, v: number): void => {
    found++;
    if (heap.size < limit) heap.push(v, k);
    else if (v > heap.topKey()) {
      heap.pop();
      heap.push(v, k);
    }
  };
  for (let e = 0; e < P; e++) {
    const f = factor[e]!;
    if (f > maxFactor) continue;
    const ra = r[from[e]!]!;
    const rb = r[to[e]!]!;
    if (ra > f * rb * (1 + 1e-9) + 1e-12) {
      if (!inPricing[2 * e]) offer(2 * e, (ra - f * rb) / ra);
    } else if (rb > f * ra * (1 + 1e-9) + 1e-12 && !inPricing[2 * e + 1]) offer(2 * e + 1, (rb - f * ra) / rb);
  }
  // The most violated first (in pair order when all are taken), at most `limit` (the others are usually implied by
  // them).
  const chosen = new Int32Array(heap.size);
  for (let i = chosen.length - 1; i >= 0; i--) chosen[i] = heap.pop();
  if (found <= limit) chosen.sort();
  for (let i = 0; i < chosen.length; i++) {
    const k = chosen[i]!;
    const e = k >> 1;
    inPricing[k] = 1;
    const a = k & 1 ? pairs.to[e]! : pairs.from[e]!;
    const b = k & 1 ? pairs.from[e]! : pairs.to[e]!;
    out.from.push(a);
    out.to.push(b);
    out.factor.push(pairs.factor[e]!);
  }
}
