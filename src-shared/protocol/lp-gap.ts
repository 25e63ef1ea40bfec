/**
 * The LP result's gap and what it is measured against (lpResultSchema in ./results.ts): values, no words. The
 * engine computes `gap` with certifiedGap; src-shared/charts/lp-words.ts says in words what these predicates decide.
 */
import type { LpResult } from './results';

/**
 * (objective - bound) / objective, at least 0; 0 when the objective is not positive (the record's `gap`, docs/lp.md).
 */
export function certifiedGap(objective: number, bound: number): number {
  return objective > 0 ? Math.max(0, (objective - bound) / objective) : 0;
}

/** The fields of an LP record (or of a kept summary of one) that decide what its gap means. */
export type LpGapBasis = Pick<LpResult, 'gap' | 'exactLowerBound' | 'model' | 'delta'> & {
  gapBasis?: LpResult['gapBasis'];
  method?: LpResult['method'];
  rounds?: number;
  stoppedBy?: LpResult['stoppedBy'];
  relaxation?: LpResult['relaxation'];
};

/**
 * A decomposition stopped before its pricing gave a bound above the trivial one (0 for losses >= 0): no pricing
 * round completed (a round cut by the time limit mid-pricing gives no bound), or none improved on it. Its gap
 * is then 100% and says nothing.
 */
export function noRoundCompleted(lp: LpGapBasis): boolean {
  // A saved result's relaxation solved first bounds the best possible even when its exact model got no round.
  const relaxed = lp.relaxation !== undefined && lp.relaxation.bound > 0;
  return lp.method === 'decomposition' && ((lp.rounds === 0 && !relaxed) || lp.gap >= 1);
}

/**
 * The LP was over the decomposition's limits and a time limit was given: the best cheap candidate is returned, no
 * LP was built (src-worker/jobs/best-candidate.ts), so there is no bound at all.
 */
export function lpNotSolved(lp: Pick<LpGapBasis, 'rounds' | 'stoppedBy'>): boolean {
  return lp.rounds === 0 && lp.stoppedBy === 'solver-memory';
}

/**
 * Whether the gap is against a certified bound on the best possible mechanism (results saved before gapBasis: when an
 * exact bound was there).
 */
export function gapIsExact(lp: LpGapBasis): boolean {
  return (lp.gapBasis ?? (lp.exactLowerBound !== null ? 'exact' : 'model')) === 'exact';
}
