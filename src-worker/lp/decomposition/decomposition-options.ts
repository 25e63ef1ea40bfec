/** The options, round records and result of the column decomposition (column-decomposition.ts). */
import type { LpStop } from '../../mechanism/lp-result';
import type { Deadline } from '../../base/deadline';
import { type MasterColumn } from './decomposition-master';
import { type DecompositionPairs } from '../pricing/pricing-rows';
import { type PricingForm } from '../pricing/pricing';
import { type PricingFactory } from '../pricing/pricing-pool';

export interface DecompositionOptions {
  /** Stop when (upper - lower) <= tolerance * max(|upper|, 1e-12): the target relative gap (default 1e-9). */
  tolerance?: number;
  /** Wentges smoothing weight while the relative gap exceeds 1e-2 (default 0.8; 0 = none). */
  smoothing?: number;
  /**
   * 'fade' (default): the smoothing weight is `smoothing` while the gap exceeds 1e-2, then 0.6x, 0.3x, 0 below 1e-5;
   * 'adaptive': it starts at `smoothing` and follows the supergradient at the priced duals each round (Pessoa et al.
   * 2018), 0 below 1e-5. Either way it halves with every round the master does not improve.
   */
  smoothingMode?: 'fade' | 'adaptive';
  /**
   * Stop (returning the best channel so far, stoppedBy 'iteration-limit') after this many master solves (default 2000).
   */
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
   * Threads for the master's row updates (default: two from 400 secrets when the machine has two cores, else one;
   * master-rows.ts). The same pivots and answer either way.
   */
  masterThreads?: number;
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
  /**
   * Replace the constant start columns by a private channel using every output when the master sits at its first
   * solution (default true; see START_STUCK_ROUNDS).
   */
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
   * counted as the dense simplex holds it (memory-estimate.ts masterBytes: its n x n inverse and
   * MASTER_BYTES_PER_ENTRY per column entry).
   */
  masterBudgetBytes?: number;
  /**
   * The caller's budget (base/deadline.ts; default: LpOptions.timeLimitSeconds from when the decomposition
   * starts): the decomposition ends when it passes, and the reported elapsed times count from its start, the
   * caller's set-up included.
   */
  deadline?: Deadline;
  /**
   * Duals to start from (length n, in the minimising sense of the internal costs), e.g. a coarser grid's optimal
   * duals spread over its cells (coarse-start.ts): the first round prices exactly there; its bound, when above the
   * trivial one, becomes the best bound and these duals the smoothing centre. Any vector is safe: a bound is only ever
   * taken from a complete pricing round.
   */
  startDuals?: Float64Array;
  /**
   * Exact pricing (exact-pricing.ts, up to EXACT_PRICING_MAX_SECRETS secrets): every output priced over the whole
   * column polytope. Default: on for the exact model, off for spanner and edge models (true prices them through
   * the closure of their edge exponents); false prices with HiGHS over the pricing rows (the benches' baseline).
   */
  exactPricing?: boolean;
  /**
   * Remap the master's channel after each master solve and keep it as the best channel when cheaper (default true; see
   * remapIncumbent).
   */
  remap?: boolean;
  /**
   * Columns of a known private channel to start the master with (e.g. a cheap construction's outputs, each
   * assigned to its Bayes guess: optimal-mechanism.ts), appended as they are with the start columns: they lie in P
   * (a private channel's columns satisfy every row of the exact and edge models, up to rounding; the master's channel
   * is repaired and checked like any other), so the first master costs no more than that channel. Seeded this way
   * rather than with the remapped channel's merged columns: those few wide columns made the master degenerate (see
   * remapIncumbent).
   */
  seedColumns?: MasterColumn[];
}

export interface DecompositionIteration {
  /** 1-based round. */
  round: number;
  /**
   * Objective of the best private channel so far (what a stop or time limit returns; not the master's while its penalty
   * columns are in use) and the best bound, in the caller's sense.
   */
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
  /**
   * Row-major n x m channel sum over the master's columns of theta r (before the caller's tidy-up and repair); every
   * column lies in P.
   */
  channel: Float64Array;
  /**
   * Master objective of that channel, and the best Lagrangian bound on the optimum (below it when minimising, above
   * when maximising).
   */
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
  /**
   * The duals of the best bound (the smoothing centre at the end), in the minimising sense of the internal costs: a
   * start for a finer solve.
   */
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
  /**
   * Pricing solves repeated cold (the warm one was not certified by its safe bound, or failed), and solves that failed
   * twice (box bound used).
   */
  pricingColdRetries: number;
  pricingFailures: number;
  /** Columns found by the plateau search (no LP). */
  plateauColumns: number;
  simplexIterations: number;
}
