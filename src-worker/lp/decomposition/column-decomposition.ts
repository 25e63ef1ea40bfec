import { type LpOptions, warmSimplexOptions } from '../solver/lp-options';
import { DecompositionMaster } from './decomposition-master';
import { type PricingEngine, openPricing } from '../pricing/pricing-pool';
import {
  type DecompositionProblem,
  prepareDecomposition,
  pricingFormFor,
  seedChannelColumns,
} from './decomposition-setup';
import { DecompositionRun } from './decomposition-run';
import type {
  DecompositionIteration,
  DecompositionOptions,
  DecompositionResult,
  DecompositionStop,
} from './decomposition-options';

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
 * (test/unit/worker/lp/pricing/pricing.test.ts), so pricing stays an LP. At the optimum the
 * master has at most n basic columns, about one per output: the master
 * stays small (n rows, a few thousand columns), pricing is n-variable LPs,
 * and the 160,000-variable 20 x 20 city LP, whose 1.19M-row spanner model
 * does not fit the solver heap, is solved in under a minute.
 */

export type { DecompositionIteration, DecompositionOptions, DecompositionStop };
export { privateStartChannel } from './decomposition-setup';

export async function solveByColumnDecomposition(
  problem: DecompositionProblem,
  options?: LpOptions,
  opts: DecompositionOptions = {},
): Promise<DecompositionResult> {
  const { n, m, what } = problem;
  const ones = new Float64Array(n).fill(1);
  const setup = prepareDecomposition(problem, options, opts, ones);
  const subOptions = warmSimplexOptions(options, 4);
  const master = DecompositionMaster.open(n, m, setup.c, ones, what, subOptions, opts.masterThreads);
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
      ...(problem.pricingFactors ? { factors: problem.pricingFactors } : {}),
    });
    const run = new DecompositionRun(setup, master, pricing, options, subOptions, opts);
    const stop = run.start();
    if (stop) return await run.finish(stop);
    if (pricing.exact && setup.seedFrom < setup.start.length) await pricing.warm?.(seedChannelColumns(setup));
    return await run.solve();
  } finally {
    master.close();
    await pricing?.dispose();
  }
}
