/** Which CLI jobs run on the CLI's own thread (no worker pool to start) and which go to the pool. */
import { describe, expect, it } from 'vitest';
import { runsInProcess } from '../../../../src-main/cli/main';
import type { JobRequest } from '../../../../src-shared/protocol/requests';

const mech = (domain: string, kind: string, extra: object = {}): JobRequest =>
  ({ type: 'mechanism', domain, epsilon: 1, kind, ...extra }) as JobRequest;
const channel = (n: number) => ({
  rows: n,
  cols: n,
  data: new Array<number>(n * n).fill(1 / n),
  rowLabels: [],
  colLabels: [],
});

describe('small CLI jobs run in process', () => {
  it('closed-form mechanisms, checks, measures and regularity on at most 100 points', () => {
    expect(runsInProcess(mech('line:6', 'tg'))).toBe(true);
    expect(runsInProcess(mech('grid:10x10', 'planar-laplace'))).toBe(true);
    expect(runsInProcess(mech('count:99', 'tight'))).toBe(true); // 100 answers
    expect(runsInProcess({ type: 'check', domain: 'line:6', epsilon: 1, channel: channel(6) })).toBe(true);
    expect(runsInProcess({ type: 'measure', channel: channel(6) })).toBe(true);
    expect(runsInProcess({ type: 'regular', domain: 'clique:5', epsilon: 1, prior: 'uniform' })).toBe(true);
  });

  it('LPs, larger or unsized domains, files written, kept channels and other job types go to the pool', () => {
    expect(runsInProcess(mech('line:6', 'optimal'))).toBe(false);
    expect(runsInProcess(mech('line:101', 'tg'))).toBe(false);
    expect(runsInProcess(mech('count:100', 'tg'))).toBe(false); // 101 answers
    expect(runsInProcess(mech('grid:11x10', 'tg'))).toBe(false);
    expect(runsInProcess(mech('sum:3,2', 'tg'))).toBe(false); // not sized here
    expect(runsInProcess(mech('line:6', 'tg', { out: '/tmp/x.csv' }))).toBe(false);
    expect(runsInProcess({ type: 'measure', channel: channel(101) })).toBe(false);
    expect(runsInProcess({ type: 'measure', channelRef: 'ch-1' } as JobRequest)).toBe(false);
    expect(
      runsInProcess({
        type: 'check',
        domain: 'line:6',
        epsilon: 1,
        mechanism: { domain: 'line:6', epsilon: 1, kind: 'optimal' },
      } as JobRequest),
    ).toBe(false);
    expect(runsInProcess({ type: 'threshold', domain: 'line:6' })).toBe(false);
    expect(runsInProcess({ type: 'capacity', domain: 'line:4', epsilon: 1 })).toBe(false);
  });
});
