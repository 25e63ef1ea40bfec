/**
 * Requests the app builds for large channels: measures and checks
 * name the mechanism's construction (or, for an LP, the channel the host
 * kept), never a matrix held in the page; block grids for the heat map.
 */
import { describe, expect, it } from 'vitest';
import { APP_REQUESTS } from '../../../../src-renderer/lib/project-model';
import {
  analysisRequest,
  channelSource,
  mechanismRequest,
  mechanismSpec,
} from '../../../../src-shared/project/item-requests';
import {
  blockGridFromMatrix,
  blockGridFromRows,
  downsample,
  tableFromMatrix,
} from '../../../../src-renderer/lib/matrix-view';
import { parseJobRequest } from '../../../../src-shared/protocol/validate';
import type { ProjectInput } from '../../../../src-shared/protocol/project';

const project: ProjectInput = {
  version: 2,
  name: 'p',
  domains: [{ id: 'db', domain: 'db:5,4:metric=hamming' }],
  priors: [{ id: 'population', domain: 'db', prior: 'product:0.3,0.27,0.23,0.2' }],
  mechanisms: [
    { id: 'tight', domain: 'db', kind: 'tight', epsilon: 0.5, prior: 'population' },
    { id: 'opt', domain: 'db', kind: 'optimal', epsilon: 0.5, loss: 'bin' },
  ],
  analyses: [
    { id: 'm', type: 'measure', mechanism: 'tight', prior: 'population' },
    { id: 'c', type: 'check', mechanism: 'tight' },
    { id: 'mo', type: 'measure', mechanism: 'opt' },
  ],
};

describe('analysis requests name the mechanism, not a matrix', () => {
  it('measure and check of a construction carry its spec (valid job requests, no channel)', () => {
    const m = analysisRequest(project, project.analyses![0]!, APP_REQUESTS);
    expect(m).toMatchObject({
      type: 'measure',
      mechanism: {
        kind: 'tight',
        domain: 'db:5,4:metric=hamming',
        epsilon: 0.5,
        prior: { kind: 'product', values: [0.3, 0.27, 0.23, 0.2] },
      },
      epsilon: 0.5,
    });
    expect('channel' in m).toBe(false);
    expect(parseJobRequest(m).ok).toBe(true);
    const c = analysisRequest(project, project.analyses![1]!, APP_REQUESTS);
    expect(c).toMatchObject({
      type: 'check',
      mechanism: { kind: 'tight' },
      domain: 'db:5,4:metric=hamming',
      epsilon: 0.5,
    });
    expect(parseJobRequest(c).ok).toBe(true);
    // the spec has no request-only fields
    expect(Object.keys(mechanismSpec(project, project.mechanisms![0]!)).sort()).toEqual([
      'domain',
      'epsilon',
      'kind',
      'prior',
    ]);
  });

  it('an optimal LP is named by the channel the host kept; before it is computed the message says so', () => {
    expect(mechanismRequest(project, project.mechanisms![1]!, APP_REQUESTS).keepChannel).toBe(true);
    expect(mechanismRequest(project, project.mechanisms![0]!, APP_REQUESTS).keepChannel).toBeUndefined();
    expect(() => analysisRequest(project, project.analyses![2]!, APP_REQUESTS)).toThrow(
      /compute mechanism 'opt' first/,
    );
    const ref = 'ch-0123456789abcdef0123456789abcdef';
    const r = analysisRequest(project, project.analyses![2]!, {
      ...APP_REQUESTS,
      source: channelSource(project, project.mechanisms![1]!, ref),
    });
    expect(r).toMatchObject({ type: 'measure', channelRef: ref });
    expect(parseJobRequest(r).ok).toBe(true);
  });
});

describe('block grids for the heat map', () => {
  const m = {
    rows: 5,
    cols: 3,
    data: Array.from({ length: 15 }, (_, k) => k / 15),
    rowLabels: ['a', 'b', 'c', 'd', 'e'],
    colLabels: ['x', 'y', 'z'],
  };
  it('from a matrix: the means and edges of downsample, labels spanning each block', () => {
    const g = blockGridFromMatrix(m, 2);
    const ds = downsample(m, 2);
    expect(Array.from(g.means)).toEqual(ds.blocks.map((b) => b.v));
    expect(g.rowEdges).toEqual([0, 2, 5]);
    expect(g.colEdges).toEqual([0, 1, 3]);
    expect(g.rowLabel(1)).toBe('c…e');
    expect(g.colLabel(0)).toBe('x');
    // brute force: block (1, 1) = rows 2..4, cols 1..2
    let s = 0;
    for (let r = 2; r < 5; r++) for (let c = 1; c < 3; c++) s += m.data[r * 3 + c]!;
    expect(g.means[3]).toBeCloseTo(s / 6, 15);
  });
  it('from a rows job result, and a table view of a matrix', () => {
    const g = blockGridFromRows(5, 3, {
      blocksY: 2,
      blocksX: 1,
      rowEdges: [0, 2, 5],
      colEdges: [0, 3],
      means: [0.1, 0.2],
      vmax: 0.2,
      rowFirst: ['a', 'c'],
      rowLast: ['b', 'e'],
      colFirst: ['x'],
      colLast: ['z'],
    });
    expect(g.rowLabel(0)).toBe('a…b');
    expect(g.colLabel(0)).toBe('x…z');
    const t = tableFromMatrix(m);
    expect(t.value(4, 2)).toBe(14 / 15);
    expect(t.rowLabel(4)).toBe('e');
  });
});
