/**
 * The `explorer` job (src-worker/jobs/explorer-job.ts): the privacy-type
 * explorer's simplex view and capacity table, computed in the engine for the
 * page. Checked against the engine functions it wraps, against closed forms
 * (two points: randomised response is optimal, capacity 2 e^eps / (1 + e^eps);
 * line:3 at ln 2 has 4 private-posterior vertices), and through the reply
 * schema (runJob).
 */
import { capacityNoteWords, simplexNoteWords } from '../../../../src-shared/charts/note-words';
import { describe, expect, it } from 'vitest';
import { capacityTableRows } from '../../../../src-worker/explorer/capacity-rows';
import { ternaryViewForDomain } from '../../../../src-worker/explorer/ternary-data';
import { lineDomain } from '../../../../src-worker/metric/line';
import { runJob } from '../../support/run-job';

const LN2 = Math.log(2);

describe('explorer job', () => {
  it('line:3 at ln 2: the simplex view and the capacity table of line:2 and line:3, as the engine computes them', async () => {
    const r = await runJob<'explorer'>({ type: 'explorer', domain: 'line:3', epsilon: LN2 });
    expect(r.domain).toBe('line:3');
    expect(r.simplex).toEqual(ternaryViewForDomain(lineDomain(3), LN2));
    expect(r.simplex!.privateRegion).toHaveLength(4);
    expect(r.simplexNote).toBeUndefined();
    expect(r.capacityRows).toEqual(capacityTableRows([lineDomain(2), lineDomain(3)], LN2));
    expect(r.capacityRows!.map((row) => [row.domain, row.vertices])).toEqual([
      ['line:2', 2],
      ['line:3', 4],
    ]);
    // two points: randomised response is optimal, sum_y max_x C[x][y] = 2 e^eps / (1 + e^eps) = 4/3 at ln 2
    expect(r.capacityRows![0]!.multiplicative).toBeCloseTo(4 / 3, 12);
  });

  it('other sizes: the simplex view says why it is missing; the table covers the family up to 5 points, a grid alone, nothing beyond', async () => {
    const ring = await runJob<'explorer'>({ type: 'explorer', domain: 'clique:4', epsilon: 1 });
    expect(ring.simplex).toBeNull();
    expect(ring.simplexNote).toEqual({ kind: 'needs-three-points', points: 4 });
    expect(simplexNoteWords(ring.simplexNote!)).toBe('The simplex view needs a domain of 3 points (this one has 4).');
    expect(ring.capacityRows!.map((row) => row.domain)).toEqual(['clique:2', 'clique:3', 'clique:4']);
    const grid = await runJob<'explorer'>({ type: 'explorer', domain: 'grid:2x2', epsilon: 1 });
    expect(grid.capacityRows!.map((row) => [row.domain, row.size])).toEqual([['grid:2x2', 4]]);
    const big = await runJob<'explorer'>({ type: 'explorer', domain: 'line:8', epsilon: 1 });
    expect(big.capacityRows).toBeNull();
    expect(big.simplex).toBeNull();
  });

  it('a row the enumeration refuses says why in a typed note, through the reply schema: e^(eps d) overflows', async () => {
    const r = await runJob<'explorer'>({ type: 'explorer', domain: 'line:3', epsilon: 400 });
    expect(r.capacityRows!.map((row) => row.source)).toEqual(['kernels', null]);
    const note = { kind: 'ratio-overflow', a: '0', b: '2', distance: 2, epsilon: 400 } as const;
    expect(r.capacityRows![1]!.note).toEqual(note);
    expect(capacityNoteWords(note)).toBe('privacy-type explorer: e^(eps d) overflows for d(0, 2) = 2 at eps = 400');
    // the simplex view's failure carries the same refusal's message
    expect(r.simplexNote).toEqual({ kind: 'failed', message: capacityNoteWords(note) });
  });

  it('refuses what the vertex enumeration cannot do, before computing (admission)', async () => {
    await expect(runJob({ type: 'explorer', domain: 'line:40', epsilon: 1 })).rejects.toMatchObject({
      code: 'too-large',
    });
    await expect(runJob({ type: 'explorer', domain: 'line:3', epsilon: 0 })).rejects.toThrow(/epsilon/i);
  });
});
