/**
 * The optimal mechanism's types: what the LP is asked (OptimalMechanismOptions), the cheap constructions handed to
 * it, and what it returns. Apart from optimal-mechanism.ts so that the steps it calls (candidates.ts,
 * optimal-records.ts) name them without importing it back.
 */
import type { CandidateNote } from '../../../src-shared/protocol/index';
import type { Mechanism, RowSource } from '../../mechanism/channel';
import type { MechanismFacts } from '../../mechanism/facts';
import type { LpPrivacyModel, LpProgress, OptimalLpResult } from '../../mechanism/lp-result';
import type { Deadline } from '../../base/deadline';
import type { OutputSet } from './loss-input';
import type { LpOptions } from '../solver/lp-options';
import type { ConstraintMode } from '../model/privacy-constraint-graph';
import type { GenerationOptions } from '../channel/constraint-generation';
import type { DecompositionOptions } from '../decomposition/column-decomposition';

/**
 * A cheap construction handed to the LP (built and remapped by the caller): its channel C (n rows, k outputs)
 * and its Bayes remap onto the LP's outputs (remap[y] = the output w that C's output y reports). C . R is
 * eps*d-private whenever C is (post-processing); it seeds the LP and is returned when the LP does not beat it.
 */
export interface CheapCandidate {
  construction: string;
  timeMs: number;
  channel?: RowSource;
  remap?: Int32Array;
  /** C . R as a row source (the remap's own), when the caller has it: returned without a dense n x m copy. */
  remapped?: RowSource;
  /** Why there is no channel (the construction does not exist or does not apply here). */
  note?: CandidateNote;
}

/** The typed path's privacy model: as asked, or chosen (chooseLpModel), with the reason. */
export type TypedModel = { model: LpPrivacyModel; reason: string; choice: 'auto' | 'requested' };

export interface OptimalMechanism extends Mechanism {
  lp: OptimalLpResult;
  facts: Extract<MechanismFacts, { kind: 'optimal' }>;
}

export interface OptimalMechanismOptions extends LpOptions {
  /** Output set (default: the secrets). */
  outputs?: OutputSet;
  /** Which pairs get privacy constraints (default 'auto', see privacy-constraint-graph.ts). */
  constraints?: ConstraintMode;
  /** Spanner dilation for Euclidean grids (default 1.1). */
  delta?: number;
  /**
   * 'auto' (default): when the prior and loss are invariant under the
   * domain's isometries (e.g. a uniform prior and a distance loss on a grid),
   * solve one variable per orbit; the optimum is the same (see orbit-reduction.ts).
   * On the typed path (`model` set) this applies to models of at most
   * EXACT_AUTO_MAX_VARIABLES variables, solved whole; 'off' keeps the decomposition.
   */
  symmetry?: 'auto' | 'off';
  /**
   * Constraint generation (see constraint-generation.ts): 'auto' (default)
   * when there is no symmetry reduction and the full model has more than
   * GENERATION_ROW_THRESHOLD privacy rows; the optimum is the same.
   */
  generation?: 'auto' | 'on' | 'off';
  /** Tuning of the constraint generation (tolerance, batch, seed reach). */
  generationOptions?: Omit<GenerationOptions, 'closeness'>;
  /**
   * Decomposition by output column (see column-decomposition.ts): 'auto'
   * (default) when a spanner or edge-graph model does not fit the solver
   * memory; the optimum is the same, certified by a Lagrangian bound.
   */
  decomposition?: 'auto' | 'on' | 'off';
  decompositionOptions?: DecompositionOptions;
  /**
   * The privacy model (docs/lp.md, "Privacy models"). When set (or 'auto'), the LP is solved by
   * decomposition with a certified gap, `constraints`, `generation` and
   * `decomposition` are ignored, and the result carries `lp`. Without it the
   * legacy choice (constraints 'auto') applies.
   */
  model?: LpPrivacyModel | 'auto';
  /**
   * Stop when the certified relative gap is at most this (default DEFAULT_TARGET_GAP = 1e-6; 1e-9 is reported as
   * 'optimal').
   */
  targetGap?: number;
  /** Typed progress per round (objective, bound, gap, round, elapsed). */
  onLpProgress?: (p: LpProgress) => void;
  /**
   * Int32Array (e.g. on a SharedArrayBuffer): element 0 non-zero stops the solve and returns the best mechanism so far.
   */
  stopFlag?: Int32Array;
  /**
   * Worker threads for the pricing LPs of the decomposition (default: pricing/lp-threads.ts lpThreads, the machine's
   * cores on large problems). Same optimum.
   */
  threads?: number;
  /**
   * Cheap constructions (built and remapped by the caller, jobs/best-mechanism.ts): the cheapest seeds the
   * decomposition's master and is returned when the LP does not beat it (`chosen`). Typed path only.
   */
  candidates?: CheapCandidate[];
  /**
   * The job's budget (base/deadline.ts; default: timeLimitSeconds from this call): every step's time counts from its
   * start.
   */
  deadline?: Deadline;
  /**
   * Start a large grid's decomposition from the optimal duals of the grid of 2 x 2 blocks (coarse-start.ts; default
   * true; distance losses on grids of at least COARSE_START_MIN_SECRETS cells, outputs = secrets). Same optimum,
   * certified the same way.
   */
  coarseStart?: boolean;
}
