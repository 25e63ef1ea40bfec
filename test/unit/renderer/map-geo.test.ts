import { describe, expect, it } from 'vitest';
import { legendTicks, mapGeometry, niceStep } from '../../../src-renderer/lib/map-geo';

describe('map geometry (issue 15 item 3)', () => {
  it('nice tick steps are 1, 2 or 5 x 10^k and give at most the asked number of ticks', () => {
    expect(niceStep(15, 6)).toBe(5); // 30 x 30 grid of 0.5 km: 0, 5, 10, 15 km
    expect(niceStep(15, 1)).toBe(10);
    expect(niceStep(15 / 4, 1)).toBe(2); // scale bar of a 15 km map: 2 km
    expect(niceStep(2, 6)).toBe(0.5);
    expect(niceStep(0.3, 6)).toBeCloseTo(0.05, 12);
    for (const span of [0.7, 3, 15, 99, 1234]) {
      const s = niceStep(span, 6);
      expect(span / s).toBeLessThanOrEqual(6 + 1e-9);
      expect(niceStep(span, 1)).toBeLessThanOrEqual(span);
    }
  });
  it('legend ticks sit evenly on the square-root colour scale', () => {
    const t = legendTicks(0.08);
    expect(t.map((v) => Math.sqrt(v / 0.08))).toEqual([0, 0.25, 0.5, 0.75, 1]);
    expect(legendTicks(0)).toEqual([0]);
  });
  it('fits the cells in the size and leaves room for axes and legend', () => {
    const g = mapGeometry(30, 30, 360);
    expect(g.cellPx).toBe(12);
    expect(g.width).toBe(g.left + 360 + 78);
    expect(mapGeometry(1000, 1000, 360).cellPx).toBe(1);
  });
});
