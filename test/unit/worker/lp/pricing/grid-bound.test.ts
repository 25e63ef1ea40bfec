import { describe, expect, it } from 'vitest';
import { solveByColumnDecomposition } from '../../../../../src-worker/lp/decomposition/column-decomposition';
import { privacyConstraintGraph } from '../../../../../src-worker/lp/model/privacy-constraint-graph';
import { ExactPricer, exactPricingFactors } from '../../../../../src-worker/lp/pricing/exact-pricing';
import { GridFactors, gridPricingFactors } from '../../../../../src-worker/lp/pricing/exact-pricing-factors';
import {
  gridBoundPart,
  gridLagrangianBound,
  offsetDistance,
  windowMargin,
  type GridBoundProblem,
} from '../../../../../src-worker/lp/pricing/grid-bound';
import { gridDomain } from '../../../../../src-worker/metric/grid';
import type { GridMetric } from '../../../../../src-worker/metric/domain';
import { seededRandom } from '../../../../../src-shared/numeric/seeded-random';

/**
 * The bound without a master (docs/lp.md, "A bound without a master"): the Lagrangian bound priced output by output
 * over windows with a grid's factors by offset, against the dense exact pricing of every output over the whole
 * grid, and at a decomposition's optimal duals against its certified optimum.
 */

function lumpyPrior(n: number): Float64Array {
  const w = Float64Array.from({ length: n }, (_, i) => (i % 7 === 3 ? 30 : 1 + ((i * 5) % 4)));
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((v) => v / s);
}

/** The exact model's dense factors of a grid domain, from its privacy graph of every pair. */
function denseFactors(rows: number, cols: number, eps: number, metric: GridMetric = 'euclidean'): Float64Array {
  const g = gridDomain(rows, cols, 1, metric);
  const graph = privacyConstraintGraph(g, eps, 'all-pairs');
  return exactPricingFactors(g.n, graph.from, graph.to, graph.exponent);
}

describe('grid factors by offset', () => {
  it('equal the exact model dense factors on every pair, for every grid metric', () => {
    for (const metric of ['euclidean', 'manhattan', 'chebyshev'] as const) {
      const g = gridDomain(5, 7, 0.5, metric);
      const all = privacyConstraintGraph(g, 0.8, 'all-pairs');
      const dense = exactPricingFactors(g.n, all.from, all.to, all.exponent);
      const F = gridPricingFactors(5, 7, 0.8, offsetDistance(metric, 0.5));
      const idx = Int32Array.from({ length: g.n }, (_, i) => i);
      const row = new Float64Array(g.n);
      for (let a = 0; a < g.n; a++) {
        F.gather(a, idx, 0, g.n, row, 0);
        for (let b = 0; b < g.n; b++) {
          expect(row[b]).toBeCloseTo(dense[a * g.n + b]!, 14);
          expect(F.at(a, b)).toBe(row[b]);
        }
      }
    }
    expect(() => new GridFactors(2, 3, new Float64Array(5))).toThrow(/2 x 3 offsets need 6 entries/);
  });

  it('exact pricing with them gives the dense pricing optimum (random objectives on 6 x 6)', () => {
    const rnd = seededRandom(7);
    const G = denseFactors(6, 6, 0.7);
    const dense = new ExactPricer(36, G);
    const offsets = new ExactPricer(36, gridPricingFactors(6, 6, 0.7, offsetDistance('euclidean', 1)));
    for (let t = 0; t < 20; t++) {
      const v = Float64Array.from({ length: 36 }, () => rnd() - 0.6);
      const a = dense.solve(v);
      const b = offsets.solve(v);
      expect(b.objective).toBeCloseTo(a.objective, 12);
      expect(b.bound).toBeCloseTo(a.bound, 12);
      expect(Array.from(b.r)).toEqual(Array.from(a.r).map((x) => expect.closeTo(x, 12)));
    }
  });
});

describe('the grid bound', () => {
  const rows = 12;
  const cols = 12;
  const n = rows * cols;
  const eps = 3;
  const pi = lumpyPrior(n);
  const rnd = seededRandom(3);
  // Duals about the size of a row's cost near its cell (a few negative entries per output).
  const duals = Float64Array.from(pi, (p) => p * (0.3 + 1.2 * rnd()));
  const problem: GridBoundProblem = { rows, cols, step: 1, metric: 'euclidean', eps, loss: 'dist', pi, duals };
  const g = gridDomain(rows, cols);
  const vOf = (w: number): Float64Array => Float64Array.from(pi, (p, x) => p * g.distance(w, x) - duals[x]!);

  it('bounds each output over its window from below, within 1e-4 of the whole-grid pricing', () => {
    expect(windowMargin(eps, 1)).toBe(4); // ln 1e4 / 3: windows smaller than the grid
    const full = new ExactPricer(n, denseFactors(rows, cols, eps));
    let windowed = 0;
    for (let w = 0; w < n; w++) {
      // One output alone: thread w of n threads.
      const part = gridBoundPart(problem, w, n, () => false);
      const v = vOf(w);
      const exact = Math.min(0, full.solve(v).objective);
      expect(part.sum).toBeLessThanOrEqual(exact + 1e-15);
      expect(part.sum).toBeGreaterThanOrEqual(exact - 1e-4 * pi[w]!);
      if (v.some((t) => t < 0)) windowed += part.priced;
    }
    expect(windowed).toBeGreaterThan(n / 2);
  });

  it('stopped at once, every output keeps its box bound sum min(0, v)', async () => {
    const stopped = await gridLagrangianBound(problem, { threads: 1, deadline: Infinity, shouldStop: () => true });
    let box = duals.reduce((a, b) => a + b, 0);
    for (let w = 0; w < n; w++) for (const t of vOf(w)) box += Math.min(0, t);
    expect(stopped.priced).toBe(0);
    expect(stopped.bound).toBeCloseTo(box, 12);
    const priced = await gridLagrangianBound(problem, { threads: 1, deadline: Infinity });
    expect(priced.priced).toBeGreaterThan(0);
    expect(priced.bound).toBeGreaterThan(stopped.bound);
  });

  it('equals the certified optimum at the decomposition optimal duals (6 x 6 exact), on one thread and on two', async () => {
    const g6 = gridDomain(6, 6);
    const p6 = lumpyPrior(36);
    const graph = privacyConstraintGraph(g6, 1, 'all-pairs');
    const cost = new Float64Array(36 * 36);
    for (let x = 0; x < 36; x++) for (let w = 0; w < 36; w++) cost[x * 36 + w] = p6[x]! * g6.distance(x, w);
    const pairs = { from: graph.from, to: graph.to, factor: Float64Array.from(graph.exponent, (e) => Math.exp(e)) };
    const opt = await solveByColumnDecomposition(
      { n: 36, m: 36, cost, sense: 'minimize', pairs, what: 'test LP' },
      undefined,
      { tolerance: 1e-10 },
    );
    const p: GridBoundProblem = { ...problem, rows: 6, cols: 6, eps: 1, pi: p6, duals: opt.duals };
    const one = await gridLagrangianBound(p, { threads: 1, deadline: Infinity });
    const two = await gridLagrangianBound(p, { threads: 2, deadline: Infinity });
    expect(one.bound).toBeLessThanOrEqual(opt.objective * (1 + 1e-9));
    expect(Math.abs(one.bound - opt.objective) / opt.objective).toBeLessThan(1e-7);
    expect(two.threads).toBe(2);
    expect(two.priced).toBe(one.priced);
    expect(two.bound).toBeCloseTo(one.bound, 12);
  }, 60_000);
});
