/**
 * The time limit of an optimal request on a 50 x 50 grid (2,500 locations, 6.25M channel variables), as a whole job:
 * the cheap candidates, the coarse start, the decomposition's set-up and rounds, the finish and the job's measures all
 * run under it, the job says it stopped at the limit, and what comes back is the best mechanism found, never worse
 * than a cheap construction, with an honest gap. How long the job took against its limit is measured, not asserted,
 * by `npm run bench -- lp-time-limit` (test/bench/lp-time-limit.bench.ts): a clock in a test fails on a busy machine.
 */
import { describe, expect, it } from 'vitest';
import { silentContext } from '../../src-worker/jobs/context';
import { runJobRequest } from '../../src-worker/jobs/run';
import { parseJobRequest } from '../../src-shared/protocol/validate';
import type { MechanismResult } from '../../src-shared/protocol/results';
import { timeLimitRequest, TIME_LIMIT_SECONDS as LIMIT } from './lp-time-limit-request';

describe('the time limit of an optimal request on 50 x 50, as a whole job', () => {
  it(`stops at its ${LIMIT} s limit with the best mechanism found`, async () => {
    const p = parseJobRequest(timeLimitRequest());
    if (!p.ok) throw new Error(p.error.message);
    const r = (await runJobRequest(p.value, silentContext())) as MechanismResult;
    const lp = r.lp!;
    expect(lp.model).toBe('exact');
    expect(lp.stoppedBy).toBe('time-limit');
    // never worse than a cheap construction, and the gap is to the best possible (0 is the trivial bound when no round
    // completed)
    const built = lp.candidates!.filter((c) => c.expectedLoss !== null);
    expect(built.length).toBeGreaterThanOrEqual(2);
    for (const c of built) expect(lp.objective).toBeLessThanOrEqual(c.expectedLoss!);
    // the job measures the returned channel with the optimal remap: never above its face-value loss
    expect(r.expectedLoss!).toBeLessThanOrEqual(lp.objective * (1 + 1e-9)); // summed in another order: rounding
    expect(lp.gapBasis).toBe('exact');
    expect(lp.exactLowerBound!).toBeLessThanOrEqual(lp.objective);
    expect(lp.gap).toBeCloseTo((lp.objective - lp.exactLowerBound!) / lp.objective, 12);
  }, 300_000); // a hang guard (ten times the limit), not a time bound
});
