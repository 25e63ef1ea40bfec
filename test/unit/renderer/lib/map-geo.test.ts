import { describe, expect, it } from 'vitest';
import {
  contourSegments,
  legendTicks,
  mapGeometry,
  niceStep,
  sharedScaleMax,
} from '../../../../src-renderer/lib/map-geo';

describe('map geometry', () => {
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
  it('maps sharing one legend leave no room for their own, and share the largest value as the top of the scale', () => {
    const g = mapGeometry(30, 30, 300, false);
    expect(g.width).toBe(g.left + 300 + 12);
    expect(g.height).toBe(mapGeometry(30, 30, 300).height);
    expect(sharedScaleMax([[0.1, 0.3], new Float64Array([0.2, 0.05]), []])).toBe(0.3);
    expect(sharedScaleMax([])).toBe(0);
  });
});

describe('prior contours (marching squares)', () => {
  it('a cone 1 - d/3 around the centre of a 7 x 7 field: every segment end lies on the level set, and the contour surrounds the centre', () => {
    const n = 7;
    const f = (r: number, c: number): number => 1 - Math.hypot(r - 3, c - 3) / 3;
    const vals = Array.from({ length: n * n }, (_, i) => f(Math.floor(i / n), i % n));
    const segs = contourSegments(n, n, vals, 0.5);
    expect(segs.length).toBeGreaterThan(4);
    for (const [x1, y1, x2, y2] of segs) {
      // ends on cell edges, linearly interpolated: within the interpolation error of the cone
      for (const [x, y] of [
        [x1!, y1!],
        [x2!, y2!],
      ] as const)
        expect(Math.abs(Math.hypot(y - 3, x - 3) - 1.5)).toBeLessThan(0.2);
    }
    // crossings on both sides of the centre along row 3
    const xs = segs
      .flatMap(([x1, y1, x2, y2]) => [
        [x1!, y1!],
        [x2!, y2!],
      ])
      .filter(([, y]) => y === 3)
      .map(([x]) => x!);
    expect(Math.min(...xs)).toBeCloseTo(1.5, 9);
    expect(Math.max(...xs)).toBeCloseTo(4.5, 9);
    expect(contourSegments(n, n, vals, 2)).toEqual([]);
  });
});
