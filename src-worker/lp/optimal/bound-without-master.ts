import type { CoarseStartInfo } from '../../mechanism/lp-result';
import type { Deadline } from '../../base/deadline';
import type { Domain } from '../../metric/domain';
import { type GridBound, gridLagrangianBound } from '../pricing/grid-bound';
import { coarseStart } from './coarse-start';

/**
 * The largest coarse grid solved for the duals (finer ones get them spread): 25 x 25 on a 100 x 100 grid. Measured
 * there (0.5 km cells, eps ln 4 per km, city prior, two threads, 600 s): from 25 x 25 (solved in 5.2 s) the round
 * priced all 10,000 outputs in 45.9 s, bound 0.6358 km; from 50 x 50 (its solve stopped at its 120 s share, gap 7.7%)
 * 7,368 outputs in 480 s, the rest at their box bound: -23.1 km, no bound (docs/lp-measurements.md).
 */
const COARSE_SOLVE_MAX_SECRETS = 1000;

/** The bound, how it was reached, and the coarse solve that gave its duals. */
export interface BoundWithoutMaster extends GridBound {
  coarseStart: CoarseStartInfo;
}

interface BoundWithoutMasterOptions {
  threads: number;
  /** When the pricing ends (the coarse start takes its share of this budget first). */
  deadline: Deadline;
  signal?: AbortSignal;
  progress(message: string): void;
}

/**
 * A certified bound on the best mechanism of a grid over the decomposition's limits (docs/lp.md, "A bound without a
 * master"): duals from the coarse start (the same problem on grids of 2 x 2 blocks, recursively, with its share of
 * the time), then one exact pricing round of every output at those duals (pricing/grid-bound.ts), on the pricing
 * threads, until `deadline`. Any duals give a valid bound; outputs the time did not reach keep their box bound.
 * Applies to grid domains with the distance losses (the coarse start's); null elsewhere, or when the coarse solve
 * gave no duals.
 */
export async function boundWithoutMaster(
  domain: Domain,
  eps: number,
  pi: Float64Array,
  loss: 'dist' | 'dist2',
  opts: BoundWithoutMasterOptions,
): Promise<BoundWithoutMaster | null> {
  const g = domain.structure.grid;
  if (!g) return null;
  const shouldStop = (): boolean => opts.signal?.aborted === true;
  // Costs pi_x loss(w, x) at face value (cost scale 1): the duals come back in those units.
  const start = await coarseStart(
    { domain, eps, pi, loss, model: 'exact', costScale: 1 },
    {
      deadline: opts.deadline,
      threads: opts.threads,
      shouldStop,
      solveMaxSecrets: COARSE_SOLVE_MAX_SECRETS,
      onProgress: (_f, m) => opts.progress(m),
    },
  );
  if (!start || shouldStop()) return null;
  const words = (k: number): string =>
    `a certified bound: the exact pricing of each output at the coarse solve's duals, ${k} of ${domain.n} done`;
  opts.progress(words(0));
  const bound = await gridLagrangianBound(
    { rows: g.rows, cols: g.cols, step: g.step, metric: g.metric, eps, loss, pi, duals: start.duals },
    { threads: opts.threads, deadline: opts.deadline.at, shouldStop, onProgress: (k) => opts.progress(words(k)) },
  );
  return { ...bound, coarseStart: start.info };
}
