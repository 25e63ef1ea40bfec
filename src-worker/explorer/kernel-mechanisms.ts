import { MechError, assertPositiveInt } from '../errors';
import { exactCombination, exactRank, ratioToNumber } from './exact-arithmetic';
import type { PosteriorVertices } from './posterior-vertices';
import { checkCancelled } from '../numeric/cancel';

/**
 * Kernel mechanisms (SPEC §6): sets of linearly independent private-posterior
 * vertices v_1..v_s (s <= n) with u = sum_k w_k v_k, all w_k > 0 (u the
 * uniform distribution). Each one is an n x s mechanism C[x][k] = w_k v_k[x] / u_x
 * whose posteriors under the uniform prior are exactly those vertices.
 *
 * Size: SPEC §6 does not fix s. Counting every size reproduces the SPEC §7
 * reference values (line, eps = ln 2, N = 2..5: 1, 2, 11, 187); counting only
 * s = n gives 1, 1, 8, 157, reported as `bySize[n]`. With u in general
 * position only s = n occurs; the smaller sets appear because u lies on
 * lower-dimensional simplices of vertices (e.g. line 3: u = (1,1,1)/3 lies on
 * the segment between the vertices (2,1,2)/5 and (1,2,1)/4). A kernel with
 * s < n vertices is a degenerate basic solution of the LP below.
 *
 * Search: vertex subsets in increasing index order, depth first, with an
 * incremental Gram-Schmidt basis of the chosen vertices. Pruning:
 *  - rank: a vertex in the span of the ones already chosen is skipped;
 *  - support of u: once u lies in the span of the chosen vertices, the chosen
 *    set is a kernel if the weights are positive, and every completion would
 *    give the added vertices weight 0, so the branch stops;
 *  - last vertex without a solve: with n - 1 vertices chosen, the normal h of
 *    their span gives the last weight w = h.u / h.v in O(n), and the others by
 *    one O(n^2) back substitution — no LP, no n x n factorisation per subset.
 * Decisions are made in floating point; any that falls in a grey band around
 * 0 (KERNEL_GREY, widened by an estimate of the float error of the chosen set)
 * is re-decided exactly with BigInt arithmetic when the vertices are exact,
 * else by KERNEL_FLOAT_TOL (with a warning when the set is ill-conditioned).
 *
 * Capacities come for free: over all eps*d-private channels, the
 * multiplicative capacity is n max sum_k w_k max(v_k) and the additive one
 * 1 - n min sum_k w_k min(v_k) over hyper-distributions of the uniform prior
 * with inners at vertices — a linear program whose optimum is attained at a
 * basic solution, i.e. at a kernel mechanism (its basic solutions are exactly
 * the kernels). Both are exact when the enumeration completes.
 */

/** Decisions closer to 0 than this (relative; wider for ill-conditioned sets) are re-checked exactly (exact vertices). */
export const KERNEL_GREY = 1e-7;
/** Float-only vertices: a weight must exceed this to count as positive, a residual to count as independent. */
export const KERNEL_FLOAT_TOL = 1e-9;
/** Safety factor on the float error estimate eps_mach * cond that widens the grey band. */
export const GREY_SAFETY = 1e4;
/** Default limit on the number of vertex subsets the search may have to examine. */
export const DEFAULT_MAX_SUBSETS = 50_000_000;

export interface KernelMechanism {
  /** Indices into the vertex list, increasing. */
  vertices: Int32Array;
  /** Positive weights, summing to 1: u = sum_k weights[k] v_{vertices[k]}. */
  weights: Float64Array;
}

export interface KernelProgress {
  examined: number;
  upperBound: number;
  found: number;
}

export interface KernelOptions {
  /** Return the mechanisms themselves (at most maxCollect of them). */
  collect?: boolean;
  maxCollect?: number;
  /** Refuse with MechError 'too-large' when sum_{s<=n} C(vertices, s) exceeds this. */
  maxSubsets?: number;
  onProgress?: (p: KernelProgress) => void;
  signal?: AbortSignal;
}

export interface KernelEnumeration {
  n: number;
  vertexCount: number;
  /** Kernel mechanisms of every size (SPEC §7 counts). */
  count: number;
  /** bySize[s] = kernel mechanisms with s vertices (s = 1..n); bySize[n] are the full-rank ones. */
  bySize: number[];
  /** Vertex subsets tested (the others were pruned with an ancestor). */
  examined: number;
  /** sum_{s<=n} C(vertices, s): subsets a naive search would test. */
  upperBound: number;
  /** Decisions handed to exact arithmetic (or decided by KERNEL_FLOAT_TOL in float mode). */
  greyDecisions: number;
  arithmetic: 'exact' | 'float';
  mechanisms: KernelMechanism[] | null;
  truncated: boolean;
  /** Over all eps*d-private mechanisms (SPEC §6), from the basic solutions met. */
  multiplicativeCapacity: number;
  additiveCapacity: number;
  /** Best kernel mechanisms for each capacity (indices into vertices, with weights). */
  bestMultiplicative: KernelMechanism | null;
  bestAdditive: KernelMechanism | null;
  /** Accuracy caveats (float arithmetic on ill-conditioned vertex sets). */
  warnings: string[];
  ms: number;
}

export function binomial(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return Math.round(r);
}

export function enumerateKernelMechanisms(pv: PosteriorVertices, options: KernelOptions = {}): KernelEnumeration {
  const t0 = performance.now();
  const n = pv.n;
  const V = pv.count;
  const X = pv.vertices;
  const exact = pv.exactRays;
  const maxSubsets = options.maxSubsets ?? DEFAULT_MAX_SUBSETS;
  const maxCollect = options.maxCollect ?? 100_000;
  if (options.maxCollect !== undefined) assertPositiveInt(options.maxCollect, 'maxCollect', 0);
  let upperBound = 0;
  for (let s = 1; s <= n; s++) upperBound += binomial(V, s);
  if (upperBound > maxSubsets) {
    throw new MechError(
      'too-large',
      `kernel enumeration for ${pv.spec} at eps = ${pv.eps} could examine up to ${upperBound} vertex subsets (subsets of at most ${n} of ${V} vertices), over the limit of ${maxSubsets}; use a smaller domain or raise maxSubsets`,
      { upperBound, maxSubsets, vertices: V, n },
    );
  }
  checkCancelled(options.signal, 'kernel enumeration cancelled');

  const norms = new Float64Array(V);
  const vmax = new Float64Array(V);
  const vmin = new Float64Array(V);
  const sums = exact ? exact.map((r) => r.reduce((a, b) => a + b, 0n)) : null;
  for (let j = 0; j < V; j++) {
    let s = 0,
      mx = -Infinity,
      mn = Infinity;
    for (let i = 0; i < n; i++) {
      const x = X[j * n + i]!;
      s += x * x;
      if (x > mx) mx = x;
      if (x < mn) mn = x;
    }
    norms[j] = Math.sqrt(s);
    vmax[j] = mx;
    vmin[j] = mn;
  }
  const Q = new Float64Array(n * n); // row i: q_i
  const R = new Float64Array(n * n); // R[i*n+k] = q_i . v_{chosen k}, upper triangular
  const U = new Float64Array((n + 1) * n); // U[k]: residual of u after q_0..q_{k-1}
  for (let i = 0; i < n; i++) U[i] = 1 / n;
  const uNorm = 1 / Math.sqrt(n);
  const chosen = new Int32Array(n);
  /** hp[k]: product of the relative residuals R_ii / |v_i| of the first k chosen (|det| of the normalised vertices). */
  const hp = new Float64Array(n + 1).fill(1);
  const res = new Float64Array(n);
  const coef = new Float64Array(n);
  const tmp = new Float64Array(n);
  const ones = new Array<bigint>(n).fill(1n);

  let count = 0;
  const bySize = new Array<number>(n + 1).fill(0);
  let examined = 0;
  let grey = 0;
  let illFloat = 0;
  const mechanisms: KernelMechanism[] | null = options.collect ? [] : null;
  let truncated = false;
  let bestMax = -Infinity;
  let bestMin = Infinity;
  let bestMaxMech: KernelMechanism | null = null;
  let bestMinMech: KernelMechanism | null = null;
  const progressEvery = 1 << 15;
  let nextProgress = progressEvery;

  /** Exact decision: weights of u on the given vertex set (null: dependent or u not in span). */
  const exactWeights = (set: ArrayLike<number>, k: number): Float64Array | null => {
    const cols: bigint[][] = [];
    for (let s = 0; s < k; s++) cols.push(exact![set[s]!]!);
    const w = exactCombination(cols, ones);
    if (!w) return null;
    // sum_s w'_s ray_s = 1  ->  u = sum_s (w'_s sigma_s / n) vertex_s.
    const out = new Float64Array(k);
    for (let s = 0; s < k; s++) {
      const [num, den] = w[s]!;
      if (num <= 0n) return new Float64Array(0); // marker: not strictly positive
      out[s] = ratioToNumber(num * sums![set[s]!]!, den * BigInt(n));
    }
    return out;
  };

  const record = (k: number, weights: Float64Array): void => {
    let fmax = 0,
      fmin = 0;
    for (let s = 0; s < k; s++) {
      fmax += weights[s]! * vmax[chosen[s]!]!;
      fmin += weights[s]! * vmin[chosen[s]!]!;
    }
    const mk = (): KernelMechanism => ({ vertices: chosen.slice(0, k), weights: weights.slice(0, k) });
    if (fmax > bestMax + 1e-15) {
      bestMax = fmax;
      bestMaxMech = mk();
    }
    if (fmin < bestMin - 1e-15) {
      bestMin = fmin;
      bestMinMech = mk();
    }
    count++;
    bySize[k]!++;
    if (mechanisms) {
      if (mechanisms.length < maxCollect) mechanisms.push(mk());
      else truncated = true;
    }
  };

  /** Coordinates of y (in the span of the first k chosen vertices) from t = Q^T y: back substitution R c = t. */
  const backSub = (t: Float64Array, k: number, out: Float64Array): void => {
    for (let i = k - 1; i >= 0; i--) {
      let s = t[i]!;
      for (let j = i + 1; j < k; j++) s -= R[i * n + j]! * out[j]!;
      out[i] = s / R[i * n + i]!;
    }
  };

  const tick = (): void => {
    if (examined >= nextProgress) {
      nextProgress = examined + progressEvery;
      checkCancelled(options.signal, 'kernel enumeration cancelled');
      options.onProgress?.({ examined, upperBound, found: count });
    }
  };

  /**
   * Width of the grey band around 0 for a decision whose float error is about
   * eps_mach * cond, with cond <= 2 / (product of the relative residuals of
   * the chosen vertices) (Guggenheimer-Edelman-Johnson bound for unit
   * columns), times a safety factor: large eps * d makes the vertices' entries
   * span many orders of magnitude and the float decisions unreliable.
   */
  const band = (hprod: number): number => Math.max(KERNEL_GREY, (GREY_SAFETY * 2 * Number.EPSILON) / hprod);

  /**
   * Float mode: a value that is neither zero at KERNEL_FLOAT_TOL nor larger
   * than its estimated float error (2 eps_mach / hprod, times 100) makes the
   * decision unreliable; such decisions are counted and reported.
   */
  const uncertain = (v: number, hprod: number): boolean => {
    const a = Math.abs(v);
    return a > KERNEL_FLOAT_TOL && a <= (200 * Number.EPSILON) / hprod;
  };

  /** The u-residual after k basis vectors decides whether u is in their span (and with which weights). */
  const uInSpan = (k: number): 'no' | Float64Array | 'zero-or-negative' => {
    let s = 0;
    for (let i = 0; i < n; i++) s += U[k * n + i]! ** 2;
    const rel = Math.sqrt(s) / uNorm;
    const b = band(hp[k]!);
    if (rel > b) return 'no';
    grey++;
    if (exact) {
      const w = exactWeights(chosen, k);
      if (w === null) return 'no';
      if (w.length === 0) return 'zero-or-negative';
      return w;
    }
    if (uncertain(rel, hp[k]!)) illFloat++;
    if (rel > KERNEL_FLOAT_TOL) return 'no';
    for (let i = 0; i < k; i++) {
      let d = 0;
      for (let j = 0; j < n; j++) d += Q[i * n + j]! / n;
      tmp[i] = d;
    }
    const w = new Float64Array(k);
    backSub(tmp, k, w);
    for (let i = 0; i < k; i++) if (!(w[i]! > KERNEL_FLOAT_TOL)) return 'zero-or-negative';
    return w;
  };

  const rec = (k: number, start: number): void => {
    if (k === n - 1) {
      lastVertex(start);
      return;
    }
    const bandDep = band(hp[k]!);
    for (let j = start; j < V; j++) {
      examined++;
      if (examined >= nextProgress) tick();
      // Residual of v_j against the chosen basis (modified Gram-Schmidt, twice).
      for (let i = 0; i < n; i++) res[i] = X[j * n + i]!;
      for (let i = 0; i < k; i++) coef[i] = 0;
      for (let pass = 0; pass < 2; pass++)
        for (let b = 0; b < k; b++) {
          let d = 0;
          for (let i = 0; i < n; i++) d += Q[b * n + i]! * res[i]!;
          coef[b]! += d;
          for (let i = 0; i < n; i++) res[i]! -= d * Q[b * n + i]!;
        }
      let rn = 0;
      for (let i = 0; i < n; i++) rn += res[i]! * res[i]!;
      rn = Math.sqrt(rn);
      const rel = rn / norms[j]!;
      if (rel <= bandDep) {
        chosen[k] = j;
        let independent: boolean;
        grey++;
        if (exact) {
          const rows: bigint[][] = [];
          for (let s = 0; s <= k; s++) rows.push(exact[chosen[s]!]!);
          independent = exactRank(rows, n) === k + 1;
        } else {
          independent = rel > KERNEL_FLOAT_TOL;
          if (uncertain(rel, hp[k]!)) illFloat++;
        }
        if (!independent) continue;
      }
      chosen[k] = j;
      for (let i = 0; i < n; i++) Q[k * n + i] = res[i]! / rn;
      for (let b = 0; b < k; b++) R[b * n + k] = coef[b]!;
      R[k * n + k] = rn;
      hp[k + 1] = hp[k]! * rel;
      // u residual after adding q_k.
      let d = 0;
      for (let i = 0; i < n; i++) d += Q[k * n + i]! * U[k * n + i]!;
      for (let i = 0; i < n; i++) U[(k + 1) * n + i] = U[k * n + i]! - d * Q[k * n + i]!;
      const span = uInSpan(k + 1);
      if (span !== 'no') {
        // u is a combination of these k+1 vertices: a kernel when the weights
        // are positive; no larger independent set can give u positive weights.
        if (span !== 'zero-or-negative') record(k + 1, span);
        continue;
      }
      if (j + 1 < V) rec(k + 1, j + 1); // smaller kernels may still end at the last vertex
    }
  };

  const cu = new Float64Array(n);
  const tq = new Float64Array(n);
  const weights = new Float64Array(n);
  const h = new Float64Array(n);
  let hu = 0;
  let minFirst = 0;
  /** Float weights of u on chosen[0..n-2] + v_j (last weight hu / hv); returns the smallest, minFirst gets the smallest of the first n-1. */
  const floatWeights = (j: number, hv: number): number => {
    const k = n - 1;
    const w = hu / hv;
    for (let b = 0; b < k; b++) {
      let d = 0;
      for (let i = 0; i < n; i++) d += Q[b * n + i]! * X[j * n + i]!;
      tq[b] = d;
    }
    backSub(tq, k, weights);
    minFirst = Infinity;
    for (let b = 0; b < k; b++) {
      weights[b] = cu[b]! - w * weights[b]!;
      if (weights[b]! < minFirst) minFirst = weights[b]!;
    }
    weights[k] = w;
    return Math.min(minFirst, w);
  };
  const lastVertex = (start: number): void => {
    const k = n - 1;
    // Unit normal h of span(chosen), from the coordinate axis farthest from the
    // span (not from the u residual, which loses its direction when u is
    // nearly in the span). Oriented so that h . u >= 0; the last weight is
    // w = h.u / h.v and must be positive.
    let axis = 0;
    let far = -Infinity;
    for (let i = 0; i < n; i++) {
      let s = 1;
      for (let b = 0; b < k; b++) s -= Q[b * n + i]! ** 2;
      if (s > far) {
        far = s;
        axis = i;
      }
    }
    h.fill(0);
    h[axis] = 1;
    for (let pass = 0; pass < 2; pass++)
      for (let b = 0; b < k; b++) {
        let d = 0;
        for (let i = 0; i < n; i++) d += Q[b * n + i]! * h[i]!;
        for (let i = 0; i < n; i++) h[i]! -= d * Q[b * n + i]!;
      }
    let hn = 0;
    for (let i = 0; i < n; i++) hn += h[i]! ** 2;
    hn = Math.sqrt(hn);
    hu = 0;
    for (let i = 0; i < n; i++) {
      h[i]! /= hn;
      hu += h[i]! / n;
    }
    if (hu < 0) {
      for (let i = 0; i < n; i++) h[i] = -h[i]!;
      hu = -hu;
    }
    for (let b = 0; b < k; b++) {
      let d = 0;
      for (let i = 0; i < n; i++) d += Q[b * n + i]! / n;
      tq[b] = d;
    }
    backSub(tq, k, cu); // u - hu h = sum cu_b v_b
    const bandH = band(hp[k]!);
    // u nearly in span(chosen): the sign of the last weight is not known in float.
    const huGrey = hu / uNorm <= bandH;
    for (let j = start; j < V; j++) {
      examined++;
      if (examined >= nextProgress) tick();
      let hv = 0;
      for (let i = 0; i < n; i++) hv += h[i]! * X[j * n + i]!;
      const relH = hv / norms[j]!;
      if (relH < -bandH && !huGrey) continue; // last weight negative
      chosen[k] = j;
      let verdict: 'yes' | 'no' | 'grey' = 'grey';
      if (Math.abs(relH) > bandH) {
        const minA = floatWeights(j, hv);
        const bandW = band(hp[k]! * Math.abs(relH));
        if (minFirst < -bandW) verdict = 'no';
        else if (!huGrey) verdict = minA > bandW ? 'yes' : minA < -bandW ? 'no' : 'grey';
      }
      if (verdict === 'grey') {
        grey++;
        if (exact) {
          const w = exactWeights(chosen, n);
          if (w !== null && w.length === n) {
            weights.set(w);
            verdict = 'yes';
          } else verdict = 'no';
        } else {
          const minA = relH > KERNEL_FLOAT_TOL ? floatWeights(j, hv) : -Infinity;
          verdict = minA > KERNEL_FLOAT_TOL ? 'yes' : 'no';
          if (uncertain(relH, hp[k]!) || uncertain(hu / uNorm, hp[k]!) || (Number.isFinite(minA) && uncertain(minA, hp[k]! * Math.abs(relH)))) illFloat++;
        }
      }
      if (verdict === 'yes') record(n, weights);
    }
  };

  if (n === 1) {
    // One point: the only posterior is (1), a single kernel with weight 1.
    chosen[0] = 0;
    record(1, Float64Array.of(1));
    examined = 1;
  } else {
    rec(0, 0);
  }
  options.onProgress?.({ examined, upperBound, found: count });
  return {
    n,
    vertexCount: V,
    count,
    bySize,
    examined,
    upperBound,
    greyDecisions: grey,
    arithmetic: exact ? 'exact' : 'float',
    mechanisms,
    truncated,
    multiplicativeCapacity: n * bestMax,
    additiveCapacity: 1 - n * bestMin,
    bestMultiplicative: bestMaxMech,
    bestAdditive: bestMinMech,
    warnings:
      illFloat > 0
        ? [`float arithmetic: ${illFloat} decision(s) on ill-conditioned vertex sets were made in floating point; counts may be inaccurate at this eps * d`]
        : [],
    ms: performance.now() - t0,
  };
}
