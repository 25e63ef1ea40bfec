import { MechError } from '../errors';
import { type LpOptions, checkCancelled, progress } from './lp-options';
import { PersistentLp } from './persistent-lp';
import { SparseLp } from './sparse-model';
import { estimateLpBytes, LP_MEMORY_LIMIT_BYTES, MASTER_BYTES_PER_NONZERO, MASTER_BUDGET_FRACTION, masterBytes, masterStartBytes } from './memory-estimate';
import { ColumnLifter, PricingModel, type PricingOutcome, type PricingRows } from './pricing';
import { type PricingEngine, openPricing } from './pricing-pool';

/**
 * Dantzig-Wolfe decomposition of the LP over d-private channels (SPEC §2) by
 * output column. The channel LP
 *   min sum_w c_w . p_w   s.t.  sum_w p_w = 1 (row sums),  p_w in P,
 * where p_w is column w of C, c_w[x] = cost[x*m + w], and
 *   P = { p in [0,1]^n : p_a <= f_e p_b and p_b <= f_e p_a on every constrained pair e = {a, b} }
 * is the same small polytope for every output, couples its m columns only
 * through the n row sums. So:
 *
 *  - master: the row sums over the columns found so far (each a point r of P
 *    for one output w, cost c_w . r), n rows; it starts from the constant
 *    column and the graph-distance column e^(-dist(., w)) of every output
 *    (enough for feasibility), plus 2n penalty columns +-e_x of cost B that
 *    keep the duals in [-B, B] (du Merle box; the final solution must not use
 *    them, else B grows);
 *  - pricing, for each output w at duals lambda: min (c_w - lambda) . r over r
 *    in P, one LP with n variables and the pair rows, whose objective alone
 *    changes between outputs and rounds: it is loaded once and re-solved by
 *    primal simplex from the basis this output had last time (stored per output);
 *  - any lambda gives the Lagrangian lower bound
 *      L(lambda) = sum_x lambda_x + sum_w min_{r in P} (c_w - lambda) . r,
 *    the master objective an upper bound; the loop stops when they agree to
 *    `tolerance` (relative). So the answer is certified optimal to that gap.
 *  - Wentges dual smoothing: pricing is done at alpha lambda_best + (1 - alpha)
 *    lambda_master, lambda_best the duals with the best bound so far (0 at the
 *    start), alpha lowered as the gap closes. Without it the master's
 *    degenerate duals swing wildly and the bound lags (measured on the
 *    20 x 20 city: test/bench/lp.bench.ts).
 *
 * The vertices of P are exactly the plateau columns r_S(x) = e^(-dist(x, S))
 * for non-empty sets S of secrets (dist: shortest paths of the pair graph
 * with lengths log f_e; r_S = 1 on S), and 0: on each component of a
 * vertex's tight rows some entry must sit at its bound 1, and feasibility
 * forces r >= e^(-dist(., S)) while the tight paths give equality. At the
 * optimum the master has at most n basic columns, i.e. about one such
 * plateau per output: the master stays small (n rows, a few
 * thousand columns), pricing is n-variable LPs, and the 160,000-variable
 * 20 x 20 city LP, whose 1.19M-row spanner model does not fit the solver
 * heap, is solved in minutes.
 */
export interface DecompositionOptions {
  /** Stop when (upper - lower) <= tolerance * max(|upper|, 1e-12): the target relative gap (default 1e-9). */
  tolerance?: number;
  /** Wentges smoothing weight while the relative gap exceeds 1e-2 (default 0.8; 0 = none). */
  smoothing?: number;
  /**
   * 'fade' (default): the smoothing weight is `smoothing` while the gap exceeds 1e-2, then 0.6x, 0.3x, 0 below 1e-5;
   * 'adaptive': it starts at `smoothing` and follows the supergradient at the priced duals each round (Pessoa et al. 2018), 0 below 1e-5.
   * Either way it halves with every round the master does not improve.
   */
  smoothingMode?: 'fade' | 'adaptive';
  /** Stop (returning the best channel so far, stoppedBy 'iteration-limit') after this many master solves (default 2000). */
  maxIterations?: number;
  /**
   * Rows of the pricing LPs: 'all' the model's pairs (factor <= e^18), 'lazy'
   * a seed of short pairs, then the pairs a pricing solution violates, added
   * round by round (the pricing LP stays a relaxation of P, its bound valid;
   * at the end no pricing solution violates a pair, so pricing was exact).
   * 'auto' (default): lazy when there are more than 8 pairs per secret (all pairs).
   */
  pricingRows?: 'all' | 'lazy' | 'auto';
  /**
   * A relaxation of another model (e.g. the spanner's edges at the full eps
   * factor, a relaxation of the exact all-pairs model): at the end the
   * Lagrangian bound over these pairs at the best duals is returned as
   * relaxedBound, a certified bound on that model's optimum.
   */
  relaxedPairs?: DecompositionPairs;
  /**
   * Extra pairs (a subset of `pairs`, e.g. a greedy spanner's edges) that a
   * lazy pricing model starts with, besides each secret's shortest pairs: any
   * subset of the rows keeps pricing a relaxation, a good one saves rounds.
   */
  seedPairs?: { from: Int32Array; to: Int32Array };
  /** Called after every round (typed progress for a convergence chart). */
  onRound?: (round: DecompositionIteration) => void;
  /** Polled between pricing solves: when it returns true the best channel so far is returned (stoppedBy 'stopped'). */
  shouldStop?: () => boolean;
  /**
   * Threads for the pricing LPs (default 1: this thread). Above 1, each
   * thread holds its own HiGHS instance and copy of the pricing model and
   * prices every threads-th output (pricing-pool.ts); the answer is the same
   * optimum (tests), the path may differ where pricing LPs have ties.
   */
  threads?: number;
  /**
   * Plateau columns (default off: on the 20 x 20 city, spanner, eps 1, 140 s
   * with them against 65 s without: one dense column per output and round
   * made the master 4x slower, and the bound moved every 4th round only):
   * before the pricing LPs, for each output w grow a set S of secrets around
   * w greedily (nearest first, a secret joins when it lowers the reduced
   * cost) and offer the plateau r_S = max over s in S of e^(-dist(., s)), a
   * point of P (its vertices are such plateaus). While these improve the
   * master, the pricing LPs (which give the bound) run only every
   * PLATEAU_MAX_SKIP + 1 rounds.
   */
  plateau?: boolean;
  /** Replace the constant start columns by a private channel using every output when the master sits at its first solution (default true; see START_STUCK_ROUNDS). */
  startChannel?: boolean;
  /** Candidates per output for the plateau search (default 48 nearest secrets). */
  plateauCandidates?: number;
  /** Solver-heap budget for the master in bytes (default 40% of the LP memory limit): the master is pruned to fit it. */
  masterBudgetBytes?: number;
}

export interface DecompositionPairs {
  from: Int32Array;
  to: Int32Array;
  /** e^(exponent), possibly capped: the coefficient in the pair rows. */
  factor: Float64Array;
}

export interface DecompositionIteration {
  /** 1-based round. */
  round: number;
  /** Objective of the best private channel so far (what a stop or time limit returns; not the master's while its penalty columns are in use) and the best bound, in the caller's sense. */
  objective: number;
  bound: number;
  /** Relative gap |objective - bound| / |objective| (1 while no bound is known). */
  gap: number;
  /** Columns appended after this round. */
  added: number;
  /** Time in master solves and in pricing so far (cumulative), and since the start. */
  masterMs: number;
  pricingMs: number;
  elapsedMs: number;
  /** Rows of the pricing LP (grows with lazy rows). */
  pricingRows: number;
  /** Pricing solves repeated cold so far (see PricingModel.solve). */
  pricingColdRetries: number;
  /** Whether this round solved the pricing LPs (and so may have moved the bound), or only offered plateau columns. */
  exactPricing: boolean;
}

export type DecompositionStop = 'optimal' | 'target-gap' | 'stalled' | 'time-limit' | 'iteration-limit' | 'stopped' | 'solver-memory';

export interface DecompositionResult {
  /** Row-major n x m channel sum over the master's columns of theta r (before the caller's tidy-up and repair); every column lies in P. */
  channel: Float64Array;
  /** Master objective of that channel, and the best Lagrangian bound on the optimum (below it when minimising, above when maximising). */
  objective: number;
  bound: number;
  /** (upper - lower) / |upper|. */
  gap: number;
  /**
   * Why the loop ended: 'optimal' (gap <= 1e-9), 'target-gap' (gap <= tolerance > 1e-9),
   * 'stalled' (master and bound stopped moving at the solver's accuracy, gap above the target),
   * or a limit (best channel so far).
   */
  stoppedBy: DecompositionStop;
  /** The error that ended the loop early, for 'solver-memory'. */
  message?: string;
  /** Certified bound of the relaxedPairs model at the best duals (when asked). */
  relaxedBound?: number;
  /** Time spent on relaxedBound. */
  relaxedBoundMs: number;
  iterations: DecompositionIteration[];
  columns: number;
  /** Columns dropped from the master along the way (non-basic, largest reduced cost). */
  pruned: number;
  masterMs: number;
  pricingMs: number;
  /** Rows of the pricing LP at the end. */
  pricingRows: number;
  /** Pricing solves repeated cold (the warm one was not certified by its safe bound, or failed), and solves that failed twice (box bound used). */
  pricingColdRetries: number;
  pricingFailures: number;
  /** Columns found by the plateau search (no LP). */
  plateauColumns: number;
  simplexIterations: number;
}

/**
 * Pair rows with a larger factor are left out of the pricing LP: such rows
 * only ask r_b >= r_a / f (<= e^-12), and leaving them out makes the pricing
 * LP a relaxation of P, so the bound stays a lower bound; the columns are
 * lifted into P (ColumnLifter) before they enter the master, so the master's
 * channel is private on every pair (the capped factors included).
 */
const MAX_PRICING_FACTOR = Math.exp(18);
/**
 * Lazy (all-pairs) pricing starts with rows up to this factor, and admits
 * rows up to MAX_PRICING_FACTOR only once the loop stalls above its target
 * (e^18 from the start: on the 20 x 20 city, all pairs, the far rows' duals were so
// inexact that ~190 pricing solves per round failed their safe-bound check and
// the bound stalled at a 30% gap for 17 rounds; at e^6 no cold re-solve was
// needed and the gap fell to 17.5% in 7 rounds; a looser relaxation near the
// optimum, hence the second stage: 7x7 at eps 2.5 stalls at 3.8e-6 with e^12 alone).
 */
const LAZY_START_FACTOR = Math.exp(12);

/** Rounds without progress of master and bound (at unsmoothed duals) after which the loop ends as 'stalled'. */
const STALL_ROUNDS = 10;
/**
 * Rounds the master may sit at its first solution (the constant channel: a degenerate vertex) before the
 * constant columns are replaced by a private start channel using every output. On a concentrated prior at
 * small eps the master never left it otherwise (10 x 10 at eps 0.5: 58 rounds, and the loop had given up as
 * 'stalled' at an 86% gap after 21); starting from that channel right away made the 20 x 20 city at eps 0.5
 * much slower (its master moves from the third round on without it).
 */
const START_STUCK_ROUNDS = 5;
/** ... when the gap is at most STALL_GAP; above it STALL_ROUNDS_FAR (a degenerate master can sit still for dozens of rounds and then move: 58 on 10 x 10 at eps 0.5 when it started from the constant channel). */
const STALL_GAP = 1e-4;
const STALL_ROUNDS_FAR = 60;

/** The master is pruned when it holds more than this many columns per row (or the memory budget is reached). */
const MASTER_PRUNE_FACTOR = 15;
/** ... down to this many per row (or 2/3 of the budget). */
const MASTER_KEEP_FACTOR = 10;

// Master memory (masterBytes, MASTER_BYTES_PER_NONZERO) lives in memory-estimate.ts, where admission reads it too.
export { masterBytes };

function rowsOf(n: number, pairs: DecompositionPairs, keep: (e: number) => boolean): PricingRows {
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
  void n;
  return { from, to, factor };
}

/**
 * The rows a pricing model starts from: all pairs (factor <= e^18), or with
 * lazy rows ('auto': more than 8 pairs per secret) for each secret its
 * shortest pairs (log factor within 1.5x of its shortest: the 8-neighbours
 * on a grid), with a flag per directed pair row (2e, 2e + 1) held.
 */
function pricingSeed(n: number, pairs: DecompositionPairs, mode: 'all' | 'lazy' | 'auto', extra?: { from: Int32Array; to: Int32Array }, lazyMaxFactor = MAX_PRICING_FACTOR): { rows: PricingRows; inPricing: Uint8Array | null } {
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
  return { rows: rowsOf(n, pairs, keep), inPricing };
}

/**
 * Directed pair rows (factor <= e^18) that r violates and the pricing model
 * does not hold yet (marked held in inPricing and appended to out).
 */
function violatedRows(r: Float64Array, pairs: DecompositionPairs, inPricing: Uint8Array, out: { from: number[]; to: number[]; factor: number[] }, limit = Infinity, maxFactor = MAX_PRICING_FACTOR): void {
  const P = pairs.from.length;
  // Candidates: directed row index 2e or 2e + 1 and its violation (log of the ratio's excess).
  const cand: { k: number; v: number }[] = [];
  for (let e = 0; e < P; e++) {
    const f = pairs.factor[e]!;
    if (f > maxFactor) continue;
    const ra = r[pairs.from[e]!]!;
    const rb = r[pairs.to[e]!]!;
    if (ra > f * rb * (1 + 1e-9) + 1e-12 && !inPricing[2 * e]) cand.push({ k: 2 * e, v: (ra - f * rb) / ra });
    else if (rb > f * ra * (1 + 1e-9) + 1e-12 && !inPricing[2 * e + 1]) cand.push({ k: 2 * e + 1, v: (rb - f * ra) / rb });
  }
  // The most violated first, at most `limit` (the others are usually implied by them).
  if (cand.length > limit) cand.sort((x, y) => y.v - x.v);
  for (let i = 0; i < cand.length && i < limit; i++) {
    const k = cand[i]!.k;
    const e = k >> 1;
    inPricing[k] = 1;
    const a = k & 1 ? pairs.to[e]! : pairs.from[e]!;
    const b = k & 1 ? pairs.from[e]! : pairs.to[e]!;
    out.from.push(a);
    out.to.push(b);
    out.factor.push(pairs.factor[e]!);
  }
}

/** Rounds with plateau columns only (no bound) between two rounds of exact pricing. */
const PLATEAU_MAX_SKIP = 3;

/**
 * Plateau columns (see DecompositionOptions.plateau). G row s is
 * e^(-dist(., s)) along the pair graph (the lifted indicator of s, a point of
 * P); a plateau r_S = max over s in S of G[s] is in P too (P is closed under
 * pointwise max: r_a <= f r_b for each term).
 */
class PlateauSearch {
  private readonly G: Float64Array;
  private readonly order: Int32Array;
  private readonly K: number;
  private readonly v: Float64Array;

  constructor(
    private readonly n: number,
    private readonly m: number,
    lifter: ColumnLifter,
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

/** Lazy rows added per output and round: the most violated ones. */
const LAZY_ROWS_PER_OUTPUT = 16;

const toRows = (o: { from: number[]; to: number[]; factor: number[] }): PricingRows => ({ from: Int32Array.from(o.from), to: Int32Array.from(o.to), factor: Float64Array.from(o.factor) });

/**
 * The columns of a private channel with every output in use, from the lifted
 * indicators G_w = e^(-dist(., w)) (points of P, G_w(w) = 1, one per secret w):
 * column w is sqrt(G_w) / Z with Z_x = sum_w sqrt(G_w(x)) >= 1. On a pair row
 * r_a <= f r_b of P, sqrt(G_w) changes by at most sqrt(f) (dist is a shortest
 * path over the rows' log f) and so does Z, so each column lies in P, and the
 * rows sum to 1: the exponential mechanism at half the model's eps.
 */
export function privateStartChannel(lifted: Float64Array[]): Float64Array[] {
  const n = lifted.length;
  const Z = new Float64Array(n);
  const cols = lifted.map((g) => {
    const q = new Float64Array(n);
    for (let x = 0; x < n; x++) Z[x] += q[x] = Math.sqrt(g[x]!);
    return q;
  });
  for (const q of cols) for (let x = 0; x < n; x++) q[x] = q[x]! / Z[x]!;
  return cols;
}

export async function solveByColumnDecomposition(
  n: number,
  m: number,
  cost: Float64Array,
  sense: 'minimize' | 'maximize',
  pairs: DecompositionPairs,
  what: string,
  options?: LpOptions,
  opts: DecompositionOptions = {},
): Promise<DecompositionResult> {
  const tolerance = opts.tolerance ?? 1e-9;
  const alpha0 = opts.smoothing ?? 0.8;
  const maxIterations = opts.maxIterations ?? 2000;
  if (!(tolerance > 0)) throw new MechError('invalid-input', `${what}: the decomposition tolerance must be > 0`);
  if (!(alpha0 >= 0 && alpha0 < 1)) throw new MechError('invalid-input', `${what}: the smoothing weight must be in [0, 1)`);
  const sign = sense === 'maximize' ? -1 : 1;
  const t0 = performance.now();
  const deadline = options?.timeLimitSeconds !== undefined ? t0 + options.timeLimitSeconds * 1000 : Infinity;
  // Column-major costs for pricing: c[w*n + x], minimised.
  const c = new Float64Array(n * m);
  for (let x = 0; x < n; x++) for (let w = 0; w < m; w++) c[w * n + x] = sign * cost[x * m + w]!;
  checkCancelled(options, `building ${what}`);
  const { rows: seedRows, inPricing } = pricingSeed(n, pairs, opts.pricingRows ?? 'auto', opts.seedPairs, LAZY_START_FACTOR);
  // Largest factor of the rows a lazy pricing model admits (raised to MAX_PRICING_FACTOR when the loop stalls).
  let lazyMaxFactor = LAZY_START_FACTOR;
  const lifter = new ColumnLifter(n, pairs.from, pairs.to, pairs.factor);

  // Memory: the master needs at least its starting columns (and the box); refuse at the start when even that does not fit.
  const budget = opts.masterBudgetBytes ?? MASTER_BUDGET_FRACTION * LP_MEMORY_LIMIT_BYTES;
  // Starting columns: the constant column of the cheapest output, the lifted indicator of each output that is a
  // secret, and the 2n box columns (one entry each); the memory test asks room for a quarter of n more dense columns.
  const startDense = 1 + Math.min(m, n);
  const minCols = startDense + 2 * n;
  const startBytes = masterStartBytes(n, m);
  if (startBytes > budget) {
    throw new MechError(
      'too-large',
      `${what}: the decomposition master would need about ${(startBytes / 2 ** 20).toFixed(0)} MiB of solver memory for its ${startDense} starting columns of ${n} entries, over its ${(budget / 2 ** 20).toFixed(0)} MiB budget; use a smaller domain`,
      { estimateBytes: startBytes, limitBytes: budget },
    );
  }
  const maxCols = Math.max(minCols + Math.ceil(n / 4), Math.min(MASTER_PRUNE_FACTOR * n + 2 * n, Math.floor((budget - estimateLpBytes(0, n, 0)) / (900 + MASTER_BYTES_PER_NONZERO * n))));
  const keepCols = Math.max(minCols, Math.min(MASTER_KEEP_FACTOR * n + 2 * n, Math.floor((2 / 3) * maxCols)));

  // Starting columns: constant 1 and, for outputs that are secrets, the indicator of w lifted into P (e^(-dist(., w)) along the pair graph).
  const start: { w: number; r: Float64Array }[] = [];
  const ones = new Float64Array(n).fill(1);
  // One constant column, for the output whose constant channel costs least (the others are never better: pricing finds them if needed).
  let cheapest = 0;
  let cheapestCost = Infinity;
  for (let w = 0; w < m; w++) {
    let s = 0;
    for (let x = 0; x < n; x++) s += c[w * n + x]!;
    if (s < cheapestCost) {
      cheapestCost = s;
      cheapest = w;
    }
  }
  start.push({ w: cheapest, r: ones });
  const indicators: Float64Array[] = [];
  for (let w = 0; w < m; w++) {
    if (w < n) {
      const r = new Float64Array(n);
      r[w] = 1;
      start.push({ w, r: lifter.lift(r) });
      indicators.push(r);
    }
  }
  // The restart when the master sits at its first solution (see START_STUCK_ROUNDS): a private channel with
  // every output in use (privateStartChannel) replaces the constant columns.
  const canRestart = m >= n && opts.startChannel !== false && masterBytes(n, startDense + n) <= budget;

  const masterLp = new SparseLp(0, n, 0);
  const none = new Int32Array(0);
  const noneV = new Float64Array(0);
  for (let x = 0; x < n; x++) masterLp.addRow(1, 1, none, noneV);
  const subOptions: LpOptions = { signal: options?.signal, cancelFlag: options?.cancelFlag, solver: 'simplex', formulation: 'primal', highsOptions: { simplex_strategy: 4, ...options?.highsOptions } };
  const master = await PersistentLp.open(masterLp, `${what} (master)`, subOptions);
  let pricing: PricingEngine | undefined;
  let relaxed: PricingModel | undefined;
  try {
    pricing = await openPricing(opts.threads ?? 1, n, m, seedRows, what, subOptions);
    const colOutput: number[] = [];
    const colVectors: Float64Array[] = [];
    const appendColumns = (batch: { w: number; r: Float64Array }[]): void => {
      const k = batch.length;
      const cc = new Float64Array(k);
      const st = new Int32Array(k + 1);
      const ix = new Int32Array(k * n);
      const vv = new Float64Array(k * n);
      let p = 0;
      for (let j = 0; j < k; j++) {
        const { w, r } = batch[j]!;
        st[j] = p;
        let s = 0;
        for (let x = 0; x < n; x++) {
          const v = r[x]!;
          if (v > 0) {
            ix[p] = x;
            vv[p] = v;
            p++;
            s += c[w * n + x]! * v;
          }
        }
        cc[j] = s;
        colOutput.push(w);
        colVectors.push(r);
      }
      st[k] = p;
      master.addColumns(cc, st, ix, vv);
    };
    appendColumns(start);
    const first = master.run(false);
    const firstUpper = first.objective;
    // The best private channel so far: the last master solution that uses no penalty column (the first one qualifies).
    const assemble = (theta: Float64Array): Float64Array => {
      const C = new Float64Array(n * m);
      for (let j = 0; j < colOutput.length; j++) {
        const w = colOutput[j]!;
        const th = theta[j]!;
        if (w < 0 || !(th > 0)) continue;
        const r = colVectors[j]!;
        for (let x = 0; x < n; x++) C[x * m + w] += th * r[x]!;
      }
      return C;
    };
    let best = { channel: assemble(first.colValue), upper: firstUpper };
    // du Merle box: penalty columns +-e_x of cost B bound the duals to [-B, B].
    let box = Math.max(Math.abs(firstUpper), 1e-12);
    let boxStart = colOutput.length;
    const addBox = (B: number): void => {
      const k = 2 * n;
      const st = new Int32Array(k + 1);
      const ix = new Int32Array(k);
      const vv = new Float64Array(k);
      for (let j = 0; j < k; j++) {
        st[j] = j;
        ix[j] = j % n;
        vv[j] = j < n ? 1 : -1;
        colOutput.push(-1);
        colVectors.push(ones);
      }
      st[k] = k;
      master.addColumns(new Float64Array(k).fill(B), st, ix, vv);
    };
    addBox(box);

    const v = new Float64Array(n);
    const lamS = new Float64Array(n);
    // lambda = 0 is a valid starting centre: its bound L(0) = sum_w min_P c_w . r (0 for costs >= 0).
    let lamBest = new Float64Array(n);
    let lowerBest = -Infinity;
    let cNonNeg = true;
    for (let i = 0; i < c.length; i++) if (c[i]! < 0) cNonNeg = false;
    if (cNonNeg) lowerBest = 0;
    const iterations: DecompositionIteration[] = [];
    let masterMs = 0;
    let pricingMs = 0;
    let simplexIterations = 0;
    let upper = firstUpper;
    let lam = new Float64Array(n);
    let boxUsed = false;
    let stalled = 0;
    let lastUpper = Infinity;
    let pruned = 0;
    let boundStalled = 0;
    let lastExact = -1;
    let plateauColumns = 0;
    let restarted = false;
    let stuckAtStart = 0;
    const plateau = opts.plateau !== true || m > n || n > 2500 ? null : new PlateauSearch(n, m, lifter, opts.plateauCandidates ?? 48);
    // Self-adjusting smoothing (Pessoa, Sadykov, Uchoa, Vanderbeck 2018): the weight alphaA on the centre moves by the
    // supergradient at the priced point: towards the master's duals while L still rises that way, towards the centre otherwise.
    const adaptive = opts.smoothingMode === 'adaptive';
    let alphaA = alpha0;
    const rsum = new Float64Array(n);
    let lastFraction = 0.1;
    const gapOf = (up: number, lo: number): number => (lo === -Infinity ? 1 : Math.max(0, (up - lo) / Math.max(Math.abs(up), 1e-12)));
    const finish = async (stoppedBy: DecompositionStop, message?: string): Promise<DecompositionResult> => {
      let relaxedBound: number | undefined;
      let relaxedBoundMs = 0;
      if (opts.relaxedPairs && stoppedBy !== 'solver-memory' && lowerBest > -Infinity) {
        // One pricing round over the other model at the best duals (lazy rows
        // for all pairs: each output re-solved until its solution violates no
        // pair, so its minimum is over the other model's polytope; every safe
        // bound along the way is valid): a certified bound on its optimum.
        const rp = opts.relaxedPairs;
        const seed = pricingSeed(n, rp, 'auto', { from: pairs.from, to: pairs.to });
        relaxed = await PricingModel.open(n, m, seed.rows, `${what} (bound of the other model)`, subOptions);
        const tb = performance.now();
        let lo = 0;
        for (let x = 0; x < n; x++) lo += lamBest[x]!;
        // Certify each pricing to 1e-4 of the bound's share (cold re-solves otherwise dominate), at most 4 rounds of rows per output.
        const retry = (1e-4 * Math.abs(lowerBest)) / m;
        for (let w = 0; w < m; w++) {
          if ((w & 15) === 0) checkCancelled(options, `bounding ${what}`);
          for (let x = 0; x < n; x++) v[x] = c[w * n + x]! - lamBest[x]!;
          let out = relaxed.solve(w, v, retry);
          // Rows are added only within a time budget (a quarter of the solve so far, at least 5 s); past it each output is priced once on the rows held (still a relaxation, still valid).
          const budgetLeft = performance.now() - tb < Math.max(5000, 0.25 * (tb - t0));
          for (let k = 0; seed.inPricing && budgetLeft && k < 4; k++) {
            const add = { from: [] as number[], to: [] as number[], factor: [] as number[] };
            violatedRows(out.r, rp, seed.inPricing, add, LAZY_ROWS_PER_OUTPUT);
            if (add.from.length === 0) break;
            relaxed.addRows(toRows(add));
            out = relaxed.solve(w, v, retry);
          }
          lo += Math.min(0, out.safeBound);
        }
        relaxedBound = sign * Math.min(lo, lowerBest);
        relaxedBoundMs = performance.now() - tb;
      }
      return {
        channel: best.channel,
        objective: sign * best.upper,
        bound: sign * lowerBest,
        gap: gapOf(best.upper, lowerBest),
        stoppedBy,
        message,
        relaxedBound,
        relaxedBoundMs,
        iterations,
        columns: colOutput.length,
        pruned,
        masterMs,
        pricingMs,
        pricingRows: pricing!.rows,
        pricingColdRetries: pricing!.coldRetries,
        pricingFailures: pricing!.failures,
        plateauColumns,
        simplexIterations,
      };
    };
    // Keep the master bounded: past maxCols columns (15n, or fewer when the
    // memory budget says so), drop the non-basic ones with the largest
    // reduced costs down to keepCols (pricing brings back any needed;
    // pruning harder, to 3n, doubled the rounds on the city at eps 0.5).
    const pruneMaster = (theta: Float64Array, lam: Float64Array, scale: number, added: number): void => {
      if (colOutput.length > maxCols) {
        const cand: { j: number; rc: number }[] = [];
        for (let j = 0; j < colOutput.length - added; j++) {
          const w = colOutput[j]!;
          if (w < 0 || theta[j]! > 0) continue;
          const r = colVectors[j]!;
          let rc = 0;
          for (let x = 0; x < n; x++) rc += (c[w * n + x]! - lam[x]!) * r[x]!;
          if (rc > 1e-9 * scale) cand.push({ j, rc });
        }
        cand.sort((a, b) => b.rc - a.rc);
        const drop = cand
          .slice(0, Math.max(0, colOutput.length - keepCols))
          .map((e) => e.j)
          .sort((a, b) => a - b);
        if (drop.length > 0) {
          master.deleteColumns(Int32Array.from(drop));
          let k = 0;
          let d = 0;
          for (let j = 0; j < colOutput.length; j++) {
            if (d < drop.length && drop[d] === j) {
              d++;
              continue;
            }
            colOutput[k] = colOutput[j]!;
            colVectors[k] = colVectors[j]!;
            k++;
          }
          colOutput.length = k;
          colVectors.length = k;
          boxStart = colOutput.indexOf(-1);
          pruned += drop.length;
        }
      }
    };
    for (let it = 0; ; it++) {
      if (it >= maxIterations) return await finish('iteration-limit');
      if (performance.now() > deadline) return await finish('time-limit');
      if (opts.shouldStop?.()) return await finish('stopped');
      checkCancelled(options, `solving ${what}`);
      let t = performance.now();
      let ms;
      try {
        ms = master.run(false);
      } catch (e) {
        if (e instanceof MechError && e.code === 'too-large') return await finish('solver-memory', e.message);
        throw e;
      }
      masterMs += performance.now() - t;
      simplexIterations += ms.iterations;
      upper = ms.objective;
      lam = master.rowDuals().slice(0, n);
      // Penalty columns in use: the box is too tight for this master, widen it (the duals it clips are not the optimum's).
      // (Basic at a rounding level on a degenerate vertex does not count.)
      let boxMass = 0;
      for (let j = boxStart; j < colOutput.length; j++) if (colOutput[j] === -1) boxMass += Math.abs(ms.colValue[j]!);
      boxUsed = boxMass > 1e-9;
      if (!boxUsed && upper <= best.upper) best = { channel: assemble(ms.colValue), upper };
      if (canRestart && !restarted) {
        stuckAtStart = upper >= firstUpper - 1e-12 * Math.max(Math.abs(firstUpper), 1e-12) ? stuckAtStart + 1 : -Infinity;
        if (stuckAtStart >= START_STUCK_ROUNDS) {
          // Degenerate start: drop the constant columns (the constant channel is the first master's optimum and
          // its duals price columns the master cannot use) and offer the start channel instead.
          restarted = true;
          const drop: number[] = [];
          for (let j = 0; j < colOutput.length; j++) if (colOutput[j]! >= 0 && colVectors[j] === ones) drop.push(j);
          master.deleteColumns(Int32Array.from(drop));
          let k = 0;
          for (let j = 0; j < colOutput.length; j++) {
            if (colOutput[j]! >= 0 && colVectors[j] === ones) continue;
            colOutput[k] = colOutput[j]!;
            colVectors[k] = colVectors[j]!;
            k++;
          }
          colOutput.length = k;
          colVectors.length = k;
          boxStart = colOutput.indexOf(-1);
          appendColumns(privateStartChannel(indicators).map((r, w) => ({ w, r })));
          stalled = 0;
          continue;
        }
      }
      const scale = Math.max(Math.abs(upper), 1e-12);
      const gapNow = gapOf(upper, lowerBest);
      // Smoothing fades as the gap closes, and halves with every round the
      // master does not improve (degenerate masters: new columns enter at 0
      // and only the bound can move, which smoothing would slow down).
      if (upper < lastUpper - 1e-9 * scale) stalled = 0;
      else if (it > 0) stalled++;
      lastUpper = upper;
      const alpha = (adaptive ? (gapNow > 1e-5 ? alphaA : 0) : gapNow > 1e-2 ? alpha0 : gapNow > 1e-3 ? 0.6 * alpha0 : gapNow > 1e-5 ? 0.3 * alpha0 : 0) * 0.5 ** stalled;
      for (let x = 0; x < n; x++) lamS[x] = alpha * lamBest[x]! + (1 - alpha) * lam[x]!;
      let lower = 0;
      for (let x = 0; x < n; x++) lower += lamS[x]!;
      const batch: { w: number; r: Float64Array }[] = [];
      // Lazy rows: pairs some pricing solution violates (added after the round, so stored bases stay valid during it).
      const newRows = { from: [] as number[], to: [] as number[], factor: [] as number[] };
      let complete = true;
      t = performance.now();
      // Plateau columns first (cheap, no LP): while they improve the master, exact pricing (the bound) runs only every PLATEAU_MAX_SKIP + 1 rounds.
      let heuristic = false;
      if (plateau && !boxUsed && it - lastExact <= PLATEAU_MAX_SKIP) {
        const cols = plateau.columns(c, lam, -1e-9 * scale);
        if (cols.length >= Math.max(1, Math.ceil(m / 50))) {
          heuristic = true;
          batch.push(...cols);
          plateauColumns += cols.length;
        }
      }
      if (!heuristic) lastExact = it;
      let priced: { complete: boolean; outcomes: (PricingOutcome | undefined)[] } = { complete: false, outcomes: [] };
      if (!heuristic) try {
        // A pricing bound within 1% of the gap's share per output is good enough: a cold re-solve
        // (to certify the warm one) only where it matters (measured: 200 cold solves per round on all pairs otherwise).
        const retryTolerance = lowerBest === -Infinity ? 0 : (0.01 * Math.max(0, upper - lowerBest)) / m;
        priced = await pricing.price(c, lamS, deadline, opts.shouldStop, retryTolerance);
      } catch (e) {
        if (e instanceof MechError && e.code === 'too-large') return await finish('solver-memory', e.message);
        throw e;
      }
      // A partial round (deadline, stop) gives no bound; a plateau round none either.
      complete = !heuristic && priced.complete;
      rsum.fill(0);
      for (let w = 0; w < m; w++) {
        const ps = priced.outcomes[w];
        if (!ps) continue;
        if (adaptive) for (let x = 0; x < n; x++) rsum[x] += ps.r[x]!;
        const cw = w * n;
        simplexIterations += ps.iterations;
        lower += Math.min(0, ps.safeBound);
        const r = ps.r;
        if (inPricing) violatedRows(r, pairs, inPricing, newRows, LAZY_ROWS_PER_OUTPUT, lazyMaxFactor);
        // Reduced cost against the master's own duals, of the column lifted into P.
        lifter.lift(r);
        let rc = 0;
        for (let x = 0; x < n; x++) rc += (c[cw + x]! - lam[x]!) * r[x]!;
        if (rc < -1e-12 * scale) batch.push({ w, r });
      }
      pricingMs += performance.now() - t;
      if (adaptive && complete && alpha > 0) {
        // Supergradient of L at lamS: g_x = 1 - sum_w r_w[x] (the pricing minimisers); g . (lam - lamBest) > 0: L rises towards the master's duals.
        let dot = 0;
        for (let x = 0; x < n; x++) dot += (1 - rsum[x]!) * (lam[x]! - lamBest[x]!);
        alphaA = dot > 0 ? Math.max(0, alphaA - 0.1) : Math.min(0.99, alphaA + 0.1 * (1 - alphaA));
      }
      if (complete && lower > lowerBest + 1e-12 * scale) boundStalled = 0;
      else if (!heuristic) boundStalled++;
      if (complete && lower > lowerBest) {
        lowerBest = lower;
        lamBest = lamS.slice();
      }
      const gap = gapOf(upper, lowerBest);
      // What a stop or a time limit would return now: the best private channel so far (the master's objective
      // is not one while its penalty columns are in use), and its certified gap.
      const bestGap = gapOf(best.upper, lowerBest);
      const round: DecompositionIteration = {
        round: it + 1,
        objective: sign * best.upper,
        bound: sign * lowerBest,
        gap: bestGap,
        added: batch.length,
        masterMs,
        pricingMs,
        elapsedMs: performance.now() - t0,
        pricingRows: pricing.rows + newRows.from.length,
        pricingColdRetries: pricing.coldRetries,
        exactPricing: !heuristic,
      };
      iterations.push(round);
      opts.onRound?.(round);
      // Monotonic progress: the larger of the gap's way (log scale) from 100% to the target and the time used of the limit.
      const gapFrac = Math.min(1, Math.log10(Math.max(bestGap, tolerance)) / Math.log10(tolerance));
      const timeFrac = deadline < Infinity ? (performance.now() - t0) / (deadline - t0) : 0;
      lastFraction = Math.max(lastFraction, Math.min(0.88, 0.1 + 0.78 * Math.max(gapFrac, timeFrac, 0)));
      progress(options, lastFraction, `solving ${what} by column decomposition: round ${it + 1}, objective ${(sign * best.upper).toPrecision(8)}, bound ${(sign * lowerBest).toPrecision(8)}, gap ${(bestGap * 100).toPrecision(2)}%, ${colOutput.length} columns, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      if (heuristic) {
        appendColumns(batch);
        pruneMaster(ms.colValue, lam, scale, batch.length);
        continue;
      }
      if (!complete) continue; // the loop head returns the best so far
      if (newRows.from.length > 0) {
        try {
          await pricing.addRows(toRows(newRows));
        } catch (e) {
          if (e instanceof MechError && e.code === 'too-large') return await finish('solver-memory', e.message);
          throw e;
        }
      }
      if (boxUsed) {
        // du Merle: the penalty columns stand in for columns not generated yet;
        // widen the box only once pricing finds nothing better to offer.
        if (batch.length === 0 && newRows.from.length === 0) {
          box *= 10;
          master.setCostRange(boxStart, new Float64Array(2 * n).fill(box));
        } else appendColumns(batch);
        continue;
      }
      if (gap <= tolerance) return await finish(gap <= 1e-9 ? 'optimal' : 'target-gap');
      // Far from the target a stall is more likely degeneracy than solver accuracy: more patience there.
      const stallLimit = gap <= STALL_GAP ? STALL_ROUNDS : STALL_ROUNDS_FAR;
      const stalledOut = newRows.from.length === 0 && alpha < 1e-6 && ((stalled >= stallLimit && boundStalled >= stallLimit) || batch.length === 0);
      if (stalledOut && inPricing && lazyMaxFactor < MAX_PRICING_FACTOR) {
        // Second stage of lazy pricing: admit the far rows (up to e^18) and go on.
        lazyMaxFactor = MAX_PRICING_FACTOR;
        stalled = 0;
        boundStalled = 0;
        appendColumns(batch);
        pruneMaster(ms.colValue, lam, scale, batch.length);
        continue;
      }
      if (newRows.from.length === 0 && alpha < 1e-6 && stalled >= stallLimit && boundStalled >= stallLimit) {
        // Neither the master nor the bound has moved for STALL_ROUNDS rounds at
        // the master's own duals: the columns priced out have reduced costs
        // below the solver's tolerance. The certified gap is what it is.
        return await finish(gap <= 1e-9 ? 'optimal' : 'stalled');
      }
      if (batch.length === 0 && newRows.from.length === 0 && alpha < 1e-6) {
        // Nothing to add at the master's own duals: the master is optimal; the
        // bound there equals it up to the solver's accuracy.
        return await finish(gap <= 1e-9 ? 'optimal' : 'target-gap');
      }
      appendColumns(batch);
      pruneMaster(ms.colValue, lam, scale, batch.length);
    }
  } finally {
    relaxed?.dispose();
    await pricing?.dispose();
    master.dispose();
  }
}
