/**
 * Compare with a mechanism computed in the project: an optimal LP whose
 * channel the host keeps is compared by its channelRef (the dispatcher hands
 * the kept channel on), with the same figures as the same LP built by the
 * comparison itself; a reference no longer kept is one clear error naming
 * the compared mechanism; Stop applies to an optimal LP the comparison
 * builds, not to a kept channel.
 */
import { describe, expect, it } from 'vitest';
import { isLpJob } from '../../src-main/dispatcher/dispatcher';
import { ApiError } from '../../src-shared/protocol/api';
import type { CompareResult } from '../../src-shared/protocol/compare';
import type { MechanismResult } from '../../src-shared/protocol/results';
import { validRequest } from '../unit/support/run-job';
import { suiteDispatcher } from './dispatcher-fixture';

const DOMAIN = 'grid:4x4:step=0.5';
const PRIOR = { kind: 'vector' as const, values: Array.from({ length: 16 }, (_, i) => (i + 1) / 136) };

describe('compare names a kept channel', () => {
  const dispatcher = suiteDispatcher({ threads: 1 });

  it('an optimal LP kept by the host compares as the same LP built by the comparison', async () => {
    const d = dispatcher();
    const kept = (await d.run({
      type: 'mechanism',
      domain: DOMAIN,
      epsilon: 1,
      kind: 'optimal',
      prior: PRIOR,
      loss: 'dist',
      inlineLimit: 100,
      keepChannel: true,
    })) as MechanismResult;
    expect(kept.matrix).toBeUndefined();
    const r = (await d.run({
      type: 'compare',
      domain: DOMAIN,
      epsilon: 1,
      prior: PRIOR,
      loss: 'dist',
      mechanisms: [{ kind: 'optimal' }, { kind: 'optimal', channelRef: kept.channelRef, label: 'opt (project)' }],
    })) as CompareResult;
    const [built, byRef] = r.rows;
    expect(byRef!.label).toBe('opt (project)');
    expect(byRef!.exists).toBe(true);
    for (const k of [
      'expectedDistance',
      'expectedDistanceRemapped',
      'pTrue',
      'leakageBits',
      'effectiveEpsilon',
      'betterThanPlanarLaplacePct',
    ] as const)
      expect(byRef![k]!).toBeCloseTo(built![k]!, 9);
    // the LP's objective for the distance loss is the expected distance of the kept channel
    expect(byRef!.expectedDistance!).toBeCloseTo(kept.lp!.objective, 9);
    expect(byRef!.focusRow).toEqual(built!.focusRow);
  }, 60_000);

  it('a reference no longer kept: invalid-input naming the compared mechanism, no job', async () => {
    const d = dispatcher();
    const ref = 'ch-0123456789abcdef0123456789abcdef';
    await expect(
      d.run({
        type: 'compare',
        domain: DOMAIN,
        epsilon: 1,
        mechanisms: [{ kind: 'planar-laplace' }, { kind: 'optimal', channelRef: ref, label: 'opt' }],
      }),
    ).rejects.toSatisfy(
      (e: unknown) =>
        e instanceof ApiError &&
        e.code === 'invalid-input' &&
        e.message ===
          `compare: mechanism 2 (opt): the channel ${ref} is no longer kept by the app (its files are in neither the project's channel folder nor the app's cache): compute its mechanism again`,
    );
    expect(d.activeJobs).toBe(0);
  });

  it('Stop keeps a result only when the comparison builds an optimal LP', () => {
    const req = (mechanisms: unknown[]) => validRequest({ type: 'compare', domain: DOMAIN, epsilon: 1, mechanisms });
    expect(isLpJob(req([{ kind: 'optimal', channelRef: 'ch-0123456789abcdef' }]))).toBe(false);
    expect(
      isLpJob(
        req([
          { kind: 'optimal', channelRef: 'ch-0123456789abcdef' },
          { kind: 'optimal', targetGap: 0.01 },
        ]),
      ),
    ).toBe(true);
    expect(isLpJob(req([{ kind: 'optimal', mechanism: { domain: DOMAIN, epsilon: 1, kind: 'optimal' } }]))).toBe(true);
  });
});
