/**
 * A mechanism result never shows a guarantee the stored channel does not
 * keep (issue 12): when entries underflow to 0 in doubles, the effective eps
 * of the stored channel is Infinity and the result says so first.
 */
import { describe, expect, it } from 'vitest';
import { silentContext } from '../../../src-worker/jobs/context';
import { runJobRequest } from '../../../src-worker/jobs/run';
import { jobResultSchema, type MechanismResult } from '../../../src-worker/protocol/results';
import { parseJobRequest } from '../../../src-worker/protocol/validate';

async function mechanism(domain: string, epsilon: number, kind: string): Promise<MechanismResult> {
  const parsed = parseJobRequest({ type: 'mechanism', domain, epsilon, kind });
  if (!parsed.ok) throw new Error(parsed.error.message);
  const r = await runJobRequest(parsed.value, silentContext());
  expect(jobResultSchema.safeParse(r).success).toBe(true);
  return r as MechanismResult;
}

describe('mechanism results: the stored channel decides', () => {
  it('TG on line:100 at eps 10 (e^-990 is 0 in doubles): effective eps Infinity and a NOT-private note; at eps 5 no note', async () => {
    const far = await mechanism('line:100', 10, 'tg');
    expect(far.guaranteedEpsilon).toBe(10);
    expect(far.effectiveEpsilon).toBe(Infinity);
    expect(far.note).toMatch(/^NOT private as stored: some entries are too small for 64-bit floats/);
    const near = await mechanism('line:100', 5, 'tg');
    expect(near.effectiveEpsilon).toBeCloseTo(5, 9);
    expect(near.note ?? '').not.toMatch(/NOT private/);
  });

  it('randomised response at eps 800 releases the identity: not private as stored', async () => {
    const rr = await mechanism('clique:4', 800, 'rr');
    expect(rr.effectiveEpsilon).toBe(Infinity);
    expect(rr.note).toMatch(/NOT private as stored/);
  });
});
