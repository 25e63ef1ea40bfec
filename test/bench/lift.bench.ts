/**
 * `npm run bench -- lift`: lifting a column into the all-pairs polytope of a grid (the exact model's columns, the
 * privacy repair). GridTableLifter (direct products with a table by offset, entries dominated by a larger one
 * skipped) against the baseline measured in the same run, ColumnLifter (the max-product Dijkstra over every pair
 * row), on 30 x 30 and 50 x 50 grids of 0.5 km cells at ln 4 per km, for three kinds of column: unimodal (a pricing
 * column's shape: e^(-1.3 eps d) from one cell, 5% noise), an indicator (a start column) and random entries (no
 * structure: the table's worst case).
 */
import { seededRandom } from '../../src-shared/numeric/seeded-random';
import type { Lifter } from '../../src-worker/lp/model/privacy-repair';
import { gridDomain } from '../../src-worker/metric/grid';
import { allPairsLifters } from '../unit/support/lifters';

function msPerColumn(lifter: Lifter, columns: Float64Array[]): number {
  const t = performance.now();
  for (const r of columns) lifter.lift(r.slice());
  return (performance.now() - t) / columns.length;
}

export default function bench(): void {
  const eps = Math.log(4);
  for (const side of [30, 50]) {
    const g = gridDomain(side, side, 0.5);
    const n = g.n;
    const { byRows: rows, byTable: table } = allPairsLifters(g, eps);
    const rnd = seededRandom(side);
    const kinds: [string, () => Float64Array][] = [
      [
        'unimodal',
        () => {
          const c = Math.floor(rnd() * n);
          return Float64Array.from(
            { length: n },
            (_, x) => Math.exp(-eps * 1.3 * g.distance(x, c)) * (1 + 0.05 * rnd()),
          );
        },
      ],
      [
        'indicator',
        () => {
          const r = new Float64Array(n);
          r[Math.floor(rnd() * n)] = 1;
          return r;
        },
      ],
      ['random', () => Float64Array.from({ length: n }, () => rnd())],
    ];
    for (const [kind, make] of kinds) {
      const columns = Array.from({ length: 30 }, make);
      msPerColumn(table, columns.slice(0, 3)); // warm-up
      const base = msPerColumn(rows, columns);
      const fast = msPerColumn(table, columns);
      console.log(
        `lift ${side}x${side}, ${kind} columns: table ${fast.toFixed(3)} ms a column, pair rows (baseline) ${base.toFixed(2)} ms: ${(base / fast).toFixed(1)}x`,
      );
    }
  }
}
