/**
 * The time limit of an optimal request holds for the whole job on a 50 x 50 grid (2,500 locations, 6.25M channel
 * variables): the cheap candidates, the coarse start, the decomposition's set-up and rounds, the finish and the
 * job's measures all fit in it (up to the slack of a loaded machine), and what comes back is the best mechanism
 * found, never worse than a cheap construction, with an honest gap. A behavioural bound, not a speed goal: without
 * the whole-job limit this job ran for minutes past it.
 */
import { describe, expect, it } from 'vitest';
import { silentContext } from '../../src-worker/jobs/context';
import { runJobRequest } from '../../src-worker/jobs/run';
import { parseJobRequest } from '../../src-shared/protocol/validate';
import type { MechanismResult } from '../../src-shared/protocol/results';

const LIMIT = 30;

describe('the time limit of an optimal request on 50 x 50, as a whole job', () => {
  it(`returns within its ${LIMIT} s limit (1.5x slack for a loaded machine) the best mechanism found`, async () => {
    const values = Array.from({ length: 2500 }, (_, i) => 1 + ((i * 7919) % 13) ** 2);
    const s = values.reduce((a, b) => a + b, 0);
    const p = parseJobRequest({
      type: 'mechanism',
      domain: 'grid:50x50:step=0.5',
      epsilon: Math.log(4),
      kind: 'optimal',
      prior: { kind: 'vector', values: values.map((v) => v / s) },
      loss: 'dist',
      timeLimitSeconds: LIMIT,
    });
    if (!p.ok) throw new Error(p.error.message);
    const t0 = performance.now();
    const r = (await runJobRequest(p.value, silentContext())) as MechanismResult;
    const seconds = (performance.now() - t0) / 1000;
    expect(seconds).toBeLessThan(1.5 * LIMIT);
    const lp = r.lp!;
    expect(lp.model).toBe('exact');
    expect(lp.stoppedBy).toBe('time-limit');
    // never worse than a cheap construction, and the gap is to the best possible (0 is the trivial bound when no round completed)
    const built = lp.candidates!.filter((c) => c.expectedLoss !== null);
    expect(built.length).toBeGreaterThanOrEqual(2);
    for (const c of built) expect(lp.objective).toBeLessThanOrEqual(c.expectedLoss!);
    // the job measures the returned channel with the optimal remap: never above its face-value loss
    expect(r.expectedLoss!).toBeLessThanOrEqual(lp.objective * (1 + 1e-9)); // summed in another order: rounding
    expect(lp.gapBasis).toBe('exact');
    expect(lp.exactLowerBound!).toBeLessThanOrEqual(lp.objective);
    expect(lp.gap).toBeCloseTo((lp.objective - lp.exactLowerBound!) / lp.objective, 12);
  }, 120_000);
});
