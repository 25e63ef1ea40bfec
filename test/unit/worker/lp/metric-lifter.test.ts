/**
 * The all-pairs lift of a grid by one min-plus transform (MetricLifter) against the max-product Dijkstra over
 * every pair row (ColumnLifter, the definition): the same raised column to rounding, on the three grid metrics,
 * with zeros in the column, and at an eps where far pairs hit the factor cap e^MAX_EXPONENT.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../../src-shared/numeric/seeded-random';
import { MAX_EXPONENT } from '../../../../src-worker/lp/private-channel-lp';
import { privacyConstraintGraph } from '../../../../src-worker/lp/privacy-constraint-graph';
import { ColumnLifter, MetricLifter } from '../../../../src-worker/lp/privacy-repair';
import { parseDomainSpec } from '../../../../src-worker/metric/parse-domain-spec';

describe('MetricLifter: the all-pairs lift of a grid by a min-plus transform', () => {
  const cases: [string, number][] = [
    ['grid:6x7', 0.7],
    ['grid:5x5:metric=manhattan', 1.3],
    ['grid:6x4:metric=chebyshev', 0.4],
    ['grid:8x8:step=3', 4], // far pairs: eps d above MAX_EXPONENT, the cap decides
  ];
  for (const [spec, eps] of cases) {
    it(`${spec} at eps ${eps}`, () => {
      const g = parseDomainSpec(spec);
      const n = g.n;
      const graph = privacyConstraintGraph(g, eps, 'all-pairs');
      const f = Float64Array.from(graph.exponent, (x) => Math.exp(Math.min(x, MAX_EXPONENT)));
      const byRows = new ColumnLifter(n, graph.from, graph.to, f);
      const byMetric = new MetricLifter(g, eps, MAX_EXPONENT);
      const rnd = seededRandom(n);
      let raised = 0;
      for (let k = 0; k < 40; k++) {
        // sparse, dense and spiky columns, some entries 0
        const r = Float64Array.from({ length: n }, () => (rnd() < (k % 3) / 3 ? 0 : rnd() ** (1 + (k % 5) * 4)));
        if (k % 7 === 0) r.fill(0).set([1], Math.floor(rnd() * n));
        const a = byRows.lift(r.slice());
        const b = byMetric.lift(r.slice());
        for (let x = 0; x < n; x++) {
          expect(Math.abs(a[x]! - b[x]!)).toBeLessThanOrEqual(1e-13 * a[x]!);
          if (a[x]! > r[x]!) raised++;
        }
      }
      // the lift did raise entries (the test is not vacuous)
      expect(raised).toBeGreaterThan(n);
    });
  }
});
