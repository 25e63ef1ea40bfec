import { describe, expect, it } from 'vitest';
import { greedySpanner } from '../../../../../src-worker/lp/model/greedy-spanner';
import {
  GRID_SPANNER_DELTAS,
  gridSpanner,
  privacyConstraintGraph,
} from '../../../../../src-worker/lp/model/privacy-constraint-graph';
import { gridDomain } from '../../../../../src-worker/metric/grid';
import { lineDomain } from '../../../../../src-worker/metric/line';
import { floydWarshall } from '../../../support/metric-helpers';

describe('greedy spanner', () => {
  it.each([
    [5, 5, 1.1],
    [4, 7, 1.5],
    [6, 6, 1.01],
  ])(
    'has dilation <= delta on a %i x %i Euclidean grid, delta %f (brute force over all pairs) and weights equal to d',
    (r, c, delta) => {
      const g = gridDomain(r, c);
      const s = greedySpanner(g.n, g.distance, delta);
      const D = floydWarshall(g.n, s);
      let worst = 0;
      for (let i = 0; i < g.n; i++)
        for (let j = i + 1; j < g.n; j++) worst = Math.max(worst, D[i * g.n + j]! / g.distance(i, j));
      expect(worst).toBeLessThanOrEqual(delta * (1 + 1e-12));
      for (let e = 0; e < s.from.length; e++) {
        expect(s.from[e]!).toBeLessThan(s.to[e]!);
        expect(s.weight[e]).toBe(g.distance(s.from[e]!, s.to[e]!));
      }
      // Sparser than all pairs; far sparser once delta >= 1.1.
      expect(s.from.length).toBeLessThan((g.n * (g.n - 1)) / (delta >= 1.1 ? 4 : 1.5));
    },
  );

  it.each([
    [1, 6, 1.1, 1],
    [3, 7, 1.09, 0.5],
    [8, 8, 1.1, 0.5],
    [7, 12, 1.25, 1],
    [10, 9, 1.4, 0.25],
    [12, 12, 1.1, 0.5],
  ])(
    'on a %i x %i Euclidean grid at delta %f (cells %f) the 8-neighbour construction is the greedy spanner, edge for edge',
    (r, c, delta, step) => {
      const g = gridDomain(r, c, step);
      const fast = gridSpanner(g, delta)!;
      const greedy = greedySpanner(g.n, g.distance, delta);
      expect(Array.from(fast.from)).toEqual(Array.from(greedy.from));
      expect(Array.from(fast.to)).toEqual(Array.from(greedy.to));
      expect(Array.from(fast.weight)).toEqual(Array.from(greedy.weight));
      // and the constraint graph uses it: the same pairs at the same exponents
      const sp = privacyConstraintGraph(g, 0.7, 'spanner', delta);
      expect(Array.from(sp.from)).toEqual(Array.from(greedy.from));
      expect(Array.from(sp.exponent)).toEqual(Array.from(greedy.weight, (w) => (0.7 / delta) * w));
    },
  );

  it('outside its dilations, metrics and domains the 8-neighbour construction does not apply (the greedy runs)', () => {
    const g = gridDomain(6, 6);
    // at 1.08 (below the 8-neighbours' 1.0824) the greedy adds knight moves; at 1.42 (over sqrt 2) it drops diagonals
    expect(gridSpanner(g, GRID_SPANNER_DELTAS.min - 0.01)).toBeNull();
    expect(greedySpanner(g.n, g.distance, 1.08).from.length).toBeGreaterThan(2 * 5 * 6 + 2 * 5 * 5);
    expect(gridSpanner(g, 1.42)).toBeNull();
    expect(greedySpanner(g.n, g.distance, 1.42).from.length).toBe(2 * 5 * 6);
    expect(gridSpanner(gridDomain(6, 6, 1, 'manhattan'), 1.1)).toBeNull();
    expect(gridSpanner(lineDomain(6), 1.1)).toBeNull();
  });

  it('delta = 1 is the exact reduction: the path of a line, the 4-neighbour graph of a Manhattan grid', () => {
    const l = lineDomain(8);
    const s = greedySpanner(l.n, l.distance, 1);
    expect(s.from.length).toBe(7);
    const m = gridDomain(4, 5, 1, 'manhattan');
    const t = greedySpanner(m.n, m.distance, 1);
    expect(t.from.length).toBe(m.structure.edges!.from.length);
  });

  it('a larger dilation never needs more edges', () => {
    const g = gridDomain(7, 7);
    let prev = Infinity;
    for (const delta of [1, 1.05, 1.1, 1.3, 2]) {
      const k = greedySpanner(g.n, g.distance, delta).from.length;
      expect(k).toBeLessThanOrEqual(prev);
      prev = k;
    }
    expect(greedySpanner(g.n, g.distance, 2).from.length).toBeLessThan(greedySpanner(g.n, g.distance, 1).from.length);
  });

  it('skips pairs at infinite distance and rejects delta < 1 or NaN distances', () => {
    const s = greedySpanner(4, (i, j) => (Math.floor(i / 2) === Math.floor(j / 2) ? 1 : Infinity), 1.1);
    expect(s.from.length).toBe(2);
    expect(() => greedySpanner(3, () => 1, 0.9)).toThrow(/delta must be a finite number >= 1/);
    expect(() => greedySpanner(3, () => NaN, 1.1)).toThrow(/distance between points 0 and 1 is NaN/);
  });

  it('constraint graph: eps/delta on spanner edges, eps*weight on domain edges', () => {
    const g = gridDomain(4, 4);
    const cg = privacyConstraintGraph(g, 2, 'auto', 1.25);
    expect(cg.mode).toBe('spanner');
    for (let e = 0; e < cg.from.length; e++)
      expect(cg.exponent[e]).toBeCloseTo((2 / 1.25) * g.distance(cg.from[e]!, cg.to[e]!), 12);
    const l = privacyConstraintGraph(lineDomain(5), 0.5);
    expect(l.mode).toBe('edges');
    expect(Array.from(l.exponent)).toEqual([0.5, 0.5, 0.5, 0.5]);
    expect(() => privacyConstraintGraph(g, 1, 'bogus' as 'auto')).toThrow(/unknown constraint mode/);
  });
});
