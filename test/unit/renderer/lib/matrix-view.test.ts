import { describe, expect, it } from 'vitest';
import { downsample, matrixToCsv } from '../../../../src-renderer/lib/matrix-view';
import { APP_REQUESTS, uniqueId, newProject } from '../../../../src-renderer/lib/project-model';
import { lossInput, mechanismRequest, priorInput } from '../../../../src-shared/project/item-requests';
import { projectSchema } from '../../../../src-shared/protocol/project';
import { jobRequestSchema } from '../../../../src-shared/protocol/requests';

describe('matrix views', () => {
  const m = {
    rows: 2,
    cols: 3,
    data: [0.5, 0.25, 0.25, 0.1, 0.2, 0.7],
    rowLabels: ['a', 'b,c'],
    colLabels: ['x', 'y', 'z'],
  };
  it('writes the SPEC §8 channel CSV (quoted labels, full precision)', () => {
    expect(matrixToCsv(m)).toBe(',x,y,z\na,0.5,0.25,0.25\n"b,c",0.1,0.2,0.7\n');
  });
  it('downsamples into block means that preserve the total mass', () => {
    const n = 10;
    const data = Array.from({ length: n * n }, (_, k) => ((k * 7) % 11) / 10);
    const ds = downsample({ rows: n, cols: n, data, rowLabels: [], colLabels: [] }, 4);
    expect(ds.blocksX).toBe(4);
    let total = 0;
    for (const b of ds.blocks) total += b.v * (b.r1 - b.r0) * (b.c1 - b.c0);
    expect(total).toBeCloseTo(
      data.reduce((a, b) => a + b, 0),
      12,
    );
    expect(downsample(m).blocks).toHaveLength(6);
  });
});

describe('project model', () => {
  it('a new project is valid and its mechanism request passes the job schema', () => {
    const p = newProject();
    expect(projectSchema.safeParse(p).success).toBe(true);
    const req = mechanismRequest(p, p.mechanisms![0]!, APP_REQUESTS);
    expect(jobRequestSchema.safeParse(req).success).toBe(true);
    expect(req).toMatchObject({
      type: 'mechanism',
      domain: 'grid:10x10:step=0.5',
      kind: 'planar-laplace',
      prior: 'uniform',
    });
  });
  it('resolves CLI prior text forms and refuses what the renderer cannot read', () => {
    expect(priorInput('uniform')).toBe('uniform');
    expect(priorInput('0.2, 0.8')).toEqual({ kind: 'vector', values: [0.2, 0.8] });
    expect(priorInput('product:0.5,0.5')).toEqual({ kind: 'product', values: [0.5, 0.5] });
    expect(() => priorInput('0.2,,0.8')).toThrow(/item 2/);
    expect(() => priorInput('csv:p.csv')).toThrow(/refers to a file/);
    expect(lossInput('dist')).toBe('dist');
    expect(() => lossInput('csv:l.csv')).toThrow(/file/);
  });
  it('makes ids unique', () => {
    expect(uniqueId('planar laplace', ['planar-laplace'])).toBe('planar-laplace-2');
    expect(uniqueId('x', [])).toBe('x');
  });
});
