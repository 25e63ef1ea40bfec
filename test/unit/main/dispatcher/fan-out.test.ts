/**
 * A sweep fanned out in eps slices over the real pool equals the single job
 * value for value (same floats, same notes, bounds in the same places), and
 * a failing part fails the whole.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Dispatcher } from '../../../../src-main/dispatcher/dispatcher';
import { mergeSweeps, runFannedOut, sweepSlices } from '../../../../src-main/dispatcher/fan-out';
import type { SweepRequest } from '../../../../src-shared/protocol/requests';

const pool = new Dispatcher({ threads: 2 });
afterAll(() => pool.close());

describe('sweep fan-out', () => {
  it('slices cover the grid once, in order, near-equal', () => {
    for (const [steps, parts] of [
      [2, 5],
      [7, 3],
      [15, 16],
      [500, 16],
      [9, 1],
    ] as const) {
      const s = sweepSlices(steps, parts);
      expect(s.length).toBe(Math.min(steps, parts));
      expect(s.reduce((a, x) => a + x.count, 0)).toBe(steps);
      s.forEach((x, i) => expect(x.start).toBe(i === 0 ? 0 : s[i - 1]!.start + s[i - 1]!.count));
      const counts = s.map((x) => x.count);
      expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
    }
  });

  it('3, 4 and 7 parts equal the single job (tight missing below its threshold, bounds, expected loss)', async () => {
    const req: SweepRequest = {
      type: 'sweep',
      domain: 'grid:4x4',
      kinds: ['tight', 'planar-laplace', 'rr'],
      from: 0.2,
      to: 2.4,
      steps: 7,
      prior: 'uniform',
      loss: 'dist',
    } as SweepRequest;
    const whole = await pool.run(req);
    expect(whole.type).toBe('sweep');
    if (whole.type !== 'sweep') return;
    // the case that matters: some points missing with notes, others present
    expect(whole.series[0]!.utility.some((u) => u === null)).toBe(true);
    expect(whole.series[0]!.utility.some((u) => u !== null)).toBe(true);
    for (const parts of [3, 4, 7]) {
      const fanned = await runFannedOut(pool, req, parts);
      expect(fanned).toEqual(whole);
    }
    // and merging the slices by hand gives the same object
    const slices = await Promise.all(sweepSlices(7, 2).map((slice) => pool.run({ ...req, slice })));
    expect(mergeSweeps(slices as never)).toEqual(whole);
  });

  it('a slice outside the grid is refused at the boundary; a failing part fails the whole', async () => {
    await expect(
      pool.run({
        type: 'sweep',
        domain: 'line:4',
        kinds: ['tg'],
        from: 0.5,
        to: 1,
        steps: 3,
        slice: { start: 2, count: 2 },
      }),
    ).rejects.toMatchObject({ code: 'invalid-input' });
    await expect(
      runFannedOut(
        pool,
        { type: 'sweep', domain: 'grid:1000000x1000000', kinds: ['tg'], from: 0.5, to: 1, steps: 4 } as SweepRequest,
        2,
      ),
    ).rejects.toMatchObject({ code: 'too-large' });
  });
});
