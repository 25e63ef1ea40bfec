/**
 * Where a prior that is not regular becomes regular. Product prior (0.3, 0.27, 0.23, 0.2) per individual on
 * db:2,4 (Hamming): Phi is a Kronecker power of (1 - a) I + a J with a = e^-eps, and the prior is regular iff
 * min p >= a / (1 + 3a), i.e. 0.2 (1 + 3a) >= a, a <= 1/2: from eps = ln 2 exactly.
 */
import { describe, expect, it } from 'vitest';
import { runJob } from '../../support/run-job';
import type { PriorInput } from '../../../../src-shared/protocol/index';

/** The regular job's answer for `prior` on `domain` at `epsilon`. */
const regular = (domain: string, epsilon: number, prior: PriorInput) =>
  runJob<'regular'>({ type: 'regular', domain, epsilon, prior });

describe('regular job: regularFrom', () => {
  it('a prior not regular at 0.5 is regular from ln 2: the search brackets ln 2 within 1%', async () => {
    const r = await regular('db:2,4', 0.5, { kind: 'product', values: [0.3, 0.27, 0.23, 0.2] });
    expect(r.regular).toBe(false);
    const f = r.regularFrom!;
    expect(f.below).toBeLessThan(Math.LN2);
    expect(f.epsilon).toBeGreaterThanOrEqual(Math.LN2);
    expect(f.epsilon - f.below).toBeLessThanOrEqual(0.01 * f.epsilon);
  });

  it('a regular prior has no search; a prior never regular says so with null', async () => {
    const ok = await regular('db:2,4', 1, { kind: 'product', values: [0.3, 0.27, 0.23, 0.2] });
    expect([ok.regular, ok.regularFrom]).toEqual([true, undefined]);
    // a prior with zeros is outside every corner prior's hull (they are positive everywhere) up to 64 x 0.1 = 6.4
    // (the search doubles 6 times; far beyond, e^-eps falls under the solver's tolerance)
    const never = await regular('line:4', 0.1, { kind: 'vector', values: [0.5, 0.5, 0, 0] });
    expect([never.regular, never.regularFrom]).toEqual([false, null]);
  });
});
