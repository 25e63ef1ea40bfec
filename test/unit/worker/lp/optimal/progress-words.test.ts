/** The LP's progress from its first second: plain words in km, and a bar that moves with the gap. */
import { describe, expect, it } from 'vitest';
import { gapFraction, placesWords } from '../../../../../src-worker/lp/solver/lp-options';
import { coarseProgress } from '../../../../../src-worker/lp/optimal/coarse-start';
import { gridDomain } from '../../../../../src-worker/metric/grid';
import { lineDomain } from '../../../../../src-worker/metric/line';

describe('LP progress', () => {
  it('names a grid by its cells in km, never by its spec', () => {
    expect(placesWords(gridDomain(30, 30, 0.5, 'euclidean'))).toBe('the 30 x 30 grid of 0.5 km cells');
    expect(placesWords(lineDomain(6))).toBe('the 6 values of line:6');
  });

  it('the fraction moves with the gap: 0 at 100%, 1 at the target, a third at 10% of a 1e-3 target', () => {
    expect(gapFraction(1, 1e-3)).toBe(0);
    expect(gapFraction(0.1, 1e-3)).toBeCloseTo(1 / 3, 12);
    expect(gapFraction(1e-3, 1e-3)).toBe(1);
    expect(gapFraction(Number.NaN, 1e-3)).toBe(0);
  });

  it('the coarse start says what it does in plain words, its bar moving from 1% to 10% of the job', () => {
    const g = { rows: 8, cols: 8, step: 1 };
    expect(coarseProgress(g, 3, 0.1)).toEqual([
      0.01 + 0.09 / 3,
      'a quick first solve on a coarser grid (8 x 8 cells of 1 km): round 3, gap 10%',
    ]);
    expect(coarseProgress(g, 1, 1)[0]).toBe(0.01);
  });
});
