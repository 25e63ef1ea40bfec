/**
 * What an optimal request returned, in the words the CLI and the app show (one place: docs/lp.md, "Never worse than
 * a cheap construction"): "optimal" only with a certified gap to the exact optimum of at most OPTIMAL_WORDS_GAP,
 * "best found, within X% of the best possible" with a certified bound on it, and, without one, how far it is from
 * the solved model's own optimum and that it is not checked against the best possible.
 */
import type { CandidateNote, LpCandidate, LpResult } from '../protocol/index';
import { certifiedGap, gapIsExact, lpNotSolved, noRoundCompleted, type LpGapBasis } from '../protocol/index';

/** Largest certified gap to the exact optimum that is called "optimal" (the solver's default target). */
const OPTIMAL_WORDS_GAP = 1e-6;

/** A relative gap as a percentage: three significant digits from 1%, two below, "0%" for none. */
export function gapPercent(gap: number | null | undefined): string {
  if (gap === null || gap === undefined || !Number.isFinite(gap)) return '—';
  if (gap <= 0) return '0%';
  const p = gap * 100;
  return `${p >= 1 ? p.toPrecision(3) : Number(p.toPrecision(2)).toString()}%`;
}

const CONSTRUCTION_WORDS: Record<string, string> = {
  'planar-laplace+remap': 'planar Laplace with the optimal remap',
  'tight+remap': 'the tight-constraints mechanism with the optimal remap',
  'exponential+remap': 'the exponential mechanism with the optimal remap',
};

/** A candidate's construction in words (its key when unknown). */
export function constructionWords(construction: string): string {
  return CONSTRUCTION_WORDS[construction] ?? construction;
}

/**
 * Where a saved result's bound came from when it records a relaxation solved first (results made now never do:
 * docs/lp.md, "The certified lower bound and the gap").
 */
export function relaxationWords(
  r: NonNullable<LpResult['relaxation']>,
  fmt: (x: number) => string,
  seconds: (ms: number) => string,
): string {
  return `a relaxation solved first (the ${r.delta}-spanner's pairs at the full ε, whose optimum is below the best possible): bound ${fmt(r.bound)} after ${r.rounds} round${r.rounds === 1 ? '' : 's'} in ${seconds(r.timeMs)}`;
}

/** The headline: what the returned mechanism is, against what. */
export function lpResultWords(lp: LpGapBasis): string {
  if (lpNotSolved(lp)) {
    if (gapIsExact(lp) && lp.exactLowerBound !== null && lp.exactLowerBound > 0)
      return `best found, within ${gapPercent(lp.gap)} of the best possible (certified): the LP is too large to solve here, so the best cheap construction is returned, with a bound from one exact pricing round (see the model's reason)`;
    return "best found, not certified: the LP is too large to solve here (see the model's reason), so the best cheap construction is returned and there is no bound on the best possible";
  }
  if (noRoundCompleted(lp)) {
    const why = lp.stoppedBy === 'time-limit' ? 'the time limit came' : `it stopped (${lp.stoppedBy ?? 'early'})`;
    return `best found, not certified: ${why} before the LP's pricing gave a bound above 0, so there is no bound on the best possible (give it more time)`;
  }
  const pct = gapPercent(lp.gap);
  if (gapIsExact(lp)) {
    if (lp.gap <= 0) return 'optimal: certified to be the best possible';
    if (lp.gap <= OPTIMAL_WORDS_GAP) return `optimal: certified within ${pct} of the best possible`;
    return `best found, within ${pct} of the best possible (certified)`;
  }
  const model = lp.model === 'spanner' ? `spanner (δ = ${lp.delta}) model` : `${lp.model} model`;
  return `best found, within ${pct} of the ${model}'s optimum; not checked against the best possible (no certified bound on it)`;
}

/**
 * How the LP was solved, in words (the app's "method" and the CLI's "LP method" line; docs/lp.md, "Solution methods").
 */
export const LP_METHOD_WORDS: Record<LpResult['method'], string> = {
  'full-model': 'full model',
  'constraint-generation': 'constraint generation',
  decomposition: 'decomposition by output column (certified Lagrangian bound)',
};

/** Why the LP ended, in words (the app's "stopped by" and the CLI's "LP rounds" line). */
export const STOPPED_BY_TEXT: Record<LpResult['stoppedBy'], string> = {
  optimal: 'optimal (certified to 1e-9)',
  'target-gap': 'reached the target gap',
  stalled: 'stalled (no further progress)',
  'time-limit': 'time limit',
  stopped: 'stopped by you',
  'iteration-limit': 'round limit',
  'solver-memory': 'solver memory (best so far kept)',
};

/**
 * Why the LP ended, saying which optimum a met target refers to: a spanner model stops on the gap to its own bound,
 * which is not the best possible (its result's `gap` may be far larger: the 12 x 12 town at delta 1.1 stopped at
 * 1.9% of its own optimum and 24.6% of the exact bound). Exact and graph-edge models stop on bounds of the best
 * possible, and their words stay as they are.
 */
export function stoppedByWords(
  lp: Pick<LpResult, 'stoppedBy' | 'model' | 'delta' | 'objective' | 'lowerBound'> & {
    lpObjective?: number | null | undefined;
  },
): string {
  const words = STOPPED_BY_TEXT[lp.stoppedBy];
  if (lp.model !== 'spanner' || (lp.stoppedBy !== 'optimal' && lp.stoppedBy !== 'target-gap')) return words;
  const own = certifiedGap(lp.lpObjective ?? lp.objective, lp.lowerBound);
  const what = lp.stoppedBy === 'optimal' ? 'optimal' : `reached the target gap (${gapPercent(own)})`;
  return `${what} for the spanner (δ = ${lp.delta}) model's own optimum, not the best possible`;
}

/** Which mechanism is returned, in words. */
export function chosenWords(lp: Pick<LpResult, 'chosen'> & Partial<Pick<LpResult, 'rounds' | 'stoppedBy'>>): string {
  if (lp.chosen === undefined || lp.chosen === 'lp') return "the LP's channel";
  return `${constructionWords(lp.chosen)}: ${lpNotSolved(lp) ? 'the best of the candidates (the LP was not solved)' : 'the LP did not beat it'}`;
}

/**
 * Why a candidate has no expected loss, in words (a sentence kept by an earlier version: as recorded; none kept: not
 * built).
 */
export function candidateNoteWords(n: CandidateNote | string | undefined): string {
  if (typeof n === 'string') return n;
  switch (n?.kind) {
    case 'not-tried':
      return 'not tried: it would end past the time limit';
    case 'tight-does-not-exist':
      return `does not exist at this ε: its output weight at ${n.minZAt} would have to be negative`;
    case 'grids-only':
      return 'applies to grids only';
    case 'failed':
      return n.message;
    case 'not-built':
    case undefined:
      return 'not built';
  }
}

/** One candidate in a line: its expected loss, or why it does not apply. */
export function candidateWords(c: LpCandidate, fmt: (x: number) => string): string {
  return c.expectedLoss === null
    ? `${c.construction}: n/a (${candidateNoteWords(c.note)})`
    : `${c.construction}: ${fmt(c.expectedLoss)}`;
}

/**
 * A bound that is 0 or absent, in words: losses are >= 0, so 0 bounds nothing (the app's and the CLI's one wording).
 */
export const NO_BOUND_YET = 'none yet: no bound above 0 was proved before the LP stopped (give it more time)';

/** Whether a lower bound certifies anything: above 0 (losses are >= 0) and finite. */
export function isBound(bound: number | null | undefined): bound is number {
  return bound !== null && bound !== undefined && Number.isFinite(bound) && bound > 0;
}

/**
 * A lower bound in words: certificate words only for a bound above 0 (losses are >= 0, so 0 bounds nothing; a
 * decomposition stopped before a pricing round reports 0).
 */
export function boundWords(bound: number, fmt: (x: number) => string): string {
  return bound > 0 ? fmt(bound) : 'none yet (0)';
}

/** The "bound on the best possible" line: the bound with its certificate, or why there is none. */
export function exactBoundWords(
  lp: Pick<LpResult, 'exactLowerBound' | 'model' | 'rounds' | 'stoppedBy'>,
  fmt: (x: number) => string,
): string {
  if (lp.exactLowerBound === null) {
    if (lpNotSolved(lp)) return '— (none: the LP was not solved here)';
    return lp.model === 'spanner'
      ? '— (none for a spanner over 256 locations: solve the exact model)'
      : '— (none computed)';
  }
  if (!(lp.exactLowerBound > 0)) return NO_BOUND_YET;
  return `${fmt(lp.exactLowerBound)} (certified: no private mechanism does better)`;
}
