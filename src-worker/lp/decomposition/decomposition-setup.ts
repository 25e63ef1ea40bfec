/**
 * The column decomposition's set-up (column-decomposition.ts): start columns, master limits, pricing seed, the fallback
 * channel.
 */
import { MechError } from '../../../src-shared/errors';
import { Deadline } from '../../base/deadline';
import { type LpOptions, checkCancelled } from '../solver/lp-options';
import { type MasterColumn } from './decomposition-master';
import {
  type DecompositionPairs,
  LAZY_ROWS_PER_OUTPUT,
  LAZY_START_FACTOR,
  pricingSeed,
  toRows,
  violatedRows,
} from '../pricing/pricing-rows';
import {
  LP_MEMORY_LIMIT_BYTES,
  MASTER_BUDGET_FRACTION,
  lazyPricingGroupSize,
  masterBytes,
  masterDenseColumns,
  masterStartBytes,
} from '../solver/memory-estimate';
import { PricingModel, type PricingForm, type PricingRows } from '../pricing/pricing';
import { ColumnLifter, type Lifter } from '../model/privacy-repair';
import type { DecompositionOptions } from './decomposition-options';

/** Rounds without progress of master and bound (at unsmoothed duals) after which the loop ends as 'stalled'. */
export const STALL_ROUNDS = 10;
/**
 * Rounds the master may sit at its first solution (the constant channel: a degenerate vertex) before the
 * constant columns are replaced by a private start channel using every output. On a concentrated prior at
 * small eps the master never left it otherwise (10 x 10 at eps 0.5: 58 rounds, and the loop had given up as
 * 'stalled' at an 86% gap after 21); starting from that channel right away made the 20 x 20 city at eps 0.5
 * much slower (its master moves from the third round on without it).
 */
export const START_STUCK_ROUNDS = 5;
/**
 * ... when the gap is at most STALL_GAP; above it STALL_ROUNDS_FAR (a degenerate master can sit still for dozens of
 * rounds and then move: 58 on 10 x 10 at eps 0.5 when it started from the constant channel).
 */
export const STALL_GAP = 1e-4;
export const STALL_ROUNDS_FAR = 60;

/**
 * The master is pruned when it holds more than this many columns per row (or the memory budget is reached),
 * down to MASTER_KEEP_FACTOR per row (or 2/3 of the budget). Its columns are dense, so a master solve costs
 * about its column count; measured on the 20 x 20 city, 2 pricing threads, load 1: at eps 1, 15/10 per row
 * 31.6 s (32 rounds, never pruned), 6/4 28.3 s (33 rounds), 4/2 28.4 s (40 rounds); at eps 0.5 within 150 s,
 * 15/10 reached round 45 at a 49% gap, 6/4 round 87 at 38% (master 74 s of 150 against about 110).
 */
const MASTER_PRUNE_FACTOR = 6;
const MASTER_KEEP_FACTOR = 4;
/**
 * Largest share of the solve's time the incumbent's remap may take (it is skipped in rounds where it would exceed it).
 */
export const REMAP_TIME_SHARE = 0.1;
/** Longest wait (rounds) between remaps that gain nothing over the master's channel. */
export const REMAP_MAX_WAIT = 7;

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
export interface DecompositionSetup {
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
  /**
   * One flag per directed pair row held by the pricing models from the start (lazy rows), or null when they hold them
   * all.
   */
  inPricing: Uint8Array | null;
  /** Outputs per pricing model (pricing.ts PricingGroups): m (one model) unless lazy rows are held per group. */
  groupSize: number;
  lifter: Lifter;
  maxCols: number;
  keepCols: number;
  start: MasterColumn[];
  /** Where the caller's seed columns (a private channel's, opts.seedColumns) begin in `start`; start.length: none. */
  seedFrom: number;
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
function masterLimits(
  n: number,
  m: number,
  budget: number,
  what: string,
): { maxCols: number; keepCols: number; startDense: number } {
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
    Math.min(MASTER_PRUNE_FACTOR * n + 2 * n, 2 * n + masterDenseColumns(n, budget)),
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
function startColumns(
  c: Float64Array,
  n: number,
  m: number,
  lifter: Lifter,
  ones: Float64Array,
): { start: MasterColumn[]; indicators: Float64Array[] } {
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
function fallbackChannel(
  c: Float64Array,
  n: number,
  m: number,
  constant: number,
  indicators: Float64Array[] | null,
): { channel: Float64Array; upper: number } {
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
  /**
   * The lift into P when the caller has a faster one than the max-product Dijkstra over `pairs` (privacy-repair.ts
   * GridTableLifter: all pairs of a grid).
   */
  lifter?: Lifter;
  /**
   * G[a*n + b] = 1/f_ab over the model's polytope with ln f a metric (exact-pricing.ts exactPricingFactors,
   * closurePricingFactors): every output is then priced exactly (exact-pricing.ts), its columns in P.
   */
  pricingFactors?: Float64Array;
}

/** Validate the options, orient the costs, build the pricing seed, the lifter, the master limits and its start. */
export function prepareDecomposition(
  { n, m, cost, sense, pairs, what, lifter: given }: DecompositionProblem,
  options: LpOptions | undefined,
  opts: DecompositionOptions,
  ones: Float64Array,
): DecompositionSetup {
  const tolerance = opts.tolerance ?? 1e-9;
  const alpha0 = opts.smoothing ?? 0.8;
  const maxIterations = opts.maxIterations ?? 2000;
  if (!(tolerance > 0)) throw new MechError('invalid-input', `${what}: the decomposition tolerance must be > 0`);
  if (!(alpha0 >= 0 && alpha0 < 1))
    throw new MechError('invalid-input', `${what}: the smoothing weight must be in [0, 1)`);
  const sign = sense === 'maximize' ? -1 : 1;
  const time = opts.deadline ?? Deadline.after(options?.timeLimitSeconds);
  const t0 = time.startedAt;
  const deadline = time.at;
  const c = new Float64Array(n * m);
  for (let x = 0; x < n; x++) for (let w = 0; w < m; w++) c[w * n + x] = sign * cost[x * m + w]!;
  let cNonNeg = true;
  for (let i = 0; i < c.length; i++) if (c[i]! < 0) cNonNeg = false;
  checkCancelled(options, `building ${what}`);
  const { rows: seedRows, inPricing } = pricingSeed(
    n,
    pairs,
    opts.pricingRows ?? 'auto',
    opts.seedPairs,
    LAZY_START_FACTOR,
  );
  const lifter = given ?? new ColumnLifter(n, pairs.from, pairs.to, pairs.factor);
  const asked = opts.pricingGroupSize;
  if (asked !== undefined && !(Number.isInteger(asked) && asked >= 1))
    throw new MechError('invalid-input', `${what}: the pricing group size must be an integer >= 1, got ${asked}`);
  // Lazy rows per group (at most m: one shared model); rows held from the start: one model.
  const groupSize = inPricing
    ? Math.min(m, asked ?? lazyPricingGroupSize(m, seedRows.from.length, opts.threads ?? 1))
    : m;
  const budget = opts.masterBudgetBytes ?? MASTER_BUDGET_FRACTION * LP_MEMORY_LIMIT_BYTES;
  const { maxCols, keepCols, startDense } = masterLimits(n, m, budget, what);
  const { start, indicators } = startColumns(c, n, m, lifter, ones);
  const seedFrom = start.length;
  for (const col of opts.seedColumns ?? []) {
    if (!(Number.isInteger(col.w) && col.w >= 0 && col.w < m) || col.r.length !== n)
      throw new MechError('internal', `${what}: a seed column must be ${n} entries for an output in 0..${m - 1}`);
    start.push({ w: col.w, r: col.r });
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
    seedFrom,
    indicators,
    canRestart,
    cNonNeg,
    fallback,
  };
}

/**
 * The seed channel's column of each output it uses (its seed columns for that output summed: a point of the cone of
 * P), the first exact pricing solves' warm starts (PricingEngine.warm).
 */
export function seedChannelColumns(s: DecompositionSetup): { w: number; r: Float64Array }[] {
  const byOutput = new Map<number, Float64Array>();
  for (const { w, r } of s.start.slice(s.seedFrom)) {
    const sum = byOutput.get(w);
    if (!sum) byOutput.set(w, Float64Array.from(r));
    else for (let x = 0; x < s.n; x++) sum[x]! += r[x]!;
  }
  return [...byOutput].map(([w, r]) => ({ w, r }));
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
export async function relaxedModelBound(
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
  const relaxed = await PricingModel.open(
    n,
    m,
    seed.rows,
    `${what} (bound of the other model)`,
    subOptions,
    form ?? pricingFormFor(seed.inPricing),
  );
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
export function maxPending(rows: Map<number, { from: number[] }>): number {
  let k = 0;
  for (const r of rows.values()) k = Math.max(k, r.from.length);
  return k;
}

/** Relative gap of an upper and a lower bound (1 while no bound is known). */
export const gapOf = (up: number, lo: number): number =>
  lo === -Infinity ? 1 : Math.max(0, (up - lo) / Math.max(Math.abs(up), 1e-12));

/**
 * The pricing form by default: 'dual' (half the pricing time on spanners: see PricingForm), but 'primal' when
 * the pricing rows are lazy (all pairs, factors up to e^18): with one shared model a warm dual simplex stalled
 * (133,670 iterations for one output of the 20 x 20 city, where its neighbours took 5-8k) and the primal form was
 * as fast; with rows held per group of outputs the dual form reached 1% sooner at eps 1 (52 s against 78 s) but
 * stalled at a 1.5e-6 gap, and at eps 0.5 ended 600 s at 4.2e-5 against 9.3e-6 (docs/lp-measurements.md, "Pricing").
 */
export function pricingFormFor(lazyRows: Uint8Array | null | undefined): PricingForm {
  return lazyRows ? 'primal' : 'dual';
}
