import { MechError } from '../../../src-shared/errors';

/**
 * Estimated peak WebAssembly heap (bytes) HiGHS needs to load and solve a
 * model with the given columns, rows and nonzeros, as handed to HiGHS.
 *
 * Calibrated by measuring the runtime's memoryBytes growth (fresh process
 * per point) on the privacy LPs (2 nonzeros per constraint row):
 *   simplex, rows 45k / 258k / 990k (cols 1.3k-10k):   70 / 452 / 1593 MB
 *   simplex, rows 69k / 275k / 771k (cols 10k-105k):  111 / 452 / 1311 MB
 *   ipm, rows 258k / 275k (unreduced):                111 / 137 MB
 *   ipm, 20x20 orbit-reduced (20k cols, 150k rows):   240 MB
 *   dual simplex, same LP transposed (150k cols):     130 MB
 * i.e. up to ~1650 bytes per row (simplex row-wise structures dominate) and
 * well under 1000 per column. The formula is a conservative envelope of these
 * points; the heap only grows (in steps), so a slight over-estimate is the
 * safe side: refusing early beats aborting mid-solve.
 */
export function estimateLpBytes(numCols: number, numRows: number, nonzeros: number): number {
  return 24e6 + 1700 * numRows + 900 * numCols + 24 * nonzeros;
}

/** The WebAssembly heap of the HiGHS build is capped at 2 GiB; keep a margin for the runtime itself. */
export const LP_MEMORY_LIMIT_BYTES: number = (() => {
  const env = typeof process !== 'undefined' ? process.env?.MECHSTUDIO_LP_MEMORY_LIMIT : undefined;
  const v = env ? Number(env) : NaN;
  return Number.isFinite(v) && v > 0 ? v : 1.75 * 2 ** 30;
})();

/** Refuse early, before building or solving, a model whose estimate exceeds the limit. */
export function assertLpFits(
  numCols: number,
  numRows: number,
  nonzeros: number,
  what: string,
  limit = LP_MEMORY_LIMIT_BYTES,
): void {
  const est = estimateLpBytes(numCols, numRows, nonzeros);
  if (est > limit) {
    throw new MechError(
      'too-large',
      `${what} would need about ${(est / 2 ** 20).toFixed(0)} MiB of solver memory (${numCols} variables, ${numRows} constraints, ${nonzeros} nonzeros), over the ${(limit / 2 ** 20).toFixed(0)} MiB limit; use a smaller domain, fewer outputs or a sparser constraint graph (spanner)`,
      { estimateBytes: est, limitBytes: limit, variables: numCols, constraints: numRows, nonzeros },
    );
  }
}

/**
 * Bytes per entry of a dense master column (dense-simplex.ts): the vector in the JavaScript heap and its copy in the
 * dense simplex's WebAssembly memory, which grows by doubling (up to twice the copies it holds).
 */
const MASTER_BYTES_PER_ENTRY = 24;
/** Bytes of bookkeeping per master column, dense or unit (costs, scales, basis positions, slots). */
const MASTER_BYTES_PER_COLUMN = 64;

/**
 * The dense master (dense-simplex.ts) with `dense` columns of n entries: its n x n basis inverse and the columns.
 * (Counted as the HiGHS master needed before, 64 bytes per entry and HiGHS' row structures, the 50 x 50 master was
 * held to 8,126 columns, fewer than its 10,001 starting ones, and took one new column a round.)
 */
export function masterBytes(n: number, dense: number): number {
  return 8 * n * n + dense * (MASTER_BYTES_PER_ENTRY * n + MASTER_BYTES_PER_COLUMN);
}

/** Dense master columns that fit `budget` bytes beside the inverse, for n secrets. */
export function masterDenseColumns(n: number, budget: number): number {
  return Math.max(0, Math.floor((budget - 8 * n * n) / (MASTER_BYTES_PER_ENTRY * n + MASTER_BYTES_PER_COLUMN)));
}

/**
 * The decomposition master's start (column-decomposition.ts): one constant column, the lifted indicator of
 * each output that is a secret, room for n/4 more dense columns, and 2n box columns of one entry each.
 */
export function masterStartBytes(n: number, m: number): number {
  return masterBytes(n, 1 + Math.min(m, n) + Math.ceil(n / 4)) + 2 * n * MASTER_BYTES_PER_COLUMN;
}
/** Share of the solver heap the decomposition master may use by default (column-decomposition.ts masterBudgetBytes). */
export const MASTER_BUDGET_FRACTION = 0.4;

/**
 * Solver heap per row of a pricing model (primal form; measured: 3.5 MiB with
 * the 2,964 seed rows of the 20 x 20 city, about 1.4 KB per appended row).
 */
export const PRICING_BYTES_PER_ROW = 1500;
/**
 * Lazy rows a group's pricing model gathers per output over a long solve (20 x 20 city, all pairs, eps 1: ~430 per
 * output after 53 rounds).
 */
export const LAZY_ROWS_PER_OUTPUT_EXPECTED = 600;

/**
 * Outputs per lazy pricing model (pricing.ts PricingGroups): the smallest
 * group size whose models, on the busiest thread, fit a share of that
 * thread's solver heap: 35% on this thread (it also holds the master, 40%),
 * 50% in a pricing worker. The 20 x 20 city (2,964 seed rows) gets groups of
 * 7 outputs on one thread, of 2 on two. m (one shared model) when nothing smaller fits.
 */
export function lazyPricingGroupSize(
  m: number,
  seedRows: number,
  threads: number,
  limit = LP_MEMORY_LIMIT_BYTES,
): number {
  const perThread = Math.ceil(m / Math.max(1, threads));
  const budget = (threads > 1 ? 0.5 : 0.35) * limit;
  for (let k = 1; k < perThread; k++) {
    if (Math.ceil(perThread / k) * PRICING_BYTES_PER_ROW * (seedRows + LAZY_ROWS_PER_OUTPUT_EXPECTED * k) <= budget)
      return k;
  }
  return m;
}
