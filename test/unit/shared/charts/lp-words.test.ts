/**
 * The words of an optimal result (src-shared/charts/lp-words.ts, shown by the CLI and the app): "optimal" only with
 * a certified gap to the exact optimum of at most 1e-6, "best found, within X% of the best possible" with a bound on
 * it, and without one the solved model's gap with a plain "not checked against the best possible".
 */
import { describe, expect, it } from 'vitest';
import {
  candidateNoteWords,
  candidateWords,
  chosenWords,
  gapPercent,
  lpResultWords,
  relaxationWords,
  stoppedByWords,
} from '../../../../src-shared/charts/lp-words';

const lp = (
  gap: number,
  exactLowerBound: number | null,
  gapBasis?: 'exact' | 'model',
  model: 'exact' | 'spanner' | 'edges' = 'exact',
) => ({
  gap,
  exactLowerBound,
  model,
  delta: model === 'spanner' ? 1.1 : 1,
  ...(gapBasis ? { gapBasis } : {}),
});

describe('the words of an optimal result', () => {
  it('optimal only with a certified gap to the best possible of at most 1e-6', () => {
    expect(lpResultWords(lp(0, 1.2, 'exact'))).toBe('optimal: certified to be the best possible');
    expect(lpResultWords(lp(1e-6, 1.2, 'exact'))).toBe('optimal: certified within 0.0001% of the best possible');
    expect(lpResultWords(lp(1.1e-6, 1.2, 'exact'))).toBe(
      'best found, within 0.00011% of the best possible (certified)',
    );
    expect(lpResultWords(lp(0.0312, 1.2, 'exact'))).toBe('best found, within 3.12% of the best possible (certified)');
  });

  it('without a bound on the exact optimum: the model gap, said to be no bound on the best possible (never "optimal")', () => {
    const w = lpResultWords(lp(0, null, 'model', 'spanner'));
    expect(w).toBe(
      "best found, within 0% of the spanner (δ = 1.1) model's optimum; not checked against the best possible (no certified bound on it)",
    );
    expect(w).not.toMatch(/^optimal/);
    // a result saved before gapBasis existed: an exact bound decides
    expect(lpResultWords(lp(0.5, null))).toMatch(/model's optimum; not checked/);
    expect(lpResultWords(lp(0.5, 0.3))).toBe('best found, within 50.0% of the best possible (certified)');
  });

  it('a decomposition stopped before its pricing gave a bound says in one line that it has none', () => {
    const stopped = {
      ...lp(1, 0, 'exact'),
      method: 'decomposition' as const,
      rounds: 0,
      stoppedBy: 'time-limit' as const,
    };
    const none =
      "best found, not certified: the time limit came before the LP's pricing gave a bound above 0, so there is no bound on the best possible (give it more time)";
    expect(lpResultWords(stopped)).toBe(none);
    // a round cut by the time limit mid-pricing (50 x 50 in 60 s): still only the trivial bound
    expect(lpResultWords({ ...stopped, rounds: 1 })).toBe(none);
    // a completed round: its Lagrangian bound is certified, the usual words
    expect(lpResultWords({ ...stopped, rounds: 1, gap: 0.2 })).toBe(
      'best found, within 20.0% of the best possible (certified)',
    );
  });

  it("a spanner model's met target or optimum is said to be its own, not the best possible's", () => {
    // the 12 x 12 town at delta 1.1: the spanner's own gap (0.954818 - 0.936555) / 0.954818 = 1.91%, 24.6% to the exact
    // bound
    const town = {
      model: 'spanner' as const,
      delta: 1.1,
      objective: 0.954818,
      lowerBound: 0.936555,
      lpObjective: 0.954818,
    };
    expect(stoppedByWords({ ...town, stoppedBy: 'target-gap' })).toBe(
      "reached the target gap (1.91%) for the spanner (δ = 1.1) model's own optimum, not the best possible",
    );
    expect(stoppedByWords({ ...town, stoppedBy: 'optimal' })).toBe(
      "optimal for the spanner (δ = 1.1) model's own optimum, not the best possible",
    );
    // the returned candidate's loss is not the LP's: the model's gap is the LP's own channel against its bound
    expect(stoppedByWords({ ...town, objective: 0.94, lpObjective: 1.0, stoppedBy: 'target-gap' })).toMatch(
      /\(6\.34%\)/,
    );
    // exact and graph-edge models stop on bounds of the best possible: the plain words
    expect(stoppedByWords({ ...town, model: 'exact', stoppedBy: 'target-gap' })).toBe('reached the target gap');
    expect(stoppedByWords({ ...town, model: 'edges', stoppedBy: 'optimal' })).toBe('optimal (certified to 1e-9)');
    expect(stoppedByWords({ ...town, stoppedBy: 'time-limit' })).toBe('time limit');
  });

  it('a large exact model bounded by a relaxation is certified even when the exact model got no round', () => {
    const relaxation = { delta: 1.1, bound: 1.155668, rounds: 11, timeMs: 94_832, stoppedBy: 'time-limit' as const };
    const r = {
      ...lp(0.103, 1.155668, 'exact'),
      method: 'decomposition' as const,
      rounds: 0,
      stoppedBy: 'time-limit' as const,
      relaxation,
    };
    expect(lpResultWords(r)).toBe('best found, within 10.3% of the best possible (certified)');
    expect(
      relaxationWords(
        relaxation,
        (x) => `${x.toFixed(4)} km`,
        (ms) => `${(ms / 1000).toFixed(1)} s`,
      ),
    ).toBe(
      "a relaxation solved first (the 1.1-spanner's pairs at the full ε, whose optimum is below the best possible): bound 1.1557 km after 11 rounds in 94.8 s",
    );
    // a relaxation that reached no bound (0) certifies nothing
    expect(lpResultWords({ ...r, gap: 1, relaxation: { ...relaxation, bound: 0, rounds: 0 } })).toMatch(
      /^best found, not certified/,
    );
  });

  it("why a candidate has no expected loss, from its typed note (in plain words: no 'Phi z = 1 has a negative z')", () => {
    expect(candidateNoteWords({ kind: 'tight-does-not-exist', minZAt: '(8,1)' })).toBe(
      'does not exist at this ε: its output weight at (8,1) would have to be negative',
    );
    expect(candidateNoteWords({ kind: 'not-tried' })).toBe('not tried: it would end past the time limit');
    expect(candidateNoteWords({ kind: 'grids-only' })).toBe('applies to grids only');
    expect(candidateNoteWords({ kind: 'not-built' })).toBe('not built');
    expect(candidateNoteWords(undefined)).toBe('not built');
    expect(candidateNoteWords({ kind: 'failed', message: 'too large: 10^9 cells' })).toBe('too large: 10^9 cells');
    // a result kept by an older version: its sentence as recorded
    expect(candidateNoteWords('does not exist at this eps')).toBe('does not exist at this eps');
  });

  it('what is returned, and the candidates, in words', () => {
    expect(chosenWords({ chosen: 'lp' })).toBe("the LP's channel");
    expect(chosenWords({})).toBe("the LP's channel");
    expect(chosenWords({ chosen: 'tight+remap' })).toBe(
      'the tight-constraints mechanism with the optimal remap: the LP did not beat it',
    );
    expect(
      candidateWords(
        { construction: 'tight+remap', expectedLoss: null, time: 0.1, note: 'does not exist at this eps' },
        String,
      ),
    ).toBe('tight+remap: n/a (does not exist at this eps)');
    expect(candidateWords({ construction: 'exponential+remap', expectedLoss: 2.5, time: 0.1 }, String)).toBe(
      'exponential+remap: 2.5',
    );
    expect(
      candidateWords(
        {
          construction: 'tight+remap',
          expectedLoss: null,
          time: 0.1,
          note: { kind: 'tight-does-not-exist', minZAt: '(8,1)' },
        },
        String,
      ),
    ).toBe('tight+remap: n/a (does not exist at this ε: its output weight at (8,1) would have to be negative)');
    expect(candidateWords({ construction: 'planar-laplace+remap', expectedLoss: null, time: 0 }, String)).toBe(
      'planar-laplace+remap: n/a (not built)',
    );
    expect([gapPercent(0), gapPercent(0.5), gapPercent(0.00123), gapPercent(NaN)]).toEqual([
      '0%',
      '50.0%',
      '0.12%',
      '—',
    ]);
  });
});
