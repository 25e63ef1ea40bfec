/**
 * How the private-channel LP is solved (docs/lp.md, "Solution methods"): the full model, constraint generation or the
 * decomposition by output column, chosen from sizes and the caller's switches alone.
 */
import type { LpMethod } from '../../mechanism/lp-result';
import { privateChannelLpSize } from '../model/channel-model';
import type { ConstraintMode } from '../model/privacy-constraint-graph';
import { LP_MEMORY_LIMIT_BYTES, estimateLpBytes } from '../solver/memory-estimate';

/**
 * Variables of a sparse-graph (spanner, edges) minimisation without symmetry
 * reduction from which 'auto' solves by decomposition over output columns.
 * Not on all pairs: there the pricing LPs carry factors up to e^25 and were
 * measured inaccurate (column-decomposition.ts).
 */
export const DECOMPOSITION_MIN_VARIABLES = 4096;

/**
 * Rows of an 'exact' / 'all-pairs' model above which 'auto' uses constraint generation (measured in
 * test/bench/lp.bench.ts).
 */
export const GENERATION_ROW_THRESHOLD = 20000;

export interface LpStrategyInput {
  n: number;
  m: number;
  mode: ConstraintMode;
  generation: 'auto' | 'on' | 'off';
  decomposition: 'auto' | 'on' | 'off';
  sense: 'minimize' | 'maximize';
  /** Whether the symmetry reduction applies (orbits found). */
  orbits: boolean;
  /** Constrained pairs of the graph (read only for sparse graphs: spanner, edges, auto). */
  pairs: number;
  /** Solver heap limit (default LP_MEMORY_LIMIT_BYTES). */
  memoryLimit?: number;
}

interface LpStrategy {
  method: LpMethod;
  /** Solve one variable per orbit (the full model only). */
  orbits: boolean;
}

/**
 * The solution method for a private-channel LP, from sizes and the caller's
 * switches alone (pure; measured thresholds in docs/lp-measurements.md, "Constraint generation against the full
 * model"): 'on' forces decomposition (first) or constraint generation (both drop the
 * orbit reduction); on a whole graph ('exact', 'all-pairs') without orbits,
 * constraint generation above GENERATION_ROW_THRESHOLD rows; on a sparse
 * graph (spanner, edges) without orbits, decomposition when minimising over
 * at least DECOMPOSITION_MIN_VARIABLES variables, else the full model when it
 * fits the solver heap, else decomposition (or generation when decomposition
 * is off).
 */
export function chooseLpStrategy(s: LpStrategyInput): LpStrategy {
  const whole = s.mode === 'all-pairs' || s.mode === 'exact';
  const orbits = s.orbits && s.generation !== 'on' && s.decomposition !== 'on';
  if (s.decomposition === 'on') return { method: 'decomposition', orbits };
  const allPairsRows = privateChannelLpSize(s.n, s.m, (s.n * (s.n - 1)) / 2).rows;
  if (
    !orbits &&
    (s.generation === 'on' || (s.generation === 'auto' && whole && allPairsRows > GENERATION_ROW_THRESHOLD))
  )
    return { method: 'constraint-generation', orbits };
  if (orbits || whole || s.generation === 'on') return { method: 'full-model', orbits };
  // Measured 2.6x (8x8) to 17x (12x12) faster than the full model (test/bench/lp.bench.ts).
  if (s.decomposition === 'auto' && s.sense === 'minimize' && s.n * s.m >= DECOMPOSITION_MIN_VARIABLES)
    return { method: 'decomposition', orbits };
  const size = privateChannelLpSize(s.n, s.m, s.pairs);
  // Too large as one model: decomposition by output column (minutes on the 20 x 20 grid), else constraint generation.
  if (estimateLpBytes(size.variables, size.rows, size.nonzeros) > (s.memoryLimit ?? LP_MEMORY_LIMIT_BYTES)) {
    if (s.decomposition === 'auto') return { method: 'decomposition', orbits };
    if (s.generation === 'auto') return { method: 'constraint-generation', orbits };
  }
  return { method: 'full-model', orbits };
}
