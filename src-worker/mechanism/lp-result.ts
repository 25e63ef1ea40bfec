/**
 * What an optimal-mechanism LP returns, as types only: a leaf that the LP
 * (src-worker/lp/, which fills it) and its readers share.
 */
import type { CandidateNote, LpStop } from '../../src-shared/protocol/index';

/**
 * The privacy model of the optimal-mechanism LP (docs/lp.md, "Privacy models"):
 *  - 'exact': all pairs, C[x][w] <= e^(eps d(x, x')) C[x'][w]: the true optimum;
 *  - 'spanner': the pairs of a greedy delta-spanner with eps/delta (a
 *    restriction of the exact model: private, optimal only up to the dilation);
 *  - 'edges': the domain's graph edges (graph metrics, Manhattan/Chebyshev
 *    grids), equivalent to all pairs there.
 */
export type LpPrivacyModel = 'exact' | 'spanner' | 'edges';
/** How the LP was solved (lp/channel/lp-strategy.ts chooseLpStrategy). */
export type LpMethod = 'full-model' | 'constraint-generation' | 'decomposition';

/**
 * Why the solve ended: 'optimal' (certified to 1e-9), 'target-gap' (the
 * requested gap reached), 'stalled' (master and bound stopped moving at the
 * solver's accuracy), or a limit with the best mechanism so far. The
 * protocol's type (`lpStopSchema`): results and facts carry the same words.
 */
export type { LpStop } from '../../src-shared/protocol/index';

/** The coarser grid whose optimal duals started a decomposition (lp/optimal/coarse-start.ts). */
export interface CoarseStartInfo {
  /** The coarse grid: rows x cols cells of cellSize (the fine cell size times 2). */
  rows: number;
  cols: number;
  cellSize: number;
  /** Coarser grids solved below it (0: it started from lambda = 0). */
  levels: number;
  /** Its expected loss, certified gap and why it ended. */
  objective: number;
  gap: number;
  stoppedBy: string;
  timeMs: number;
}

/** One point of the convergence chart (per decomposition round). */
export interface LpProgress {
  round: number;
  /**
   * Expected loss of the best private mechanism of this round (the master), and the best certified lower bound so far.
   */
  objective: number;
  bound: number;
  /** (objective - bound) / objective. */
  gap: number;
  elapsedMs: number;
  /** Monotonic fraction in [0, 1] (gap on a log scale, or time used of the limit). */
  fraction: number;
}

/**
 * What an optimal-mechanism LP solved and how far from the optimum it may be (`OptimalMechanism.lp`; the solver's
 * figures are `facts.solve`).
 */
export interface OptimalLpResult {
  model: LpPrivacyModel;
  /** Queue workers that priced the rounds (set by the job when the host prices on a queue: JobContext.pricing). */
  pricingWorkers?: number;
  /** 'requested' or 'auto' (see chooseLpModel), with the reason of an automatic choice. */
  modelChoice: 'requested' | 'auto';
  modelReason: string;
  /** Spanner dilation (1 for exact and edges). */
  delta: number;
  method: LpMethod;
  /** Expected loss of the returned (repaired, private) mechanism. */
  objective: number;
  /** Certified lower bound on the optimum of the model solved, and (objective - lowerBound) / objective. */
  lowerBound: number;
  gap: number;
  /** Certified lower bound on the exact (all-pairs) optimum, or null when none was computed. */
  exactLowerBound: number | null;
  /** Decomposition or generation rounds (1 for a full model). */
  rounds: number;
  timeMs: number;
  stoppedBy: LpStop;
  /** The time limit ended the solve (the mechanism is the best found, within `gap` of the model's optimum). */
  timeLimitReached: boolean;
  /** Rounds of the decomposition, for a convergence chart. */
  history: LpProgress[];
  /** The coarser grid whose optimal duals started the decomposition (coarse-start.ts), or null. */
  coarseStart: CoarseStartInfo | null;
  /**
   * Which mechanism is returned: 'lp' (the LP's channel) or the construction of the cheap candidate that did better.
   */
  chosen: string;
  /** The cheap constructions tried before the LP (each with its Bayes remap), in the order tried. */
  candidates: CandidateRecord[];
  /**
   * What `gap` is measured against: 'exact' (a certified bound on the exact optimum: the best possible) or 'model'
   * (only the solved model's own optimum).
   */
  gapBasis: 'exact' | 'model';
  /** Expected loss of the LP's own channel (before the comparison with the candidates). */
  lpObjective: number;
}

/**
 * A cheap construction tried before the LP: its expected loss after the Bayes remap (null when it does not apply, with
 * the reason).
 */
export interface CandidateRecord {
  construction: string;
  expectedLoss: number | null;
  timeMs: number;
  note?: CandidateNote;
}
