import { describe, expect, it } from 'vitest';
import { greedySpanner } from '../../../../src-worker/lp/greedy-spanner';
import { privacyConstraintGraph } from '../../../../src-worker/lp/privacy-constraint-graph';
import { gridDomain } from '../../../../src-worker/metric/grid';
import { lineDomain } from '../../../../src-worker/metric/line';
import { floydWarshall } from '../../support/metric-helpers';

describe('greedy spanner', () => {
  it.each([
    [5, 5, 1.1],
    [4, 7, 1.5],
    [6, 6, 1.01],
  ])('has dilation <= delta on a %i x %i Euclidean grid, delta %f (brute force over all pairs) and weights equal to d', (r, c, delta) => {
    const g = gridDomain(r, c);
    const s = greedySpanner(g.n, g.distance, delta);
    const D = floydWarshall(g.n, s);
    let worst = 0;
    for (let i = 0; i < g.n; i++) for (let j = i + 1; j < g.n; j++) worst = Math.max(worst, D[i * g.n + j]! / g.distance(i, j));
    expect(worst).toBeLessThanOrEqual(delta * (1 + 1e-12));
    for (let e = 0; e < s.from.length; e++) {
      expect(s.from[e]!).toBeLessThan(s.to[e]!);
      expect(s.weight[e]).toBe(g.distance(s.from[e]!, s.to[e]!));
    }
    // Sparser than all pairs; far sparser once delta >= 1.1.
    expect(s.from.length).toBeLessThan((g.n * (g.n - 1)) / (delta >= 1.1 ? 4 : 1.5));
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
    for (let e = 0; e < cg.from.length; e++) expect(cg.exponent[e]).toBeCloseTo((2 / 1.25) * g.distance(cg.from[e]!, cg.to[e]!), 12);
    const l = privacyConstraintGraph(lineDomain(5), 0.5);
    expect(l.mode).toBe('edges');
    expect(Array.from(l.exponent)).toEqual([0.5, 0.5, 0.5, 0.5]);
    expect(() => privacyConstraintGraph(g, 1, 'bogus' as 'auto')).toThrow(/unknown constraint mode/);
  });
});
