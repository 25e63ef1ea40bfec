/** Why a cheap construction is not a candidate, as the typed notes the LP card's candidate table words. */
import { describe, expect, it } from 'vitest';
import { candidateNoteWords } from '../../../../src-shared/charts/lp-words';
import { cheapCandidates } from '../../../../src-worker/jobs/cheap-candidates';
import { parseDomainSpec } from '../../../../src-worker/metric/parse-domain-spec';

function notes(spec: string, eps: number, deadline?: number) {
  const d = parseDomainSpec(spec);
  const ctx = { signal: new AbortController().signal, progress: () => undefined };
  const list = cheapCandidates(d, eps, new Float64Array(d.n).fill(1 / d.n), undefined, {
    ...ctx,
    ...(deadline !== undefined ? { deadline } : {}),
  });
  return list.map((c) => [c.construction, c.note ?? null]);
}

describe('cheap candidates: notes', () => {
  it('grid:4x4 at eps 0.5: no tight-constraints mechanism, its weight at (1,2) would be negative', () => {
    const got = notes('grid:4x4', 0.5);
    expect(got).toEqual([
      ['planar-laplace+remap', null],
      ['tight+remap', { kind: 'tight-does-not-exist', minZAt: '(1,2)' }],
      ['exponential+remap', null],
    ]);
    // in plain words (no "Phi z = 1 has a negative z")
    expect(candidateNoteWords(got[1]![1] as { kind: 'tight-does-not-exist'; minZAt: string })).toBe(
      'does not exist at this ε: its output weight at (1,2) would have to be negative',
    );
  });

  it('planar Laplace off a grid applies to grids only; past the deadline the others are not tried', () => {
    expect(notes('line:4', 0.5)[0]).toEqual(['planar-laplace+remap', { kind: 'grids-only' }]);
    expect(notes('grid:4x4', 1, performance.now() - 1)).toEqual([
      ['planar-laplace+remap', null],
      ['tight+remap', { kind: 'not-tried' }],
      ['exponential+remap', { kind: 'not-tried' }],
    ]);
  });
});
