import { describe, expect, it } from 'vitest';
import { MechError } from '../../../../../src-shared/errors';
import { solveByColumnDecomposition } from '../../../../../src-worker/lp/decomposition/column-decomposition';
import { COARSE_START_MIN_SECRETS, coarseGrid } from '../../../../../src-worker/lp/optimal/coarse-start';
import { optimalMechanism } from '../../../../../src-worker/lp/optimal/optimal-mechanism';
import { privacyConstraintGraph } from '../../../../../src-worker/lp/model/privacy-constraint-graph';
import { gridDomain } from '../../../../../src-worker/metric/grid';
import { lineDomain } from '../../../../../src-worker/metric/line';
import { data, obj } from '../../../support/lp-helpers';

/** A lumpy prior: a few dense cells on a sparse background (like a city). */
function lumpyPrior(n: number): Float64Array {
  const w = Float64Array.from({ length: n }, (_, i) => (i % 7 === 3 ? 30 : 1 + ((i * 5) % 4)));
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((v) => v / s);
}

/** A spanner problem handed straight to the decomposition (costs pi_x d(x, w)). */
function spannerProblem(rows: number, cols: number, eps: number) {
  const g = gridDomain(rows, cols);
  const n = g.n;
  const pi = lumpyPrior(n);
  const graph = privacyConstraintGraph(g, eps, 'spanner');
  const cost = new Float64Array(n * n);
  for (let x = 0; x < n; x++) for (let w = 0; w < n; w++) cost[x * n + w] = pi[x]! * g.distance(x, w);
  const pairs = { from: graph.from, to: graph.to, factor: Float64Array.from(graph.exponent, (e) => Math.exp(e)) };
  return { g, n, pi, cost, pairs };
}

describe('coarse start of a large grid (docs/lp.md, "Coarse start")', () => {
  it('maps each cell to its 2 x 2 block, odd sides included, and applies only to grids of COARSE_START_MIN_SECRETS cells or more', () => {
    const fine = gridDomain(13, 15, 0.5);
    const c = coarseGrid(fine)!;
    expect(c.domain.structure.grid).toEqual({ rows: 7, cols: 8, step: 1, metric: 'euclidean' });
    // Recomputed here: cell (i, j) lies in block (floor(i/2), floor(j/2)); every block holds 1, 2 or 4 cells.
    const count = new Array<number>(56).fill(0);
    for (let i = 0; i < 13; i++)
      for (let j = 0; j < 15; j++) {
        const X = c.block[i * 15 + j]!;
        expect(X).toBe(Math.floor(i / 2) * 8 + Math.floor(j / 2));
        count[X]!++;
      }
    expect(count[0]).toBe(4);
    expect(count[7]).toBe(2); // the last column of blocks is one cell wide
    expect(count[55]).toBe(1);
    expect(coarseGrid(gridDomain(12, 12))).toBeNull(); // 144 cells
    expect(COARSE_START_MIN_SECRETS).toBeGreaterThan(144);
    expect(coarseGrid(lineDomain(400))).toBeNull();
  });

  it('gives the same certified optimum as the solve from lambda = 0, with a far better first bound', async () => {
    const g = gridDomain(13, 12);
    const pi = lumpyPrior(g.n);
    const opts = { model: 'spanner' as const, targetGap: 1e-7, threads: 1 };
    const cold = await optimalMechanism(g, 1, pi, 'dist', { ...opts, coarseStart: false });
    const warm = await optimalMechanism(g, 1, pi, 'dist', opts);
    expect(cold.lp.coarseStart).toBeNull();
    expect(warm.lp.coarseStart).toMatchObject({ rows: 7, cols: 6, cellSize: 2, levels: 0 });
    expect(warm.lp.coarseStart!.gap).toBeLessThanOrEqual(1e-3);
    expect(Math.abs(obj(warm) - obj(cold)) / obj(cold)).toBeLessThan(1e-7);
    // Each certified bound is below the other solve's objective (weak duality).
    expect(warm.lp.lowerBound).toBeLessThanOrEqual(obj(cold) * (1 + 1e-9));
    expect(cold.lp.lowerBound).toBeLessThanOrEqual(obj(warm) * (1 + 1e-9));
    // The first round's bound: from the coarse duals 81% of the optimum, from lambda = 0 24% (measured).
    expect(warm.lp.history[0]!.bound).toBeGreaterThan(0.75 * obj(cold));
    expect(cold.lp.history[0]!.bound).toBeLessThan(0.4 * obj(cold));
    expect(data(warm).length).toBe(g.n * g.n);
  }, 120_000);

  it('start duals of any quality give the same optimum and a valid bound; a wrong length is refused', async () => {
    const { n, cost, pairs } = spannerProblem(5, 6, 1);
    const base = await solveByColumnDecomposition(
      { n, m: n, cost, sense: 'minimize', pairs, what: 'test LP' },
      undefined,
      { tolerance: 1e-9 },
    );
    for (const factor of [0.9, 1, 3, -2]) {
      const startDuals = factor === 1 ? base.duals : base.duals.map((v, i) => v * factor + (i % 3) * 1e-3);
      const r = await solveByColumnDecomposition(
        { n, m: n, cost, sense: 'minimize', pairs, what: 'test LP' },
        undefined,
        { tolerance: 1e-9, startDuals },
      );
      expect(Math.abs(r.objective - base.objective) / base.objective, `factor ${factor}`).toBeLessThan(1e-7);
      expect(r.bound, `factor ${factor}`).toBeLessThanOrEqual(base.objective * (1 + 1e-9));
      // At the optimum's own duals the first bound is the optimum (up to the stopping gap).
      if (factor === 1) expect(r.iterations[0]!.bound).toBeGreaterThan(base.objective * (1 - 1e-3));
    }
    await expect(
      solveByColumnDecomposition({ n, m: n, cost, sense: 'minimize', pairs, what: 'test LP' }, undefined, {
        startDuals: new Float64Array(n - 1),
      }),
    ).rejects.toThrow(MechError);
  }, 60_000);
});

describe('remapped incumbent of the decomposition', () => {
  it('a round-limited solve returns the remapped master channel: private, rows summing to 1, cheaper than without the remap', async () => {
    const { n, cost, pairs } = spannerProblem(6, 6, 0.6);
    const problem = { n, m: n, cost, sense: 'minimize' as const, pairs, what: 'test LP' };
    const plain = await solveByColumnDecomposition(problem, undefined, { maxIterations: 6, remap: false });
    const remapped = await solveByColumnDecomposition(problem, undefined, { maxIterations: 6 });
    expect(remapped.stoppedBy).toBe('iteration-limit');
    // Same master path (one thread), so the remapped incumbent can only be cheaper; on this lumpy prior it is (1.67
    // against 2.01).
    expect(remapped.objective).toBeLessThan(plain.objective * (1 - 1e-3));
    expect(remapped.bound).toBe(plain.bound);
    // Recomputed here: its cost, its row sums, and every spanner row of every column.
    const C = remapped.channel;
    let total = 0;
    for (let x = 0; x < n; x++) {
      let s = 0;
      for (let w = 0; w < n; w++) {
        s += C[x * n + w]!;
        total += cost[x * n + w]! * C[x * n + w]!;
      }
      expect(Math.abs(s - 1)).toBeLessThan(1e-9);
    }
    expect(Math.abs(total - remapped.objective)).toBeLessThan(1e-12 + 1e-9 * total);
    let worst = 0;
    for (let e = 0; e < pairs.from.length; e++)
      for (let w = 0; w < n; w++) {
        const a = C[pairs.from[e]! * n + w]!;
        const b = C[pairs.to[e]! * n + w]!;
        if (a > 0) worst = Math.max(worst, a / (pairs.factor[e]! * b));
        if (b > 0) worst = Math.max(worst, b / (pairs.factor[e]! * a));
      }
    expect(worst).toBeLessThanOrEqual(1 + 1e-9);
  }, 60_000);
});
