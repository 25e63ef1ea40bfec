/**
 * The all-pairs lift of a grid by direct products with a table of factors by offset (GridTableLifter) against the
 * max-product Dijkstra over every pair row (ColumnLifter, the definition): the same raised column to rounding, on the
 * three grid metrics, with zeros in the column, and at an eps where far pairs hit the factor cap e^MAX_EXPONENT.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../../../src-shared/numeric/seeded-random';
import { parseDomainSpec } from '../../../../../src-worker/metric/parse-domain-spec';
import { allPairsLifters } from '../../../support/lifters';

describe('GridTableLifter: the all-pairs lift of a grid by direct products with a table by offset', () => {
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
      const { byRows, byTable } = allPairsLifters(g, eps);
      const rnd = seededRandom(n);
      let raised = 0;
      for (let k = 0; k < 40; k++) {
        // sparse, dense and spiky columns, some entries 0
        const r = Float64Array.from({ length: n }, () => (rnd() < (k % 3) / 3 ? 0 : rnd() ** (1 + (k % 5) * 4)));
        if (k % 7 === 0) r.fill(0).set([1], Math.floor(rnd() * n));
        const a = byRows.lift(r.slice());
        const b = byTable.lift(r.slice());
        for (let x = 0; x < n; x++) {
          expect(Math.abs(a[x]! - b[x]!)).toBeLessThanOrEqual(1e-13 * a[x]!);
          if (a[x]! > r[x]!) raised++;
        }
      }
      // the lift did raise entries (the test is not vacuous)
      expect(raised).toBeGreaterThan(n);
      // a column in P but for a few raised entries (as a pricing column with held rows is): ColumnLifter starts only
      // from the sources of violated rows, and still lifts as the transform does; a column in P is left as it is
      for (let k = 0; k < 10; k++) {
        const inP = byTable.lift(Float64Array.from({ length: n }, () => rnd()));
        const same = byRows.lift(inP.slice());
        for (let x = 0; x < n; x++) expect(Math.abs(same[x]! - inP[x]!)).toBeLessThanOrEqual(1e-13 * inP[x]!);
        const r = inP.slice();
        for (let j = 0; j <= k % 3; j++) r[Math.floor(rnd() * n)]! *= 1e7 * (1 + rnd());
        const a = byRows.lift(r.slice());
        const b = byTable.lift(r.slice());
        for (let x = 0; x < n; x++) expect(Math.abs(a[x]! - b[x]!)).toBeLessThanOrEqual(1e-13 * a[x]!);
        expect(a.some((v, x) => v > r[x]!)).toBe(true);
      }
    });
  }
});
