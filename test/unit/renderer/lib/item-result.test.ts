/**
 * The one notion of "computed" (src-renderer/lib/item-result.ts computedChannel): a result restored from the project
 * file (no source of its own) is computed, by its construction or its kept LP channel; a lost channel, stale inputs of
 * a construction or no result say why not.
 */
import { describe, expect, it } from 'vitest';
import { computedChannel, type ItemResult } from '../../../../src-renderer/lib/item-result';
import type { MechanismResult, ProjectInput } from '../../../../src-shared/protocol/index';

const project: ProjectInput = {
  version: 2,
  name: 'p',
  domains: [{ id: 'town', domain: 'grid:3x3:step=0.5' }],
  priors: [],
  mechanisms: [
    { id: 'pl', domain: 'town', kind: 'planar-laplace', epsilon: 1 },
    { id: 'lp', domain: 'town', kind: 'optimal', epsilon: 1, loss: 'dist' },
  ],
  analyses: [],
};
const done = (channelRef?: string): ItemResult => ({
  status: 'done',
  result: {
    type: 'mechanism',
    exists: true,
    epsilon: 1,
    ...(channelRef ? { channelRef } : {}),
  } as unknown as MechanismResult,
});

describe('computedChannel', () => {
  it('a restored construction is computed: its channel is the construction', () => {
    const got = computedChannel(project, 'pl', done());
    expect(got).toEqual({ source: { mechanism: expect.objectContaining({ kind: 'planar-laplace', epsilon: 1 }) } });
  });

  it('a restored LP is computed by the channel the host keeps, not solved again', () => {
    expect(computedChannel(project, 'lp', done('abc123'))).toEqual({ source: { channelRef: 'abc123' } });
  });

  it('says why not: no result, a lost channel, stale inputs, a failure', () => {
    expect(computedChannel(project, 'pl', undefined)).toEqual({
      why: 'not computed yet: compute it in its editor first',
    });
    expect(computedChannel(project, 'lp', { ...done('abc123'), notKept: 'the channel file is gone' })).toEqual({
      why: 'not kept: the channel file is gone (compute it again)',
    });
    expect(computedChannel(project, 'pl', { ...done(), stale: true })).toEqual({
      why: 'inputs changed since it was computed: compute it again',
    });
    expect(computedChannel(project, 'lp', done())).toEqual({ why: 'not computed yet: compute it in its editor first' });
    expect(computedChannel(project, 'gone', done())).toEqual({ why: 'does not exist' });
  });
});
