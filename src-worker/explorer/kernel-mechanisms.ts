import { MechError, assertPositiveInt } from '../../src-shared/errors';
import type { CapacityNote } from '../../src-shared/protocol/index';
import { capacityNoteWords } from '../../src-shared/charts/note-words';
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

/**
 * Decisions closer to 0 than this (relative; wider for ill-conditioned sets) are re-checked exactly (exact vertices).
 */
const KERNEL_GREY = 1e-7;
/** Float-only vertices: a weight must exceed this to count as positive, a residual to count as independent. */
const KERNEL_FLOAT_TOL = 1e-9;
/** Safety factor on the float error estimate eps_mach * cond that widens the grey band. */
const GREY_SAFETY = 1e4;
/** Default limit on the number of vertex subsets the search may have to examine. */
const DEFAULT_MAX_SUBSETS = 50_000_000;

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

function binomial(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return Math.round(r);
}

/** The subset-count limit check: refuses when the naive search could exceed maxSubsets. */
function subsetBound(pv: PosteriorVertices, maxSubsets: number): number {
  const n = pv.n;
  const V = pv.count;
  let upperBound = 0;
  for (let s = 1; s <= n; s++) upperBound += binomial(V, s);
  if (upperBound > maxSubsets) {
    const note: CapacityNote = {
      kind: 'too-many-subsets',
      domain: pv.spec,
      epsilon: pv.eps,
      upperBound,
      maxSubsets,
      vertices: V,
      n,
    };
    throw new MechError('too-large', capacityNoteWords(note), note);
  }
  return upperBound;
}

/** Norm, largest and smallest entry of every vertex. */
function vertexStats(pv: PosteriorVertices): { norms: Float64Array; vmax: Float64Array; vmin: Float64Array } {
  const n = pv.n;
  const V = pv.count;
  const X = pv.vertices;
  const norms = new Float64Array(V);
  const vmax = new Float64Array(V);
  const vmin = new Float64Array(V);
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
  return { norms, vmax, vmin };
}

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

const PROGRESS_EVERY = 1 << 15;

/**
 * The depth-first search over vertex subsets (see the module comment): its
 * state (the Gram-Schmidt basis of the chosen vertices, the residuals of u,
 * the counts and the best kernels) and its steps, one method each.
 */
class KernelSearch {
  readonly n: number;
  readonly V: number;
  readonly X: Float64Array;
  readonly exact: bigint[][] | null;
  readonly sums: bigint[] | null;
  readonly norms: Float64Array;
  readonly vmax: Float64Array;
  readonly vmin: Float64Array;
  /** Row i: q_i, the orthonormal basis of the chosen vertices. */
  readonly Q: Float64Array;
  /** R[i*n+k] = q_i . v_{chosen k}, upper triangular. */
  readonly R: Float64Array;
  /** U[k]: residual of u after q_0..q_{k-1}. */
  readonly U: Float64Array;
  readonly uNorm: number;
  readonly chosen: Int32Array;
  /** hp[k]: product of the relative residuals R_ii / |v_i| of the first k chosen (|det| of the normalised vertices). */
  readonly hp: Float64Array;
  readonly res: Float64Array;
  readonly coef: Float64Array;
  readonly tmp: Float64Array;
  readonly ones: bigint[];
  // Last-vertex step: the normal h of the span of n - 1 chosen vertices, h.u, and u - (h.u) h in the chosen basis.
  readonly cu: Float64Array;
  readonly tq: Float64Array;
  readonly weights: Float64Array;
  readonly h: Float64Array;
  hu = 0;
  minFirst = 0;

  count = 0;
  readonly bySize: number[];
  examined = 0;
  grey = 0;
  illFloat = 0;
  readonly mechanisms: KernelMechanism[] | null;
  truncated = false;
  bestMax = -Infinity;
  bestMin = Infinity;
  bestMaxMech: KernelMechanism | null = null;
  bestMinMech: KernelMechanism | null = null;
  nextProgress = PROGRESS_EVERY;

  constructor(
    pv: PosteriorVertices,
    readonly options: KernelOptions,
    readonly upperBound: number,
    readonly maxCollect: number,
  ) {
    const n = (this.n = pv.n);
    this.V = pv.count;
    this.X = pv.vertices;
    this.exact = pv.exactRays;
    this.sums = this.exact ? this.exact.map((r) => r.reduce((a, b) => a + b, 0n)) : null;
    ({ norms: this.norms, vmax: this.vmax, vmin: this.vmin } = vertexStats(pv));
    this.Q = new Float64Array(n * n);
    this.R = new Float64Array(n * n);
    this.U = new Float64Array((n + 1) * n);
    for (let i = 0; i < n; i++) this.U[i] = 1 / n;
    this.uNorm = 1 / Math.sqrt(n);
    this.chosen = new Int32Array(n);
    this.hp = new Float64Array(n + 1).fill(1);
    this.res = new Float64Array(n);
    this.coef = new Float64Array(n);
    this.tmp = new Float64Array(n);
    this.ones = new Array<bigint>(n).fill(1n);
    this.cu = new Float64Array(n);
    this.tq = new Float64Array(n);
    this.weights = new Float64Array(n);
    this.h = new Float64Array(n);
    this.bySize = new Array<number>(n + 1).fill(0);
    this.mechanisms = options.collect ? [] : null;
  }

  /**
   * Exact decision: weights of u on the given vertex set (null: dependent or u not in span; empty: not strictly
   * positive).
   */
  exactWeights(set: ArrayLike<number>, k: number): Float64Array | null {
    const n = this.n;
    const cols: bigint[][] = [];
    for (let s = 0; s < k; s++) cols.push(this.exact![set[s]!]!);
    const w = exactCombination(cols, this.ones);
    if (!w) return null;
    // sum_s w'_s ray_s = 1  ->  u = sum_s (w'_s sigma_s / n) vertex_s.
    const out = new Float64Array(k);
    for (let s = 0; s < k; s++) {
      const [num, den] = w[s]!;
      if (num <= 0n) return new Float64Array(0); // marker: not strictly positive
      out[s] = ratioToNumber(num * this.sums![set[s]!]!, den * BigInt(n));
    }
    return out;
  }

  /** A kernel found: count it, keep it when collecting, and update the best one for each capacity. */
  record(k: number, weights: Float64Array): void {
    let fmax = 0,
      fmin = 0;
    for (let s = 0; s < k; s++) {
      fmax += weights[s]! * this.vmax[this.chosen[s]!]!;
      fmin += weights[s]! * this.vmin[this.chosen[s]!]!;
    }
    const mk = (): KernelMechanism => ({ vertices: this.chosen.slice(0, k), weights: weights.slice(0, k) });
    if (fmax > this.bestMax + 1e-15) {
      this.bestMax = fmax;
      this.bestMaxMech = mk();
    }
    if (fmin < this.bestMin - 1e-15) {
      this.bestMin = fmin;
      this.bestMinMech = mk();
    }
    this.count++;
    this.bySize[k]!++;
    if (this.mechanisms) {
      if (this.mechanisms.length < this.maxCollect) this.mechanisms.push(mk());
      else this.truncated = true;
    }
  }

  /** Coordinates of y (in the span of the first k chosen vertices) from t = Q^T y: back substitution R c = t. */
  backSub(t: Float64Array, k: number, out: Float64Array): void {
    const n = this.n;
    const R = this.R;
    for (let i = k - 1; i >= 0; i--) {
      let s = t[i]!;
      for (let j = i + 1; j < k; j++) s -= R[i * n + j]! * out[j]!;
      out[i] = s / R[i * n + i]!;
    }
  }

  /** Progress and cancellation, every PROGRESS_EVERY subsets. */
  tick(): void {
    if (this.examined >= this.nextProgress) {
      this.nextProgress = this.examined + PROGRESS_EVERY;
      checkCancelled(this.options.signal, 'kernel enumeration cancelled');
      this.options.onProgress?.({ examined: this.examined, upperBound: this.upperBound, found: this.count });
    }
  }

  /** The u-residual after k basis vectors decides whether u is in their span (and with which weights). */
  uInSpan(k: number): 'no' | Float64Array | 'zero-or-negative' {
    const { n, U, Q, hp } = this;
    let s = 0;
    for (let i = 0; i < n; i++) s += U[k * n + i]! ** 2;
    const rel = Math.sqrt(s) / this.uNorm;
    const b = band(hp[k]!);
    if (rel > b) return 'no';
    this.grey++;
    if (this.exact) {
      const w = this.exactWeights(this.chosen, k);
      if (w === null) return 'no';
      if (w.length === 0) return 'zero-or-negative';
      return w;
    }
    if (uncertain(rel, hp[k]!)) this.illFloat++;
    if (rel > KERNEL_FLOAT_TOL) return 'no';
    for (let i = 0; i < k; i++) {
      let d = 0;
      for (let j = 0; j < n; j++) d += Q[i * n + j]! / n;
      this.tmp[i] = d;
    }
    const w = new Float64Array(k);
    this.backSub(this.tmp, k, w);
    for (let i = 0; i < k; i++) if (!(w[i]! > KERNEL_FLOAT_TOL)) return 'zero-or-negative';
    return w;
  }

  /**
   * Residual of v_j against the chosen basis of size k (modified Gram-Schmidt, twice) into res/coef; returns its norm.
   */
  residual(j: number, k: number): number {
    const { n, X, Q, res, coef } = this;
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
    return Math.sqrt(rn);
  }

  /**
   * Whether v_j (relative residual `rel` in the grey band) is independent of the k chosen vertices, decided exactly
   * when possible.
   */
  independentInGrey(j: number, k: number, rel: number): boolean {
    this.chosen[k] = j;
    this.grey++;
    if (this.exact) {
      const rows: bigint[][] = [];
      for (let s = 0; s <= k; s++) rows.push(this.exact[this.chosen[s]!]!);
      return exactRank(rows, this.n) === k + 1;
    }
    if (uncertain(rel, this.hp[k]!)) this.illFloat++;
    return rel > KERNEL_FLOAT_TOL;
  }

  /** Append v_j (residual norm rn, relative rel) to the basis as q_k, and the u residual after it. */
  push(j: number, k: number, rn: number, rel: number): void {
    const { n, Q, R, U, res, coef } = this;
    this.chosen[k] = j;
    for (let i = 0; i < n; i++) Q[k * n + i] = res[i]! / rn;
    for (let b = 0; b < k; b++) R[b * n + k] = coef[b]!;
    R[k * n + k] = rn;
    this.hp[k + 1] = this.hp[k]! * rel;
    let d = 0;
    for (let i = 0; i < n; i++) d += Q[k * n + i]! * U[k * n + i]!;
    for (let i = 0; i < n; i++) U[(k + 1) * n + i] = U[k * n + i]! - d * Q[k * n + i]!;
  }

  /** Subsets extending the k chosen vertices with vertices start..V-1 (depth first). */
  extend(k: number, start: number): void {
    if (k === this.n - 1) {
      this.lastVertex(start);
      return;
    }
    const bandDep = band(this.hp[k]!);
    for (let j = start; j < this.V; j++) {
      this.examined++;
      if (this.examined >= this.nextProgress) this.tick();
      const rn = this.residual(j, k);
      const rel = rn / this.norms[j]!;
      if (rel <= bandDep && !this.independentInGrey(j, k, rel)) continue;
      this.push(j, k, rn, rel);
      const span = this.uInSpan(k + 1);
      if (span !== 'no') {
        // u is a combination of these k+1 vertices: a kernel when the weights
        // are positive; no larger independent set can give u positive weights.
        if (span !== 'zero-or-negative') this.record(k + 1, span);
        continue;
      }
      if (j + 1 < this.V) this.extend(k + 1, j + 1); // smaller kernels may still end at the last vertex
    }
  }

  /**
   * Float weights of u on chosen[0..n-2] + v_j (last weight hu / hv); returns the smallest, minFirst gets the smallest
   * of the first n-1.
   */
  floatWeights(j: number, hv: number): number {
    const { n, Q, X, tq, weights, cu } = this;
    const k = n - 1;
    const w = this.hu / hv;
    for (let b = 0; b < k; b++) {
      let d = 0;
      for (let i = 0; i < n; i++) d += Q[b * n + i]! * X[j * n + i]!;
      tq[b] = d;
    }
    this.backSub(tq, k, weights);
    let minFirst = Infinity;
    for (let b = 0; b < k; b++) {
      weights[b] = cu[b]! - w * weights[b]!;
      if (weights[b]! < minFirst) minFirst = weights[b]!;
    }
    this.minFirst = minFirst;
    weights[k] = w;
    return Math.min(minFirst, w);
  }

  /**
   * Unit normal h of span(chosen[0..n-2]), from the coordinate axis farthest
   * from the span (not from the u residual, which loses its direction when u
   * is nearly in the span), oriented so that h . u >= 0; then hu = h . u and
   * cu, the coordinates of u - hu h in the chosen basis.
   */
  normalOfSpan(): void {
    const { n, Q, h } = this;
    const k = n - 1;
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
    let hu = 0;
    for (let i = 0; i < n; i++) {
      h[i]! /= hn;
      hu += h[i]! / n;
    }
    if (hu < 0) {
      for (let i = 0; i < n; i++) h[i] = -h[i]!;
      hu = -hu;
    }
    this.hu = hu;
    for (let b = 0; b < k; b++) {
      let d = 0;
      for (let i = 0; i < n; i++) d += Q[b * n + i]! / n;
      this.tq[b] = d;
    }
    this.backSub(this.tq, k, this.cu); // u - hu h = sum cu_b v_b
  }

  /** A grey last-vertex decision: exactly (exact vertices) or by KERNEL_FLOAT_TOL (counted when ill-conditioned). */
  greyLastVertex(j: number, hv: number, relH: number): boolean {
    const { n, hp } = this;
    const k = n - 1;
    this.grey++;
    if (this.exact) {
      const w = this.exactWeights(this.chosen, n);
      if (w !== null && w.length === n) {
        this.weights.set(w);
        return true;
      }
      return false;
    }
    const minA = relH > KERNEL_FLOAT_TOL ? this.floatWeights(j, hv) : -Infinity;
    if (
      uncertain(relH, hp[k]!) ||
      uncertain(this.hu / this.uNorm, hp[k]!) ||
      (Number.isFinite(minA) && uncertain(minA, hp[k]! * Math.abs(relH)))
    )
      this.illFloat++;
    return minA > KERNEL_FLOAT_TOL;
  }

  /**
   * The last vertex without a solve: with n - 1 vertices chosen, the last
   * weight is w = h.u / h.v (must be positive), the others by one back
   * substitution.
   */
  lastVertex(start: number): void {
    const { n, X, h, hp } = this;
    const k = n - 1;
    this.normalOfSpan();
    const bandH = band(hp[k]!);
    // u nearly in span(chosen): the sign of the last weight is not known in float.
    const huGrey = this.hu / this.uNorm <= bandH;
    for (let j = start; j < this.V; j++) {
      this.examined++;
      if (this.examined >= this.nextProgress) this.tick();
      let hv = 0;
      for (let i = 0; i < n; i++) hv += h[i]! * X[j * n + i]!;
      const relH = hv / this.norms[j]!;
      if (relH < -bandH && !huGrey) continue; // last weight negative
      this.chosen[k] = j;
      let verdict: 'yes' | 'no' | 'grey' = 'grey';
      if (Math.abs(relH) > bandH) {
        const minA = this.floatWeights(j, hv);
        const bandW = band(hp[k]! * Math.abs(relH));
        if (this.minFirst < -bandW) verdict = 'no';
        else if (!huGrey) verdict = minA > bandW ? 'yes' : minA < -bandW ? 'no' : 'grey';
      }
      if (verdict === 'grey') verdict = this.greyLastVertex(j, hv, relH) ? 'yes' : 'no';
      if (verdict === 'yes') this.record(n, this.weights);
    }
  }

  /** Run the search (one point: the single kernel (1)). */
  run(): void {
    if (this.n === 1) {
      this.chosen[0] = 0;
      this.record(1, Float64Array.of(1));
      this.examined = 1;
    } else this.extend(0, 0);
  }
}

export function enumerateKernelMechanisms(pv: PosteriorVertices, options: KernelOptions = {}): KernelEnumeration {
  const t0 = performance.now();
  const maxCollect = options.maxCollect ?? 100_000;
  if (options.maxCollect !== undefined) assertPositiveInt(options.maxCollect, 'maxCollect', 0);
  const upperBound = subsetBound(pv, options.maxSubsets ?? DEFAULT_MAX_SUBSETS);
  if (options.signal?.aborted) throw new MechError('cancelled', 'kernel enumeration cancelled');
  const s = new KernelSearch(pv, options, upperBound, maxCollect);
  s.run();
  options.onProgress?.({ examined: s.examined, upperBound, found: s.count });
  const n = pv.n;
  return {
    n,
    vertexCount: pv.count,
    count: s.count,
    bySize: s.bySize,
    examined: s.examined,
    upperBound,
    greyDecisions: s.grey,
    arithmetic: pv.exactRays ? 'exact' : 'float',
    mechanisms: s.mechanisms,
    truncated: s.truncated,
    multiplicativeCapacity: n * s.bestMax,
    additiveCapacity: 1 - n * s.bestMin,
    bestMultiplicative: s.bestMaxMech,
    bestAdditive: s.bestMinMech,
    warnings:
      s.illFloat > 0
        ? [
            `float arithmetic: ${s.illFloat} decision(s) on ill-conditioned vertex sets were made in floating point; counts may be inaccurate at this eps * d`,
          ]
        : [],
    ms: performance.now() - t0,
  };
}
