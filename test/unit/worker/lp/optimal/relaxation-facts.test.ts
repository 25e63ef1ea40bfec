/** "How it was computed" of a large exact model bounded by a relaxation: its rounds, time and gap as the headline's. */
import { describe, expect, it } from 'vitest';
import { factsWithRelaxation } from '../../../../../src-worker/lp/optimal/relaxation-bound';
import { optimalSolveFacts } from '../../../support/optimal-solve-facts';

describe('facts with a relaxation solved first', () => {
  it('count the relaxation in the rounds and the solver time; the gap is the record gap (the headline bound)', () => {
    const base = optimalSolveFacts();
    const facts = { ...base, solverMs: 0, decomposition: { ...base.decomposition!, rounds: 0, relativeGap: 1 } };
    const out = factsWithRelaxation(
      facts,
      { delta: 1.5, bound: 1.1, rounds: 7, timeMs: 21_500, stoppedBy: 'time-limit' },
      0.124,
    );
    expect(out.decomposition!.rounds).toBe(7);
    expect(out.solverMs).toBe(21_500);
    expect(out.decomposition!.relativeGap).toBe(0.124);
    expect(factsWithRelaxation(facts, null, 0.124)).toBe(facts);
  });
});
