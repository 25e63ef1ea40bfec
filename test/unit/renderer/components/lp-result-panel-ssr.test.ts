/**
 * The optimal LP's result panel (server-side render): the headline and the "bound on the best possible" line say
 * what the result is on each path, never a spanner's reason on an exact model and never "stopped" words on an LP
 * that was too large to solve here.
 */
import { describe, expect, it } from 'vitest';
import { useSsrComponents } from '../../support/ssr';
import type { LpCandidate, LpResult } from '../../../../src-shared/protocol/index';
import { LP_NO_BOUND_YET } from '../../support/lp-result-records';

const PANEL = '/src-renderer/components/LpResultPanel.svelte';
const ssr = useSsrComponents([PANEL]);
const text = (lp: LpResult): string =>
  ssr
    .html(PANEL, { lp, unit: 'km' })
    .replace(/<!--[^>]*-->/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');

const base: LpResult = {
  model: 'exact',
  modelChoice: 'auto',
  modelReason: '6,250,000 variables',
  delta: 1,
  method: 'decomposition',
  objective: 1.288523,
  lowerBound: 0,
  gap: 1,
  exactLowerBound: null,
  gapBasis: 'exact',
  chosen: 'tight+remap',
  candidates: [{ construction: 'tight+remap', expectedLoss: 1.288523, time: 2.1 }],
  lpObjective: null,
  rounds: 0,
  timeMs: 30_000,
  stoppedBy: 'solver-memory',
  timeLimitReached: false,
  history: [],
};

/** An exact model stopped by its time limit with a certified bound (a gap of 9.41%). */
const STOPPED_WITH_BOUND = {
  exactLowerBound: 1.16727,
  lowerBound: 1.16727,
  gap: 0.0941,
  stoppedBy: 'time-limit',
} as const;

describe('LP result panel (server-side render)', () => {
  it('an LP too large to solve here: its own headline, and no bound because it was not solved (not a spanner reason)', () => {
    const t = text(base);
    expect(t).toContain('best found, not certified: the LP is too large to solve here');
    expect(t).not.toContain('this is the best private mechanism found');
    expect(t).toContain('— (none: the LP was not solved here)');
    expect(t).not.toContain('spanner over 256 locations');
  });

  it('too large to solve, with the bound without a master: the certified gap and the bound, still no LP round', () => {
    // 100 x 100 as measured: tight + remap 1.3984 km, bound 0.6358 km.
    const t = text({
      ...base,
      objective: 1.3984,
      candidates: [{ construction: 'tight+remap', expectedLoss: 1.3984, time: 20.4 }],
      lowerBound: 0.6358,
      exactLowerBound: 0.6358,
      gap: (1.3984 - 0.6358) / 1.3984,
    });
    expect(t).toContain(
      'best found, within 54.5% of the best possible (certified): the LP is too large to solve here, so the best cheap construction is returned, with a bound from one exact pricing round',
    );
    expect(t).toContain('(certified: no private mechanism does better)');
    expect(t).not.toContain('not certified');
    expect(t).not.toContain('this is the best private mechanism found');
  });

  it('a spanner over 256 locations: no bound on the best possible, said with its reason', () => {
    const t = text({
      ...base,
      model: 'spanner',
      delta: 1.1,
      gapBasis: 'model',
      lowerBound: 1.2,
      gap: 0.05,
      rounds: 12,
      lpObjective: 1.26,
      objective: 1.26,
      chosen: 'lp',
      stoppedBy: 'target-gap',
    });
    expect(t).toContain('— (none for a spanner over 256 locations: solve the exact model)');
    expect(t).toContain(
      "reached the target gap (4.76%) for the spanner (δ = 1.1) model's own optimum, not the best possible",
    );
  });

  it('an exact model stopped by the time limit with a bound: the stopped words with the certified gap', () => {
    const t = text({ ...base, ...STOPPED_WITH_BOUND, rounds: 1, timeLimitReached: true });
    expect(t).toContain(
      'time limit: this is the best private mechanism found, within 9.41% of the best possible (certified)',
    );
    expect(t).toContain('1.16727 km (certified: no private mechanism does better)');
  });

  it("a candidate without a loss says why, worded from its typed note (a kept result's sentence as recorded)", () => {
    const missing = (note: LpCandidate['note']) => ({
      ...base,
      candidates: [{ construction: 'tight+remap', expectedLoss: null, time: 0.1, ...(note ? { note } : {}) }],
    });
    expect(text(missing({ kind: 'tight-does-not-exist', minZAt: '(1,2)' }))).toContain(
      ' n/a: does not exist at this ε: its output weight at (1,2) would have to be negative ',
    );
    expect(text(missing('as it was written'))).toContain(' n/a: as it was written ');
    expect(text(missing(undefined))).toContain(' n/a: not built ');
  });

  it('the method in the words the CLI prints too (src-shared/charts/lp-words.ts, one table)', () => {
    expect(text(base)).toContain(' method decomposition by output column (certified Lagrangian bound) ');
    expect(text({ ...base, method: 'constraint-generation' })).toContain(' method constraint generation ');
    expect(text({ ...base, method: 'full-model' })).toContain(' method full model ');
  });
});

describe('LP result panel: no certificate without a bound', () => {
  it('a bound of 0 (no pricing round gave one above 0) is not called certified', () => {
    const t = text({ ...base, ...LP_NO_BOUND_YET });
    expect(t).toContain('bound on the best possible none yet: no bound above 0 was proved before the LP stopped');
    expect(t).toContain(' lower bound (exact model) none yet (0)');
    expect(t).not.toContain('certified lower bound');
    expect(t).not.toContain('certified: no private mechanism does better');
  });

  it('a bound above 0 keeps its certificate words', () => {
    const t = text({ ...base, ...STOPPED_WITH_BOUND, chosen: 'lp', rounds: 3 });
    expect(t).toContain('bound on the best possible 1.16727 km (certified: no private mechanism does better)');
    expect(t).toContain('certified lower bound (exact model) 1.16727 km');
  });
});
