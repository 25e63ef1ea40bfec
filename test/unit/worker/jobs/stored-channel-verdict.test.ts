/**
 * A mechanism result never shows a guarantee the stored channel does not
 * keep: when entries underflow to 0 in doubles, the effective eps
 * of the stored channel is Infinity and the result says so first.
 */
import { describe, expect, it } from 'vitest';
import { type MechanismResult } from '../../../../src-shared/protocol/results';
import { runJob } from '../../support/run-job';
import { mechanismNotesText } from '../../../../src-shared/charts/mechanism-notes';

const mechanism = (domain: string, epsilon: number, kind: string): Promise<MechanismResult> =>
  runJob<'mechanism'>({ type: 'mechanism', domain, epsilon, kind });

describe('mechanism results: the stored channel decides', () => {
  it('TG on line:100 at eps 10 (e^-990 is 0 in doubles): effective eps Infinity and a NOT-private note; at eps 5 no note', async () => {
    const far = await mechanism('line:100', 10, 'tg');
    expect(far.guaranteedEpsilon).toBe(10);
    expect(far.effectiveEpsilon).toBe(Infinity);
    expect(far.notes).toEqual([{ kind: 'stored-underflow', guaranteed: 10 }]);
    expect(mechanismNotesText(far)).toMatch(
      /^NOT private as stored: some probabilities are too small for 64-bit floats/,
    );
    const near = await mechanism('line:100', 5, 'tg');
    expect(near.effectiveEpsilon).toBeCloseTo(5, 9);
    expect(near.notes).toBeUndefined();
  });

  it('randomised response at eps 800 releases the identity: not private as stored', async () => {
    const rr = await mechanism('clique:4', 800, 'rr');
    expect(rr.effectiveEpsilon).toBe(Infinity);
    expect(rr.notes).toEqual([{ kind: 'stored-underflow', guaranteed: 800 }]);
  });
});
