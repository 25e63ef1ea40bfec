import type { LpStop } from '../mechanism/lp-result';
import { MechError } from '../../src-shared/errors';
import { type LpOptions, checkCancelled, progress, warmSimplexOptions } from './lp-options';
import { type LpSolution, type RunStop, runStopReason } from './persistent-lp';
import { DecompositionMaster, type MasterColumn } from './decomposition-master';
import { PlateauSearch, PLATEAU_MAX_SKIP } from './plateau-search';
import {
  type DecompositionPairs,
  LAZY_ROWS_PER_GROUPED_OUTPUT,
  LAZY_ROWS_PER_OUTPUT,
  LAZY_START_FACTOR,
  MAX_PRICING_FACTOR,
  pricingSeed,
  toRows,
  violatedRows,
} from './pricing-rows';
import {
  estimateLpBytes,
  LP_MEMORY_LIMIT_BYTES,
  MASTER_BYTES_PER_NONZERO,
  MASTER_BUDGET_FRACTION,
  lazyPricingGroupSize,
  masterBytes,
  masterStartBytes,
} from './memory-estimate';
import { PricingModel, type PricingForm, type PricingRows, outputGroup } from './pricing';
import { ColumnLifter, type Lifter } from './privacy-repair';
import { type PricingEngine, type PricingFactory, openPricing } from './pricing-pool';

/**
 * Dantzig-Wolfe decomposition of the LP over d-private channels (docs/lp.md, "Solution methods") by
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
 * Every plateau r_S(x) = e^(-dist(x, S)) (S a non-empty set of secrets,
 * dist the shortest paths of the pair graph with lengths log f_e) is a point
 * of P, but P has other vertices: along a vertex's tight rows an entry sits
 * either at the least value a higher neighbour forces (r_b = r_a / f, as in
 * a plateau) or at the cap a lower neighbour allows (r_a = f r_b). On 3 x 3
 * grids pricing optima lie up to 1e-3 below the best of all 511 plateaus
 * (test/unit/lp/pricing.test.ts), so pricing stays an LP. At the optimum the
 * master has at most n basic columns, about one per output: the master
 * stays small (n rows, a few thousand columns), pricing is n-variable LPs,
 * and the 160,000-variable 20 x 20 city LP, whose 1.19M-row spanner model
 * does not fit the solver heap, is solved in under a minute.
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
   * Opens the pricing engine (default openPricing: this thread or `threads` worker threads). A host injects
   * another engine here, e.g. pricing on a job queue's workers (src-main/queue/pricing-master.ts); the algorithm
   * is the same whatever prices.
   */
  pricing?: PricingFactory;
  /**
   * Plateau columns (default off: on the 20 x 20 city, spanner, eps 1, 140 s
   * with them against 65 s without: one dense column per output and round
   * made the master 4x slower, and the bound moved every 4th round only):
   * before the pricing LPs, for each output w grow a set S of secrets around
   * w greedily (nearest first, a secret joins when it lowers the reduced
   * cost) and offer the plateau r_S = max over s in S of e^(-dist(., s)), a
   * point of P (not always a vertex of it, see above). While these improve the
   * master, the pricing LPs (which give the bound) run only every
   * PLATEAU_MAX_SKIP + 1 rounds.
   */
  plateau?: boolean;
  /** How the pricing LPs are handed to HiGHS (pricing.ts PricingForm); default pricingFormFor(lazy rows or not). */
  pricingForm?: PricingForm;
  /**
   * Outputs per pricing model when rows are lazy (pricing.ts PricingGroups: each group's model holds the seed and
   * the rows its own outputs violated). Default: the smallest size whose models fit the solver heap
   * (memory-estimate.ts lazyPricingGroupSize); m gives one shared model (the behaviour before groups).
   */
  pricingGroupSize?: number;
  /**
   * Smoothing while the best bound is still the trivial start (lambda = 0,
   * bound 0): 'smooth' (default) prices at alpha x 0 + (1 - alpha) lambda_master
   * like any round; 'master' prices at the master's own duals until a first
   * bound above the start is found (an experiment for the large grids, where
   * the bound stayed 0 for several full rounds).
   */
  trivialCentre?: 'smooth' | 'master';
  /** Replace the constant start columns by a private channel using every output when the master sits at its first solution (default true; see START_STUCK_ROUNDS). */
  startChannel?: boolean;
  /**
   * Partial pricing (default 1: off): with k > 1, between two full pricing
   * rounds (which give the bound) up to k - 1 rounds price only every k-th
   * output (a rotating block), adding their columns to the master; a partial
   * round that finds no column, or k rounds since the last full one, brings a
   * full round. The bound is computed from full rounds only, so it stays valid.
   */
  partialPricing?: number;
  /** Candidates per output for the plateau search (default 48 nearest secrets). */
  plateauCandidates?: number;
  /**
   * Memory budget for the master in bytes (default 40% of the LP memory limit): the master is pruned to fit it,
   * counted at MASTER_BYTES_PER_NONZERO per column entry, what the HiGHS master needed (the dense simplex that
   * replaced it holds 8 bytes per entry plus its n x n inverse: the estimate is conservative).
   */
  masterBudgetBytes?: number;
  /**
   * performance.now() when the caller's solve began (default: when the
   * decomposition starts): the time limit (LpOptions.timeLimitSeconds) and
   * the reported elapsed times count from there, the caller's set-up included.
   */
  startedAt?: number;
  /**
   * Duals to start from (length n, in the minimising sense of the internal costs), e.g. a coarser grid's optimal
   * duals spread over its cells (coarse-start.ts): the first round prices exactly there; its bound, when above the
   * trivial one, becomes the best bound and these duals the smoothing centre. Any vector is safe: a bound is only ever
   * taken from a complete pricing round.
   */
  startDuals?: Float64Array;
  /** Remap the master's channel after each master solve and keep it as the best channel when cheaper (default true; see remapIncumbent). */
  remap?: boolean;
  /**
   * Columns of a known private channel to start the master with (e.g. a cheap construction's outputs, each
   * assigned to its Bayes guess: optimal-mechanism.ts). Each is lifted into P (unchanged when it lies in P
   * already) and appended with the start columns, so the first master costs no more than that channel when its
   * columns satisfy the model's rows. Seeded this way rather than with the remapped channel's merged columns:
   * those few wide columns made the master degenerate (see remapIncumbent).
   */
  seedColumns?: MasterColumn[];
  /**
   * Whether the seed columns lie in P already (a private channel's columns under the exact or edge model, up to
   * rounding): then they are not lifted (on a 50 x 50 grid lifting 2,500 dense columns over all pairs took a minute).
   */
  seedInP?: boolean;
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

export type DecompositionStop = LpStop;

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
  /** The duals of the best bound (the smoothing centre at the end), in the minimising sense of the internal costs: a start for a finer solve. */
  duals: Float64Array;
  /** Time spent on relaxedBound. */
  relaxedBoundMs: number;
  iterations: DecompositionIteration[];
  columns: number;
  /** Columns dropped from the master along the way (non-basic, largest reduced cost). */
  pruned: number;
  masterMs: number;
  pricingMs: number;
  /** Time spent remapping the master's channel (remapIncumbent). */
  remapMs: number;
  /** Rows of the pricing LP at the end. */
  pricingRows: number;
  /** Pricing solves repeated cold (the warm one was not certified by its safe bound, or failed), and solves that failed twice (box bound used). */
  pricingColdRetries: number;
  pricingFailures: number;
  /** Columns found by the plateau search (no LP). */
  plateauColumns: number;
  simplexIterations: number;
}

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

/**
 * The master is pruned when it holds more than this many columns per row (or the memory budget is reached),
 * down to MASTER_KEEP_FACTOR per row (or 2/3 of the budget). Its columns are dense, so a master solve costs
 * about its column count; measured on the 20 x 20 city, 2 pricing threads, load 1: at eps 1, 15/10 per row
 * 31.6 s (32 rounds, never pruned), 6/4 28.3 s (33 rounds), 4/2 28.4 s (40 rounds); at eps 0.5 within 150 s,
 * 15/10 reached round 45 at a 49% gap, 6/4 round 87 at 38% (master 74 s of 150 against about 110).
 */
const MASTER_PRUNE_FACTOR = 6;
const MASTER_KEEP_FACTOR = 4;
/** Largest share of the solve's time the incumbent's remap may take (it is skipped in rounds where it would exceed it). */
const REMAP_TIME_SHARE = 0.1;
/** Longest wait (rounds) between remaps that gain nothing over the master's channel. */
const REMAP_MAX_WAIT = 7;

// Master memory (masterBytes, MASTER_BYTES_PER_NONZERO) lives in memory-estimate.ts, where admission reads it too.
export { masterBytes };
export type { DecompositionPairs };

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
    for (let x = 0; x < n; x++) Z[x]! += q[x] = Math.sqrt(g[x]!);
    return q;
  });
  for (const q of cols) for (let x = 0; x < n; x++) q[x] = q[x]! / Z[x]!;
  return cols;
}

/** Everything fixed before the rounds start. */
interface DecompositionSetup {
  n: number;
  m: number;
  what: string;
  sign: 1 | -1;
  tolerance: number;
  alpha0: number;
  maxIterations: number;
  t0: number;
  deadline: number;
  /** Column-major costs c[w*n + x], minimised. */
  c: Float64Array;
  pairs: DecompositionPairs;
  seedRows: PricingRows;
  /** One flag per directed pair row held by the pricing models from the start (lazy rows), or null when they hold them all. */
  inPricing: Uint8Array | null;
  /** Outputs per pricing model (pricing.ts PricingGroups): m (one model) unless lazy rows are held per group. */
  groupSize: number;
  lifter: Lifter;
  maxCols: number;
  keepCols: number;
  start: MasterColumn[];
  indicators: Float64Array[];
  canRestart: boolean;
  cNonNeg: boolean;
  /** A private channel known before any solve (what a stop during the set-up or the first master returns). */
  fallback: { channel: Float64Array; upper: number };
}

/**
 * Master size limits from its memory budget; refuses (MechError too-large)
 * when even the starting columns do not fit: the constant column of the
 * cheapest output, the lifted indicator of each output that is a secret, and
 * the 2n box columns (one entry each), with room for a quarter of n more
 * dense columns.
 */
function masterLimits(n: number, m: number, budget: number, what: string): { maxCols: number; keepCols: number; startDense: number } {
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
  const maxCols = Math.max(
    minCols + Math.ceil(n / 4),
    Math.min(MASTER_PRUNE_FACTOR * n + 2 * n, Math.floor((budget - estimateLpBytes(0, n, 0)) / (900 + MASTER_BYTES_PER_NONZERO * n))),
  );
  const keepCols = Math.max(minCols, Math.min(MASTER_KEEP_FACTOR * n + 2 * n, Math.floor((2 / 3) * maxCols)));
  return { maxCols, keepCols, startDense };
}

/**
 * The master's starting columns: one constant column, for the output whose
 * constant channel costs least (the others are never better: pricing finds
 * them if needed), and, for outputs that are secrets, the indicator of w
 * lifted into P (e^(-dist(., w)) along the pair graph). Returns the
 * indicators too (the restart's private start channel is built from them).
 */
function startColumns(c: Float64Array, n: number, m: number, lifter: Lifter, ones: Float64Array): { start: MasterColumn[]; indicators: Float64Array[] } {
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
  const start: MasterColumn[] = [{ w: cheapest, r: ones }];
  const indicators: Float64Array[] = [];
  for (let w = 0; w < Math.min(m, n); w++) {
    const r = new Float64Array(n);
    r[w] = 1;
    start.push({ w, r: lifter.lift(r) });
    indicators.push(r);
  }
  return { start, indicators };
}

/**
 * The cheaper of two private channels known without a solve: the constant
 * channel (every secret reports output `constant`: private for any model)
 * and, when every secret is an output, the private start channel
 * (privateStartChannel, each column in P). Row-major n x m.
 */
function fallbackChannel(c: Float64Array, n: number, m: number, constant: number, indicators: Float64Array[] | null): { channel: Float64Array; upper: number } {
  let upper = 0;
  for (let x = 0; x < n; x++) upper += c[constant * n + x]!;
  const channel = new Float64Array(n * m);
  if (indicators && indicators.length === n) {
    const cols = privateStartChannel(indicators);
    let cost = 0;
    for (let w = 0; w < n; w++) for (let x = 0; x < n; x++) cost += c[w * n + x]! * cols[w]![x]!;
    if (cost < upper) {
      for (let w = 0; w < n; w++) for (let x = 0; x < n; x++) channel[x * m + w] = cols[w]![x]!;
      return { channel, upper: cost };
    }
  }
  for (let x = 0; x < n; x++) channel[x * m + constant] = 1;
  return { channel, upper };
}

/**
 * The channel LP handed to the decomposition: n secrets, m outputs, cost[x*m + w] (row-major, like the
 * channel) minimised or maximised, over the channels whose every column satisfies the directed pair rows.
 */
export interface DecompositionProblem {
  n: number;
  m: number;
  cost: Float64Array;
  sense: 'minimize' | 'maximize';
  pairs: DecompositionPairs;
  /** What is solved, for messages. */
  what: string;
  /** The lift into P when the caller has a faster one than the max-product Dijkstra over `pairs` (privacy-repair.ts MetricLifter: all pairs of a grid). */
  lifter?: Lifter;
}

/** Validate the options, orient the costs, build the pricing seed, the lifter, the master limits and its start. */
function prepareDecomposition(
  { n, m, cost, sense, pairs, what, lifter: given }: DecompositionProblem,
  options: LpOptions | undefined,
  opts: DecompositionOptions,
  ones: Float64Array,
): DecompositionSetup {
  const tolerance = opts.tolerance ?? 1e-9;
  const alpha0 = opts.smoothing ?? 0.8;
  const maxIterations = opts.maxIterations ?? 2000;
  if (!(tolerance > 0)) throw new MechError('invalid-input', `${what}: the decomposition tolerance must be > 0`);
  if (!(alpha0 >= 0 && alpha0 < 1)) throw new MechError('invalid-input', `${what}: the smoothing weight must be in [0, 1)`);
  const sign = sense === 'maximize' ? -1 : 1;
  const t0 = opts.startedAt ?? performance.now();
  const deadline = options?.timeLimitSeconds !== undefined ? t0 + options.timeLimitSeconds * 1000 : Infinity;
  const c = new Float64Array(n * m);
  for (let x = 0; x < n; x++) for (let w = 0; w < m; w++) c[w * n + x] = sign * cost[x * m + w]!;
  let cNonNeg = true;
  for (let i = 0; i < c.length; i++) if (c[i]! < 0) cNonNeg = false;
  checkCancelled(options, `building ${what}`);
  const { rows: seedRows, inPricing } = pricingSeed(n, pairs, opts.pricingRows ?? 'auto', opts.seedPairs, LAZY_START_FACTOR);
  const lifter = given ?? new ColumnLifter(n, pairs.from, pairs.to, pairs.factor);
  const asked = opts.pricingGroupSize;
  if (asked !== undefined && !(Number.isInteger(asked) && asked >= 1))
    throw new MechError('invalid-input', `${what}: the pricing group size must be an integer >= 1, got ${asked}`);
  // Lazy rows per group (at most m: one shared model); rows held from the start: one model.
  const groupSize = inPricing ? Math.min(m, asked ?? lazyPricingGroupSize(m, seedRows.from.length, opts.threads ?? 1)) : m;
  const budget = opts.masterBudgetBytes ?? MASTER_BUDGET_FRACTION * LP_MEMORY_LIMIT_BYTES;
  const { maxCols, keepCols, startDense } = masterLimits(n, m, budget, what);
  const { start, indicators } = startColumns(c, n, m, lifter, ones);
  for (const col of opts.seedColumns ?? []) {
    if (!(Number.isInteger(col.w) && col.w >= 0 && col.w < m) || col.r.length !== n)
      throw new MechError('internal', `${what}: a seed column must be ${n} entries for an output in 0..${m - 1}`);
    start.push({ w: col.w, r: opts.seedInP ? col.r : lifter.lift(Float64Array.from(col.r)) });
  }
  // The restart when the master sits at its first solution (see START_STUCK_ROUNDS): a private channel with
  // every output in use (privateStartChannel) replaces the constant columns.
  const canRestart = m >= n && opts.startChannel !== false && masterBytes(n, startDense + n) <= budget;
  const fallback = fallbackChannel(c, n, m, start[0]!.w, m >= n ? indicators : null);
  return {
    n,
    m,
    what,
    sign,
    tolerance,
    alpha0,
    maxIterations,
    t0,
    deadline,
    c,
    pairs,
    seedRows,
    inPricing,
    groupSize,
    lifter,
    maxCols,
    keepCols,
    start,
    indicators,
    canRestart,
    cNonNeg,
    fallback,
  };
}

/**
 * One pricing round over another model's pairs (e.g. all pairs, for a
 * spanner solve) at the duals lam with Lagrangian bound `lower`: with lazy
 * rows each output is re-solved until its solution violates no pair (at most
 * 4 row rounds, within a time budget of a quarter of the solve so far, at
 * least 5 s; past it each output is priced once on the rows held, still a
 * relaxation); every safe bound along the way is valid, so the result is a
 * certified bound on that model's optimum (in the minimised sense).
 */
async function relaxedModelBound(
  s: DecompositionSetup,
  rp: DecompositionPairs,
  lam: Float64Array,
  lower: number,
  options: LpOptions | undefined,
  subOptions: LpOptions,
  form: PricingForm | undefined,
): Promise<{ bound: number; ms: number }> {
  const { n, m, c, what } = s;
  const seed = pricingSeed(n, rp, 'auto', { from: s.pairs.from, to: s.pairs.to });
  const relaxed = await PricingModel.open(n, m, seed.rows, `${what} (bound of the other model)`, subOptions, form ?? pricingFormFor(seed.inPricing));
  try {
    const tb = performance.now();
    const v = new Float64Array(n);
    let lo = 0;
    for (let x = 0; x < n; x++) lo += lam[x]!;
    // Certify each pricing to 1e-4 of the bound's share (cold re-solves otherwise dominate).
    const retry = (1e-4 * Math.abs(lower)) / m;
    for (let w = 0; w < m; w++) {
      if ((w & 15) === 0) checkCancelled(options, `bounding ${what}`);
      for (let x = 0; x < n; x++) v[x] = c[w * n + x]! - lam[x]!;
      let out = relaxed.solve(w, v, retry);
      const budgetLeft = performance.now() - tb < Math.max(5000, 0.25 * (tb - s.t0));
      for (let k = 0; seed.inPricing && budgetLeft && k < 4; k++) {
        const add = { from: [] as number[], to: [] as number[], factor: [] as number[] };
        violatedRows(out.r, rp, seed.inPricing, add, LAZY_ROWS_PER_OUTPUT);
        if (add.from.length === 0) break;
        relaxed.addRows(toRows(add));
        out = relaxed.solve(w, v, retry);
      }
      lo += Math.min(0, out.safeBound);
    }
    return { bound: Math.min(lo, lower), ms: performance.now() - tb };
  } finally {
    relaxed.dispose();
  }
}

/** Rows about to be added to the largest group's model (for the round's report). */
function maxPending(rows: Map<number, { from: number[] }>): number {
  let k = 0;
  for (const r of rows.values()) k = Math.max(k, r.from.length);
  return k;
}

/** Relative gap of an upper and a lower bound (1 while no bound is known). */
const gapOf = (up: number, lo: number): number => (lo === -Infinity ? 1 : Math.max(0, (up - lo) / Math.max(Math.abs(up), 1e-12)));

/** What one round's pricing produced. */
interface PricedRound {
  /** Columns with negative reduced cost at the master's duals, lifted into P. */
  batch: MasterColumn[];
  /** Lazy rows the pricing solutions violate, by group of outputs (pricing.ts PricingGroups), and how many in all. */
  newRows: Map<number, { from: number[]; to: number[]; factor: number[] }>;
  newRowCount: number;
  /** Whether every output was priced exactly (only then is `lower` a bound). */
  complete: boolean;
  /** Only plateau columns, or the pricing LPs of a block of outputs, were offered (no bound). */
  heuristic: boolean;
  lower: number;
}

/** The rounds of one decomposition: master solve, smoothed duals, pricing, bound, stopping rule. */
class DecompositionRun {
  private readonly iterations: DecompositionIteration[] = [];
  private masterMs = 0;
  private pricingMs = 0;
  private simplexIterations = 0;
  private firstUpper = Infinity;
  private upper = Infinity;
  private lam: Float64Array;
  private readonly lamS: Float64Array;
  private lamBest: Float64Array;
  /** lambda = 0 is a valid starting centre: its bound L(0) = sum_w min_P c_w . r (0 for costs >= 0). */
  private lowerBest: number;
  private best: { channel: Float64Array; upper: number };
  private boxUsed = false;
  private stalled = 0;
  private lastUpper = Infinity;
  private pruned = 0;
  private boundStalled = 0;
  private lastExact = -1;
  /** Partial pricing: the last full round, the partial rounds so far, and whether the last one found nothing. */
  private lastFull = -Infinity;
  private partialRounds = 0;
  private partialEmpty = false;
  private plateauColumns = 0;
  private restarted = false;
  private stuckAtStart = 0;
  /** Directed pair rows held by each group's pricing model (lazy rows; a copy of the seed's flags per group, made when first needed). */
  private readonly held: Uint8Array[] = [];
  private alphaA: number;
  private readonly rsum: Float64Array;
  private lastFraction = 0.1;
  /** Whether lowerBest is still the start value (no pricing round has raised it). */
  private trivialBound = true;
  /** Largest factor of the rows a lazy pricing model admits (raised to MAX_PRICING_FACTOR when the loop stalls). */
  private lazyMaxFactor = LAZY_START_FACTOR;
  private readonly plateau: PlateauSearch | null;
  private readonly adaptive: boolean;
  /** startDuals given and not priced yet: the first round prices exactly there. */
  private startPending = false;
  /** Time in remapIncumbent, and the master objective it last remapped. */
  private remapMs = 0;
  private lastRemapped = NaN;
  /** Rounds to skip before the next remap, and the current back-off (after remaps that gained nothing). */
  private remapWait = 0;
  private remapIdle = 0;

  constructor(
    private readonly s: DecompositionSetup,
    private readonly master: DecompositionMaster,
    private readonly pricing: PricingEngine,
    private readonly options: LpOptions | undefined,
    private readonly subOptions: LpOptions,
    private readonly opts: DecompositionOptions,
  ) {
    const { n, m } = s;
    this.lam = new Float64Array(n);
    this.lamS = new Float64Array(n);
    this.lamBest = new Float64Array(n);
    this.rsum = new Float64Array(n);
    this.lowerBest = s.cNonNeg ? 0 : -Infinity;
    this.best = s.fallback;
    this.plateau = opts.plateau !== true || m > n || n > 2500 ? null : new PlateauSearch(n, m, s.lifter, opts.plateauCandidates ?? 48);
    // Self-adjusting smoothing (Pessoa, Sadykov, Uchoa, Vanderbeck 2018): the weight alphaA on the centre moves by the
    // supergradient at the priced point: towards the master's duals while L still rises that way, towards the centre otherwise.
    this.adaptive = opts.smoothingMode === 'adaptive';
    this.alphaA = s.alpha0;
    if (opts.startDuals) {
      if (opts.startDuals.length !== n || !opts.startDuals.every(Number.isFinite))
        throw new MechError('invalid-input', `${s.what}: the start duals must be ${n} finite numbers`);
      this.lamBest = Float64Array.from(opts.startDuals);
      this.startPending = true;
    }
  }

  /** The time limit and the stop test, for the solver's checkpoints during a master solve. */
  private get runStop(): RunStop {
    return { deadline: this.s.deadline, shouldStop: this.opts.shouldStop };
  }

  /** Why the loop must stop now (time limit, stop test), or null. */
  private stopNow(): DecompositionStop | null {
    if (performance.now() > this.s.deadline) return 'time-limit';
    if (this.opts.shouldStop?.()) return 'stopped';
    return null;
  }

  /**
   * The start columns, the first master solve (its channel is the best so far
   * unless the fallback is cheaper), then the du Merle box. The time limit and
   * the stop test are honoured before and during that solve (on a 50 x 50
   * grid it took minutes): the reason is returned, and the best channel is
   * then the fallback.
   */
  start(): DecompositionStop | null {
    const { master } = this;
    const before = this.stopNow();
    if (before) return before;
    master.append(this.s.start);
    let first: LpSolution;
    try {
      first = master.run(this.runStop);
    } catch (e) {
      const reason = runStopReason(e);
      if (reason) return reason;
      throw e;
    }
    this.firstUpper = this.upper = first.objective;
    if (first.objective <= this.best.upper) this.best = { channel: master.assemble(first.colValue), upper: first.objective };
    master.addBox(Math.max(Math.abs(first.objective), 1e-12));
    return null;
  }

  async solve(): Promise<DecompositionResult> {
    for (let it = 0; ; it++) {
      const done = await this.round(it);
      if (done) return done;
    }
  }

  private async round(it: number): Promise<DecompositionResult | null> {
    const { s } = this;
    if (it >= s.maxIterations) return this.finish('iteration-limit');
    const stop = this.stopNow();
    if (stop) return this.finish(stop);
    checkCancelled(this.options, `solving ${s.what}`);
    const ms = this.solveMaster();
    if ('stop' in ms) return this.finish(ms.stop, ms.message);
    if (this.restartIfStuck()) return null;
    const scale = Math.max(Math.abs(this.upper), 1e-12);
    const alpha = this.smoothDuals(it, scale);
    let priced: PricedRound;
    try {
      priced = await this.priceRound(it, scale);
    } catch (e) {
      if (e instanceof MechError && e.code === 'too-large') return this.finish('solver-memory', e.message);
      throw e;
    }
    if (this.adaptive && priced.complete && alpha > 0) this.adaptSmoothing();
    this.updateBound(priced, scale);
    this.report(it, priced);
    return this.decide(priced, alpha, ms.colValue, scale);
  }

  /**
   * Solve the master (stopped by the time limit or the stop test like the
   * first one); the solution, or why the loop ends (a limit, or a solver
   * memory failure with its message). Updates the duals and the best private channel.
   */
  private solveMaster(): LpSolution | { stop: DecompositionStop; message?: string } {
    const t = performance.now();
    let ms: LpSolution;
    try {
      ms = this.master.run(this.runStop);
    } catch (e) {
      if (e instanceof MechError && e.code === 'too-large') return { stop: 'solver-memory', message: e.message };
      const reason = runStopReason(e);
      if (reason) return { stop: reason };
      throw e;
    }
    this.masterMs += performance.now() - t;
    this.simplexIterations += ms.iterations;
    this.upper = ms.objective;
    this.lam = this.master.duals();
    // Penalty columns in use: the box is too tight for this master, widen it (the duals it clips are not the optimum's).
    // (Basic at a rounding level on a degenerate vertex does not count.)
    this.boxUsed = this.master.boxMass(ms.colValue) > 1e-9;
    if (!this.boxUsed && this.upper <= this.best.upper) this.best = { channel: this.master.assemble(ms.colValue), upper: this.upper };
    if (!this.boxUsed && this.opts.remap !== false) this.remapIncumbent(ms.colValue);
    return ms;
  }

  /**
   * Degenerate start: when the master has sat at its first objective for
   * START_STUCK_ROUNDS rounds, drop the constant columns (the constant
   * channel is the first master's optimum and its duals price columns the
   * master cannot use) and offer the private start channel instead.
   */
  private restartIfStuck(): boolean {
    if (!this.s.canRestart || this.restarted) return false;
    const f = this.firstUpper;
    this.stuckAtStart = this.upper >= f - 1e-12 * Math.max(Math.abs(f), 1e-12) ? this.stuckAtStart + 1 : -Infinity;
    if (this.stuckAtStart < START_STUCK_ROUNDS) return false;
    this.restarted = true;
    this.master.dropConstantColumns();
    this.master.append(privateStartChannel(this.s.indicators).map((r, w) => ({ w, r })));
    this.stalled = 0;
    return true;
  }

  /**
   * Wentges smoothing: lamS = alpha lamBest + (1 - alpha) lam. The weight
   * fades as the gap closes, and halves with every round the master does not
   * improve (degenerate masters: new columns enter at 0 and only the bound
   * can move, which smoothing would slow down). Returns alpha.
   */
  private smoothDuals(it: number, scale: number): number {
    const { alpha0 } = this.s;
    const gapNow = gapOf(this.upper, this.lowerBest);
    if (this.upper < this.lastUpper - 1e-9 * scale) this.stalled = 0;
    else if (it > 0) this.stalled++;
    this.lastUpper = this.upper;
    const base = this.adaptive ? (gapNow > 1e-5 ? this.alphaA : 0) : gapNow > 1e-2 ? alpha0 : gapNow > 1e-3 ? 0.6 * alpha0 : gapNow > 1e-5 ? 0.3 * alpha0 : 0;
    const alpha = this.startPending ? 1 : this.trivialBound && this.opts.trivialCentre === 'master' ? 0 : base * 0.5 ** this.stalled;
    this.startPending = false;
    const { lam, lamS, lamBest } = this;
    for (let x = 0; x < lamS.length; x++) lamS[x] = alpha * lamBest[x]! + (1 - alpha) * lam[x]!;
    return alpha;
  }

  /**
   * Plateau columns first (cheap, no LP: while they improve the master, exact
   * pricing runs only every PLATEAU_MAX_SKIP + 1 rounds), else the pricing LPs
   * at the smoothed duals, their columns lifted into P and kept when their
   * reduced cost at the master's own duals is negative.
   */
  private async priceRound(it: number, scale: number): Promise<PricedRound> {
    const { s, lam, lamS } = this;
    const { n, m, c } = s;
    let lower = 0;
    for (let x = 0; x < n; x++) lower += lamS[x]!;
    const out: PricedRound = { batch: [], newRows: new Map(), newRowCount: 0, complete: false, heuristic: false, lower };
    const t = performance.now();
    if (this.plateau && !this.boxUsed && it - this.lastExact <= PLATEAU_MAX_SKIP) {
      const cols = this.plateau.columns(c, lam, -1e-9 * scale);
      if (cols.length >= Math.max(1, Math.ceil(m / 50))) {
        out.heuristic = true;
        out.batch.push(...cols);
        this.plateauColumns += cols.length;
        this.pricingMs += performance.now() - t;
        return out;
      }
    }
    this.lastExact = it;
    const only = this.partialBlock(it);
    out.heuristic = only !== undefined;
    // A pricing bound within 1% of the gap's share per output is good enough: a cold re-solve
    // (to certify the warm one) only where it matters (measured: 200 cold solves per round on all pairs otherwise).
    const retryTolerance = this.lowerBest === -Infinity ? 0 : (0.01 * Math.max(0, this.upper - this.lowerBest)) / m;
    const priced = await this.pricing.price({ c, lam: lamS, deadline: s.deadline, shouldStop: this.opts.shouldStop, retryTolerance, only });
    // A partial round (deadline, stop, or partial pricing) gives no bound.
    out.complete = priced.complete && !only;
    if (this.adaptive) this.rsum.fill(0);
    for (let w = 0; w < m; w++) {
      const ps = priced.outcomes[w];
      if (!ps) continue;
      if (this.adaptive) for (let x = 0; x < n; x++) this.rsum[x]! += ps.r[x]!;
      this.simplexIterations += ps.iterations;
      out.lower += Math.min(0, ps.safeBound);
      const r = ps.r;
      if (s.inPricing) {
        const g = outputGroup(w, s.groupSize);
        let rows = out.newRows.get(g);
        if (!rows) out.newRows.set(g, (rows = { from: [], to: [], factor: [] }));
        const before = rows.from.length;
        violatedRows(
          r,
          s.pairs,
          (this.held[g] ??= s.inPricing.slice()),
          rows,
          s.groupSize < m ? LAZY_ROWS_PER_GROUPED_OUTPUT : LAZY_ROWS_PER_OUTPUT,
          this.lazyMaxFactor,
        );
        out.newRowCount += rows.from.length - before;
      }
      // Reduced cost against the master's own duals, of the column lifted into P.
      s.lifter.lift(r);
      let rc = 0;
      for (let x = 0; x < n; x++) rc += (c[w * n + x]! - lam[x]!) * r[x]!;
      if (rc < -1e-12 * scale) out.batch.push({ w, r });
    }
    this.pricingMs += performance.now() - t;
    if (only) this.partialEmpty = out.batch.length === 0;
    return out;
  }

  /**
   * The outputs a partial pricing round prices (see DecompositionOptions.partialPricing), or undefined for a
   * full round: the first, k rounds after the last full one, after an empty partial round, and while the
   * penalty columns are in use (their box is only widened after a full round).
   */
  private partialBlock(it: number): Uint8Array | undefined {
    const k = Math.floor(this.opts.partialPricing ?? 1);
    if (k <= 1 || this.boxUsed || this.partialEmpty || it - this.lastFull >= k) {
      this.lastFull = it;
      this.partialEmpty = false;
      return undefined;
    }
    const block = this.partialRounds++ % k;
    const only = new Uint8Array(this.s.m);
    for (let w = block; w < this.s.m; w += k) only[w] = 1;
    return only;
  }

  /** Supergradient of L at lamS: g_x = 1 - sum_w r_w[x] (the pricing minimisers); g . (lam - lamBest) > 0: L rises towards the master's duals. */
  private adaptSmoothing(): void {
    const { lam, lamBest, rsum } = this;
    let dot = 0;
    for (let x = 0; x < lam.length; x++) dot += (1 - rsum[x]!) * (lam[x]! - lamBest[x]!);
    this.alphaA = dot > 0 ? Math.max(0, this.alphaA - 0.1) : Math.min(0.99, this.alphaA + 0.1 * (1 - this.alphaA));
  }

  private updateBound(p: PricedRound, scale: number): void {
    if (p.complete && p.lower > this.lowerBest + 1e-12 * scale) this.boundStalled = 0;
    else if (!p.heuristic) this.boundStalled++;
    if (p.complete && p.lower > this.lowerBest) {
      this.trivialBound = false;
      this.lowerBest = p.lower;
      this.lamBest = this.lamS.slice();
    } else if (this.trivialBound) this.lamBest.fill(0); // start duals no better than the trivial bound: back to lambda = 0
  }

  /**
   * Record the round (what a stop or a time limit would return now: the best
   * private channel so far, not the master's objective while its penalty
   * columns are in use, and its certified gap) and report progress: the
   * larger of the gap's way (log scale) from 100% to the target and the time
   * used of the limit, never decreasing.
   */
  private report(it: number, p: PricedRound): void {
    const { s, best, lowerBest, pricing } = this;
    const now = performance.now();
    const bestGap = gapOf(best.upper, lowerBest);
    const round: DecompositionIteration = {
      round: it + 1,
      objective: s.sign * best.upper,
      bound: s.sign * lowerBest,
      gap: bestGap,
      added: p.batch.length,
      masterMs: this.masterMs,
      pricingMs: this.pricingMs,
      elapsedMs: now - s.t0,
      pricingRows: pricing.rows + maxPending(p.newRows),
      pricingColdRetries: pricing.coldRetries,
      exactPricing: !p.heuristic,
    };
    this.iterations.push(round);
    this.opts.onRound?.(round);
    const gapFrac = Math.min(1, Math.log10(Math.max(bestGap, s.tolerance)) / Math.log10(s.tolerance));
    const timeFrac = s.deadline < Infinity ? (now - s.t0) / (s.deadline - s.t0) : 0;
    this.lastFraction = Math.max(this.lastFraction, Math.min(0.88, 0.1 + 0.78 * Math.max(gapFrac, timeFrac, 0)));
    progress(
      this.options,
      this.lastFraction,
      `solving ${s.what} by column decomposition: round ${it + 1}, objective ${(s.sign * best.upper).toPrecision(8)}, bound ${(s.sign * lowerBest).toPrecision(8)}, gap ${(bestGap * 100).toPrecision(2)}%, ${this.master.columns} columns, ${((now - s.t0) / 1000).toFixed(0)} s`,
    );
  }

  /**
   * Make room, then append: the master is pruned before the batch enters (so it never exceeds maxCols, the
   * budget's column count), and when even the master's basic columns leave no room for the whole batch only its
   * columns of most negative reduced cost at the master's duals enter (on 50 x 50 the first round's 2,500
   * columns of 2,500 entries went over the solver heap and ended the solve).
   */
  private appendAndPrune(batch: MasterColumn[], theta: Float64Array, scale: number): void {
    const { maxCols, keepCols, n, c } = this.s;
    const room = Math.max(0, maxCols - batch.length);
    this.pruned += this.master.prune(theta, this.lam, scale, room, Math.min(keepCols, room));
    const free = Math.max(1, maxCols - this.master.columns);
    if (batch.length > free) {
      const rc = (col: MasterColumn): number => {
        let t = 0;
        for (let x = 0; x < n; x++) t += (c[col.w * n + x]! - this.lam[x]!) * col.r[x]!;
        return t;
      };
      batch = batch
        .map((col) => ({ col, rc: rc(col) }))
        .sort((a, b) => a.rc - b.rc)
        .slice(0, free)
        .map((e) => e.col);
    }
    this.master.append(batch);
  }

  /** After a round: add what pricing found, widen the box, or stop (target gap, stall, nothing left to add). */
  private async decide(p: PricedRound, alpha: number, theta: Float64Array, scale: number): Promise<DecompositionResult | null> {
    const { s } = this;
    if (p.heuristic || p.complete) {
      // Lazy rows found by any pricing solve (those of a partial round too: they are marked held).
      try {
        for (const [g, rows] of p.newRows) if (rows.from.length > 0) await this.pricing.addRows(toRows(rows), g);
      } catch (e) {
        if (e instanceof MechError && e.code === 'too-large') return this.finish('solver-memory', e.message);
        throw e;
      }
    }
    if (p.heuristic) {
      this.appendAndPrune(p.batch, theta, scale);
      return null;
    }
    if (!p.complete) return null; // the loop head returns the best so far
    const rowsAdded = p.newRowCount;
    if (this.boxUsed) {
      // du Merle: the penalty columns stand in for columns not generated yet;
      // widen the box only once pricing finds nothing better to offer.
      if (p.batch.length === 0 && rowsAdded === 0) this.master.widenBox(10);
      else this.appendAndPrune(p.batch, theta, scale);
      return null;
    }
    const gap = gapOf(this.upper, this.lowerBest);
    if (gap <= s.tolerance) return this.finish(gap <= 1e-9 ? 'optimal' : 'target-gap');
    // Far from the target a stall is more likely degeneracy than solver accuracy: more patience there.
    const stallLimit = gap <= STALL_GAP ? STALL_ROUNDS : STALL_ROUNDS_FAR;
    const stuck = this.stalled >= stallLimit && this.boundStalled >= stallLimit;
    const quiet = rowsAdded === 0 && alpha < 1e-6;
    if (quiet && (stuck || p.batch.length === 0) && s.inPricing && this.lazyMaxFactor < MAX_PRICING_FACTOR) {
      // Second stage of lazy pricing: admit the far rows (up to e^18) and go on.
      this.lazyMaxFactor = MAX_PRICING_FACTOR;
      this.stalled = 0;
      this.boundStalled = 0;
      this.appendAndPrune(p.batch, theta, scale);
      return null;
    }
    // Neither the master nor the bound has moved for stallLimit rounds at the master's own duals: the columns
    // priced out have reduced costs below the solver's tolerance. The certified gap is what it is.
    if (quiet && stuck) return this.finish(gap <= 1e-9 ? 'optimal' : 'stalled');
    // Nothing to add at the master's own duals: the master is optimal; the bound there equals it up to the solver's accuracy.
    if (quiet && p.batch.length === 0) return this.finish(gap <= 1e-9 ? 'optimal' : 'target-gap');
    this.appendAndPrune(p.batch, theta, scale);
    return null;
  }

  /**
   * The Bayes remap of the master's channel as the incumbent: each output z is replaced by the output w of least
   * cost sum_x C[x][z] c_w[x]. Post-processing keeps privacy (the outputs mapped to one w sum to a column of the
   * cone of P) and the row sums, so the remapped channel is private and costs no more than the master; it becomes
   * the best channel when it is cheaper. Only the incumbent: offered to the master as columns, the remapped channel's
   * few wide columns made it degenerate (on the 20 x 20 city at eps 0.5 master and bound stood still for 40 rounds).
   * Measured there (eps 0.5, 2 threads): gap 7.6% after 20 s instead of 28%; near the optimum the master's channel
   * is remap-optimal and nothing changes. It costs (outputs in use) x m x n operations: run only while the time
   * spent on it stays under REMAP_TIME_SHARE of the solve.
   */
  private remapIncumbent(theta: Float64Array): void {
    const { n, m, c } = this.s;
    const t = performance.now();
    if (this.remapMs > REMAP_TIME_SHARE * (t - this.s.t0) || this.upper === this.lastRemapped) return;
    if (this.remapWait > 0) {
      this.remapWait--;
      return;
    }
    this.lastRemapped = this.upper;
    const used = new Map<number, Float64Array>();
    const { colOutput, colVectors } = this.master;
    for (let j = 0; j < colOutput.length; j++) {
      const w = colOutput[j]!;
      const th = theta[j]!;
      if (w < 0 || !(th > 0)) continue;
      let k = used.get(w);
      if (!k) used.set(w, (k = new Float64Array(n)));
      const r = colVectors[j]!;
      for (let x = 0; x < n; x++) k[x]! += th * r[x]!;
    }
    const channel = new Float64Array(n * m);
    let cost = 0;
    for (const k of used.values()) {
      let bestW = 0;
      let best = Infinity;
      for (let w = 0; w < m; w++) {
        let v = 0;
        const o = w * n;
        for (let x = 0; x < n; x++) v += k[x]! * c[o + x]!;
        if (v < best) {
          best = v;
          bestW = w;
        }
      }
      cost += best;
      for (let x = 0; x < n; x++) channel[x * m + bestW]! += k[x]!;
    }
    if (cost < this.best.upper) this.best = { channel, upper: cost };
    // No gain over the master's own channel (near the optimum it is remap-optimal): wait 1, 3, 7 rounds before the next try.
    this.remapIdle = cost < this.upper * (1 - 1e-9) ? 0 : Math.min(2 * this.remapIdle + 1, REMAP_MAX_WAIT);
    this.remapWait = this.remapIdle;
    this.remapMs += performance.now() - t;
  }

  async finish(stoppedBy: DecompositionStop, message?: string): Promise<DecompositionResult> {
    const { s, opts, best, lowerBest, pricing } = this;
    let relaxedBound: number | undefined;
    let relaxedBoundMs = 0;
    if (opts.relaxedPairs && stoppedBy !== 'solver-memory' && lowerBest > -Infinity) {
      const r = await relaxedModelBound(s, opts.relaxedPairs, this.lamBest, lowerBest, this.options, this.subOptions, opts.pricingForm);
      relaxedBound = s.sign * r.bound;
      relaxedBoundMs = r.ms;
    }
    return {
      channel: best.channel,
      objective: s.sign * best.upper,
      bound: s.sign * lowerBest,
      gap: gapOf(best.upper, lowerBest),
      stoppedBy,
      message,
      relaxedBound,
      relaxedBoundMs,
      duals: this.lamBest.slice(),
      iterations: this.iterations,
      columns: this.master.columns,
      pruned: this.pruned,
      masterMs: this.masterMs,
      pricingMs: this.pricingMs,
      remapMs: this.remapMs,
      pricingRows: pricing.rows,
      pricingColdRetries: pricing.coldRetries,
      pricingFailures: pricing.failures,
      plateauColumns: this.plateauColumns,
      simplexIterations: this.simplexIterations,
    };
  }
}

/**
 * The pricing form by default: 'dual' (half the pricing time on spanners: see PricingForm), but 'primal' when
 * the pricing rows are lazy (all pairs, factors up to e^18): with one shared model a warm dual simplex stalled
 * (133,670 iterations for one output of the 20 x 20 city, where its neighbours took 5-8k) and the primal form was
 * as fast; with rows held per group of outputs the dual form reached 1% sooner at eps 1 (52 s against 78 s) but
 * stalled at a 1.5e-6 gap, and at eps 0.5 ended 600 s at 4.2e-5 against 9.3e-6 (docs/lp.md, "Pricing" under "Measurements").
 */
export function pricingFormFor(lazyRows: Uint8Array | null | undefined): PricingForm {
  return lazyRows ? 'primal' : 'dual';
}

export async function solveByColumnDecomposition(
  problem: DecompositionProblem,
  options?: LpOptions,
  opts: DecompositionOptions = {},
): Promise<DecompositionResult> {
  const { n, m, what } = problem;
  const ones = new Float64Array(n).fill(1);
  const setup = prepareDecomposition(problem, options, opts, ones);
  const subOptions = warmSimplexOptions(options, 4);
  const master = DecompositionMaster.open(n, m, setup.c, ones, what, subOptions);
  let pricing: PricingEngine | undefined;
  try {
    pricing = await (opts.pricing ?? openPricing)(opts.threads ?? 1, {
      n,
      m,
      rows: setup.seedRows,
      what,
      options: subOptions,
      form: opts.pricingForm ?? pricingFormFor(setup.inPricing),
      groupSize: setup.groupSize,
    });
    const run = new DecompositionRun(setup, master, pricing, options, subOptions, opts);
    const stop = run.start();
    if (stop) return await run.finish(stop);
    return await run.solve();
  } finally {
    await pricing?.dispose();
  }
}
