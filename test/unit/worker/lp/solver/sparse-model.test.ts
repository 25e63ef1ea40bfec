import { describe, expect, it } from 'vitest';
import { MechError } from '../../../../../src-shared/errors';
import { highsRuntime } from '../../../../../src-worker/lp/solver/highs-runtime';
import { assertLpFits, estimateLpBytes } from '../../../../../src-worker/lp/solver/memory-estimate';
import { PersistentLp, runStopReason, solveSparseLp } from '../../../../../src-worker/lp/solver/persistent-lp';
import { SparseLp } from '../../../../../src-worker/lp/solver/sparse-model';

describe('sparse LP builder and HiGHS solve', () => {
  it('solves a small LP built row by row (growing past its initial capacity)', async () => {
    // max x + 2y  s.t.  x + y <= 4, x + 3y <= 6, x <= 3  -> x = 3, y = 1, objective 5.
    const lp = new SparseLp(2, 1, 1);
    lp.sense = 'maximize';
    lp.colCost.set([1, 2]);
    lp.addRow(-Infinity, 4, [0, 1], [1, 1]);
    lp.addRow2(-Infinity, 6, 0, 1, 1, 3);
    lp.addRow(-Infinity, 3, [0], [1]);
    expect([lp.numRows, lp.nonzeros]).toEqual([3, 5]);
    const s = await solveSparseLp(lp, 'a test LP');
    expect(s.objective).toBeCloseTo(5, 12);
    expect(Array.from(s.colValue)).toEqual([3, 1]);
  });

  it('an infeasible model gives MechError infeasible, and the runtime stays usable', async () => {
    const lp = new SparseLp(1);
    lp.addRow(2, Infinity, [0], [1]);
    lp.addRow(-Infinity, 1, [0], [1]);
    const err = await solveSparseLp(lp, 'an impossible LP').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MechError);
    expect((err as MechError).code).toBe('infeasible');
    expect((err as MechError).message).toMatch(/an impossible LP has no feasible solution/);
    const ok = new SparseLp(1);
    ok.colCost[0] = 1;
    ok.addRow(2, Infinity, [0], [1]);
    expect((await solveSparseLp(ok, 'a fine LP')).objective).toBeCloseTo(2, 12);
  });

  it('an unbounded model gives a MechError, not a crash', async () => {
    const lp = new SparseLp(1);
    lp.sense = 'maximize';
    lp.colCost[0] = 1;
    await expect(solveSparseLp(lp, 'an unbounded LP')).rejects.toMatchObject({ code: 'infeasible' });
  });

  it('the runtime is loaded once and shared', async () => {
    expect(await highsRuntime()).toBe(await highsRuntime());
  });

  it('memory estimate grows with the model and refuses oversized models early', () => {
    expect(estimateLpBytes(1000, 1000, 4000)).toBeLessThan(estimateLpBytes(10000, 1000, 4000));
    expect(estimateLpBytes(1000, 1000, 4000)).toBeLessThan(estimateLpBytes(1000, 1000, 40000));
    expect(() => assertLpFits(1000, 1000, 4000, 'small')).not.toThrow();
    expect(() => assertLpFits(2e6, 5e7, 1e8, 'a huge LP')).toThrow(/a huge LP would need about \d+ MiB/);
    try {
      assertLpFits(2e6, 5e7, 1e8, 'x');
    } catch (e) {
      expect((e as MechError).code).toBe('too-large');
      expect((e as MechError).detail?.variables).toBe(2e6);
    }
  });

  it('a run stops at the solver checkpoints on its deadline or stop test (MechError cancelled with the reason), and the model stays usable', async () => {
    // A 40 x 40 transport problem (1600 variables, 80 equality rows): hundreds of simplex iterations.
    const k = 40;
    const build = (): SparseLp => {
      const lp = new SparseLp(k * k, 2 * k, 2 * k * k);
      for (let i = 0; i < k; i++)
        for (let j = 0; j < k; j++) lp.colCost[i * k + j] = ((i * 7919 + j * 104729) % 1000) / 1000;
      for (let i = 0; i < k; i++)
        lp.addRow(
          1,
          1,
          Array.from({ length: k }, (_, j) => i * k + j),
          Array.from({ length: k }, () => 1),
        );
      for (let j = 0; j < k; j++)
        lp.addRow(
          1,
          1,
          Array.from({ length: k }, (_, i) => i * k + j),
          Array.from({ length: k }, () => 1),
        );
      return lp;
    };
    const reference = await solveSparseLp(build(), 'the transport LP');
    const model = await PersistentLp.open(build(), 'the transport LP', { highsOptions: { presolve: 'off' } });
    try {
      const late = await Promise.resolve()
        .then(() => model.run(false, { deadline: performance.now() - 1 }))
        .catch((e: unknown) => e);
      expect(late).toBeInstanceOf(MechError);
      expect((late as MechError).code).toBe('cancelled');
      expect(runStopReason(late)).toBe('time-limit');
      model.clearSolver();
      const stopped = await Promise.resolve()
        .then(() => model.run(false, { shouldStop: () => true }))
        .catch((e: unknown) => e);
      expect(runStopReason(stopped)).toBe('stopped');
      // Other errors are not stops.
      expect(runStopReason(new MechError('cancelled', 'x'))).toBeNull();
      expect(runStopReason(new MechError('too-large', 'x', { reason: 'time-limit' }))).toBeNull();
      model.clearSolver();
      const done = model.run(false, { deadline: performance.now() + 600_000, shouldStop: () => false });
      expect(done.objective).toBeCloseTo(reference.objective, 9);
    } finally {
      model.dispose();
    }
  });
});
