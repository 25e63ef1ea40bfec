/**
 * How the dense master (dense-simplex.ts) picks its pivots: the candidate list of its partial pricing (the columns of
 * most negative scaled reduced cost found by the last scan, priced again first in the next iterations) and Harris'
 * ratio test.
 */

/** Primal feasibility, pivot and optimality tolerances (the last on reduced costs scaled by the column norm). */
export const FEAS_TOL = 1e-9;
const PIVOT_TOL = 1e-9;
export const OPT_TOL = 1e-10;
/**
 * Columns kept from a scan, and the share of that scan's best score a candidate must still reach to enter. Measured
 * on 30 x 30 (the first 15 rounds of exact pricing, runs side by side): master 21.2 s against 46.6 s with a scan every
 * iteration, 64 / 0.25 11.5 s against 14.9 s for 32 / 0.5 (docs/lp-measurements.md, "The master").
 */
const CANDIDATES = 64;
export const CANDIDATE_KEEP = 0.25;

export class CandidateList {
  /** Column indices, sorted by score (most negative first), and their scores at the scan. */
  readonly cols = new Int32Array(CANDIDATES);
  readonly scores = new Float64Array(CANDIDATES);
  count = 0;
  /** The best score of the scan that filled the list. */
  best = 0;

  /** Column j's score at a scan: kept when negative and among the CANDIDATES best so far. */
  offer(j: number, score: number): void {
    const { cols, scores } = this;
    if (!(score < -OPT_TOL && (this.count < CANDIDATES || score < scores[this.count - 1]!))) return;
    // Insertion, kept sorted by score (ties keep the scan's order).
    let i = this.count < CANDIDATES ? this.count++ : this.count - 1;
    while (i > 0 && scores[i - 1]! > score) {
      cols[i] = cols[i - 1]!;
      scores[i] = scores[i - 1]!;
      i--;
    }
    cols[i] = j;
    scores[i] = score;
  }
}

/**
 * Harris' two-pass ratio test on the entering column's FTRAN alpha, the basic values xB and the basis heads (< 0: an
 * artificial); in phase 2 a basic artificial (fixed at 0) blocks at once whenever the entering column moves it.
 * Returns the leaving position or -1 (unbounded).
 */
export function ratioTest(alpha: Float64Array, xB: Float64Array, head: Int32Array, phase1: boolean): number {
  const n = xB.length;
  let amax = 0;
  for (let p = 0; p < n; p++) amax = Math.max(amax, Math.abs(alpha[p]!));
  const tol = Math.max(PIVOT_TOL, 1e-11 * amax);
  if (!phase1) {
    let best = -1;
    let bestA = tol;
    for (let p = 0; p < n; p++)
      if (head[p]! < 0 && Math.abs(alpha[p]!) > bestA) ((best = p), (bestA = Math.abs(alpha[p]!)));
    if (best >= 0) return best;
  }
  let tmax = Infinity;
  for (let p = 0; p < n; p++) {
    const a = alpha[p]!;
    if (a > tol) {
      const t = (Math.max(0, xB[p]!) + FEAS_TOL) / a;
      if (t < tmax) tmax = t;
    }
  }
  if (tmax === Infinity) return -1;
  let best = -1;
  let bestA = 0;
  for (let p = 0; p < n; p++) {
    const a = alpha[p]!;
    if (a > tol && Math.max(0, xB[p]!) / a <= tmax && a > bestA) {
      bestA = a;
      best = p;
    }
  }
  return best;
}
