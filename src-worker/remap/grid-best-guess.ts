import { MechError } from '../../src-shared/errors';
import type { Domain, GridMetric } from '../metric/domain';

/**
 * Certified best guess for a distance loss on a grid (loss l(w, x) =
 * d(w, x)^p, p = 1 "dist" or 2 "dist2", guesses = the grid's cells) against
 * a weight vector q >= 0 over the cells (an unnormalised posterior column):
 *
 *   w* = argmin_w f(w),  f(w) = sum_x q(x) l(w, x)   (ties: smallest index).
 *
 * A full scan costs O(n) per guess, O(n^2) per column. Here only a few
 * guesses are evaluated, and the rest are excluded by a proof:
 *
 * Convexity. The grid metric is a norm (Euclidean, Manhattan, Chebyshev)
 * times the cell size, so v -> ||v||^p (p >= 1) is convex on R^2 and f,
 * extended to real positions w, is convex. At any evaluated cell v, a
 * subgradient g_v of f gives the cut f(w) >= f(v) + g_v . (w - v) for every
 * w. With U the smallest value found so far, every cell outside
 *
 *   P = { w : f(v) + g_v . (w - v) <= U + tol  for all evaluated v }
 *
 * has f(w) > U and cannot be optimal. The search evaluates (steepest descent
 * over the 8 neighbours from the cell nearest the posterior mean, then) every
 * unevaluated cell of P, adds their cuts, and stops when every cell of P has
 * been evaluated: the minimum over the evaluated cells is then the minimum
 * over the grid — a certificate, not a heuristic. `tol` (1e-9 relative to the
 * magnitudes involved, far above the rounding of the sums) only ever keeps
 * extra cells, so cells whose computed value ties the minimum are evaluated
 * too and the smallest index wins, as in a full scan.
 *
 * Subgradients of l(., x) at w, v = w - x (in cells, distances times step s):
 * Euclidean p = 1: s v/|v| (0 at v = 0, inside the unit ball); Manhattan:
 * s sign(v) componentwise; Chebyshev: s sign(v_k) e_k on the larger |v_k|
 * (rows on ties: one element of the subdifferential); p = 2: 2 d(w,x) times
 * the p = 1 subgradient.
 *
 * Values are summed over x in index order with zero weights skipped, with
 * the distances of domain.distance: bit for bit the sum of the full scan in
 * measure/distance-loss.ts, so the chosen guess and its value agree exactly
 * with the existing optimal-remap measure.
 */
export class GridBestGuess {
  readonly rows: number;
  readonly cols: number;
  readonly n: number;
  readonly power: 1 | 2;
  readonly metric: GridMetric;
  /** l at offset (|dr|, |dc|): index |dr| * cols + |dc|. */
  private readonly lossAt: Float64Array;
  /** Subgradient components of l at offset (|dr|, |dc|) with both components >= 0 (reflected by sign). */
  private readonly gradR: Float64Array;
  private readonly gradC: Float64Array;
  /** Bound on |g|_2 / sum(q) over the grid (for the tolerance of cuts). */
  private readonly gradScale: number;
  private readonly stamp: Int32Array;
  private epoch = 0;
  private tolBuf: number[] = [];
  /** Counters over all calls. */
  evaluations = 0;
  calls = 0;
  maxEvaluations = 0;

  constructor(domain: Domain, power: 1 | 2) {
    const g = domain.structure.grid;
    if (!g || g.rows * g.cols !== domain.n)
      throw new MechError('not-applicable', `certified grid guesses need a grid domain, got ${domain.spec}`);
    if (power !== 1 && power !== 2)
      throw new MechError('invalid-input', `distance loss power must be 1 or 2, got ${String(power)}`);
    this.rows = g.rows;
    this.cols = g.cols;
    this.n = domain.n;
    this.power = power;
    this.metric = g.metric;
    const R = g.rows;
    const C = g.cols;
    const s = g.step;
    this.lossAt = new Float64Array(R * C);
    this.gradR = new Float64Array(R * C);
    this.gradC = new Float64Array(R * C);
    let dmax = 0;
    for (let a = 0; a < R; a++)
      for (let b = 0; b < C; b++) {
        const d = domain.distance(0, a * C + b); // same expression as the scan's table
        dmax = Math.max(dmax, d);
        const k = a * C + b;
        this.lossAt[k] = power === 1 ? d : d * d;
        let gr = 0;
        let gc = 0;
        if (a !== 0 || b !== 0) {
          if (g.metric === 'euclidean') {
            const h = Math.hypot(a, b);
            gr = (s * a) / h;
            gc = (s * b) / h;
          } else if (g.metric === 'manhattan') {
            gr = a > 0 ? s : 0;
            gc = b > 0 ? s : 0;
          } else if (a >= b) gr = s;
          else gc = s;
          if (power === 2) {
            gr *= 2 * d;
            gc *= 2 * d;
          }
        }
        this.gradR[k] = gr;
        this.gradC[k] = gc;
      }
    this.gradScale = Math.SQRT2 * s * (power === 2 ? 2 * dmax : 1);
    this.stamp = new Int32Array(R * C);
  }

  /** The certified best guess against q (length n, >= 0) and its value f(w) (bit for bit the scan's). */
  best(q: Float64Array): { w: number; value: number; evaluated: number } {
    const r = this.bestIn(q, 0, this.rows - 1, 0, this.cols - 1, 0);
    return { w: r.w, value: r.value, evaluated: r.evaluated };
  }

  /** Largest loss from cell w to any cell of the grid (the far corner). */
  maxLossFrom(w: number): number {
    const C = this.cols;
    const wr = Math.floor(w / C);
    const wc = w - wr * C;
    return this.lossAt[Math.max(wr, this.rows - 1 - wr) * C + Math.max(wc, C - 1 - wc)]!;
  }

  /** Loss at offset (dr, dc) (the scan's value). */
  lossAtOffset(dr: number, dc: number): number {
    return this.lossAt[Math.abs(dr) * this.cols + Math.abs(dc)]!;
  }

  /**
   * Best guess when q is known only on the window rows r0..r1, columns
   * c0..c1 (qWin row-major over the window) and the weight outside the
   * window totals at most `outside` (>= 0). With near(w) = the sum over the
   * window, f(w) lies in [near(w), near(w) + outside * maxLoss(w)]. Cuts on
   * the convex near(.) exclude cells whose lower bound exceeds the best
   * upper bound; the guess is certified when every other candidate's lower
   * bound exceeds its upper bound. With outside = 0 (the window is the grid)
   * near = f exactly and ties go to the smallest index, as in a full scan.
   * `value` is near(w); the true f(w) is within [value, value + slack].
   */
  bestIn(
    qWin: Float64Array,
    r0: number,
    r1: number,
    c0: number,
    c1: number,
    outside: number,
  ): { w: number; value: number; slack: number; certified: boolean; evaluated: number } {
    const R = this.rows;
    const C = this.cols;
    const W = c1 - c0 + 1;
    this.calls++;
    let S = 0;
    let mr = 0;
    let mc = 0;
    for (let xr = r0, i = 0; xr <= r1; xr++)
      for (let xc = c0; xc <= c1; xc++, i++) {
        const v = qWin[i]!;
        S += v;
        mr += v * xr;
        mc += v * xc;
      }
    if (!(S > 0)) {
      // Every guess scores 0 inside the window: exact (the scan keeps the first) only when nothing is outside.
      return { w: 0, value: 0, slack: outside * this.maxLossFrom(0), certified: outside === 0, evaluated: 0 };
    }
    if (++this.epoch >= 0x7fffffff) {
      this.stamp.fill(0);
      this.epoch = 1;
    }
    const ep = this.epoch;
    const stamp = this.stamp;
    const res = new Float64Array(3);
    const tolOf = this.tolBuf;
    const idx: number[] = [];
    const fv: number[] = [];
    const gvr: number[] = [];
    const gvc: number[] = [];
    let bestW = -1;
    let bestF = Infinity;
    let upper = Infinity; // min over evaluated v of near(v) + outside * maxLoss(v) >= min f
    const visit = (w: number): void => {
      stamp[w] = ep;
      evaluateWindow(qWin, w, r0, r1, c0, c1, C, this.lossAt, this.gradR, this.gradC, res);
      this.evaluations++;
      idx.push(w);
      fv.push(res[0]!);
      gvr.push(res[1]!);
      gvc.push(res[2]!);
      if (res[0]! < bestF || (res[0]! === bestF && w < bestW)) {
        bestF = res[0]!;
        bestW = w;
      }
      const up = outside > 0 ? res[0]! + outside * this.maxLossFrom(w) : res[0]!;
      if (up < upper) upper = up;
    };
    // Cutting planes: evaluate the unevaluated cell of P nearest the best cell so far,
    // until every cell of P has been evaluated (the first is the cell nearest the posterior mean).
    visit(Math.min(R - 1, Math.max(0, Math.round(mr / S))) * C + Math.min(C - 1, Math.max(0, Math.round(mc / S))));
    // A slack that is not small against the values cannot certify anything: give up at once (the caller widens the
    // window).
    // giving up: the best cell so far, with the slack the cells outside the window leave
    const uncertified = () => ({
      w: bestW,
      value: bestF,
      slack: outside * this.maxLossFrom(bestW),
      certified: false,
      evaluated: idx.length,
    });
    if (outside > 0 && !(outside * this.maxLossFrom(bestW) <= 1e-6 * bestF)) return uncertified();
    const diam = Math.hypot(R, C);
    for (;;) {
      // With a slack, a long search means the window is too small: give up (the caller widens it).
      if (outside > 0 && idx.length > 64) return uncertified();
      const U = upper;
      const k = idx.length;
      const br = Math.floor(bestW / C);
      const bc = bestW - br * C;
      let next = -1;
      let nextD = Infinity;
      for (let t = 0; t < k; t++)
        tolOf[t] = 1e-9 * (Math.abs(U) + Math.abs(fv[t]!) + S * this.gradScale * diam) + 1e-300;
      // Rows of P: P's real slices are convex in r and the best cell's row is in P, so
      // scan outward from it in both directions and stop at the first empty slice
      // (or once rows are farther than the nearest candidate found).
      for (let dir = 1; dir >= -1; dir -= 2) {
        for (let r = dir === 1 ? br : br - 1; r >= 0 && r < R; r += dir) {
          const dr2 = (r - br) * (r - br);
          if (dr2 >= nextD) break;
          let lo = 0;
          let hi = C - 1;
          for (let t = 0; t < k && lo <= hi; t++) {
            const vr = Math.floor(idx[t]! / C);
            const vc = idx[t]! - vr * C;
            const gr = gvr[t]!;
            const gc = gvc[t]!;
            // near_v + gr (r - vr) + gc (c - vc) <= U + tol  <=>  gc * c <= rhs
            const rhs = U + tolOf[t]! - fv[t]! - gr * (r - vr) + gc * vc;
            if (gc > 0) {
              const bnd = rhs / gc + 1e-7;
              if (bnd < hi) hi = bnd;
            } else if (gc < 0) {
              const bnd = rhs / gc - 1e-7;
              if (bnd > lo) lo = bnd;
            } else if (rhs < 0) hi = lo - 1;
          }
          if (lo > hi) break; // the real slice is empty: so are all rows beyond
          const ilo = Math.ceil(lo);
          const ihi = Math.floor(hi);
          if (ilo > ihi) continue;
          // nearest unevaluated cell of [ilo, ihi] in this row to column bc
          const c0r = Math.min(ihi, Math.max(ilo, bc));
          const off = Math.abs(c0r - bc);
          for (let s = 0; c0r - s >= ilo || c0r + s <= ihi; s++) {
            if (dr2 + (off + s) * (off + s) >= nextD) break;
            if (c0r - s >= ilo && stamp[r * C + c0r - s] !== ep) {
              const d2 = dr2 + (c0r - s - bc) * (c0r - s - bc);
              if (d2 < nextD) {
                nextD = d2;
                next = r * C + c0r - s;
              }
            }
            if (c0r + s <= ihi && stamp[r * C + c0r + s] !== ep) {
              const d2 = dr2 + (c0r + s - bc) * (c0r + s - bc);
              if (d2 < nextD) {
                nextD = d2;
                next = r * C + c0r + s;
              }
            }
          }
        }
      }
      if (next < 0) break;
      visit(next);
    }
    if (idx.length > this.maxEvaluations) this.maxEvaluations = idx.length;
    let certified = true;
    const slack = outside > 0 ? outside * this.maxLossFrom(bestW) : 0;
    if (outside > 0) {
      const bar = bestF + slack;
      for (let t = 0; t < idx.length; t++) {
        if (idx[t] === bestW) continue;
        if (!(fv[t]! > bar * (1 + 1e-12) + 1e-300)) {
          certified = false;
          break;
        }
      }
    }
    void W;
    return { w: bestW, value: bestF, slack, certified, evaluated: idx.length };
  }
}

/**
 * near(w) = sum over the window of q(x) l(w, x) in index order (zero weights
 * skipped) and a subgradient of near at w, into res = [near, g_row, g_col].
 */
function evaluateWindow(
  q: Float64Array,
  w: number,
  r0: number,
  r1: number,
  c0: number,
  c1: number,
  C: number,
  L: Float64Array,
  GR: Float64Array,
  GC: Float64Array,
  res: Float64Array,
): void {
  const wr = Math.floor(w / C);
  const wc = w - wr * C;
  let f = 0;
  let gr = 0;
  let gc = 0;
  const split = Math.min(wc, c1); // columns xc <= wc have b = wc - xc >= 0
  for (let xr = r0, base = 0; xr <= r1; xr++, base += c1 - c0 + 1) {
    const a = wr - xr;
    const o = (a < 0 ? -a : a) * C;
    let rowR = 0;
    let colPos = 0;
    let colNeg = 0;
    // f is summed in index order (bit-for-bit the full scan); the subgradient's order does not matter.
    for (let xc = c0; xc <= c1; xc++) {
      const qx = q[base + xc - c0]!;
      if (qx === 0) continue;
      const left = xc <= split;
      const k = o + (left ? wc - xc : xc - wc);
      f += qx * L[k]!;
      rowR += qx * GR[k]!;
      if (left) colPos += qx * GC[k]!;
      else colNeg += qx * GC[k]!;
    }
    gr += a < 0 ? -rowR : rowR;
    gc += colPos - colNeg;
  }
  res[0] = f;
  res[1] = gr;
  res[2] = gc;
}
