import { describe, expect, it } from 'vitest';
import {
  ExactPricer,
  certificateBound,
  closurePricingFactors,
  exactPricingFactors,
} from '../../../../../src-worker/lp/pricing/exact-pricing';
import { ExactOutputs } from '../../../../../src-worker/lp/pricing/exact-outputs';
import { solveSparseLp } from '../../../../../src-worker/lp/solver/persistent-lp';
import { SparseLp } from '../../../../../src-worker/lp/solver/sparse-model';
import { seededRandom } from '../../../../../src-shared/numeric/seeded-random';

/**
 * Exact pricing, min v . r over P = { r in [0,1]^n : r_a <= f_ab r_b on every ordered pair } (ln f a metric),
 * against two independent references: HiGHS on the full model (every pair a row) and, on tiny instances, brute
 * force over P's vertices (every choice of n tight constraints). The certificate is recomputed here from its flows.
 */

type Rng = () => number;

/** ln f of a w x h grid (unit cells) at eps. */
function gridMetric(w: number, h: number, eps: number): { n: number; D: Float64Array } {
  const n = w * h;
  const D = new Float64Array(n * n);
  for (let a = 0; a < n; a++)
    for (let b = 0; b < n; b++)
      D[a * n + b] = eps * Math.hypot((a % w) - (b % w), Math.floor(a / w) - Math.floor(b / w));
  return { n, D };
}

/**
 * Shortest paths (Floyd-Warshall) of a random graph: a path through every node plus edges of probability `density`,
 * lengths in (0.01, scale].
 */
function randomMetric(n: number, density: number, scale: number, rnd: Rng): Float64Array {
  const D = new Float64Array(n * n).fill(Infinity);
  for (let a = 0; a < n; a++) D[a * n + a] = 0;
  for (let a = 0; a < n; a++)
    for (let b = a + 1; b < n; b++) {
      if (b !== a + 1 && rnd() >= density) continue;
      D[a * n + b] = D[b * n + a] = 0.01 + rnd() * scale;
    }
  for (let k = 0; k < n; k++)
    for (let a = 0; a < n; a++)
      for (let b = 0; b < n; b++)
        if (D[a * n + k]! + D[k * n + b]! < D[a * n + b]!) D[a * n + b] = D[a * n + k]! + D[k * n + b]!;
  return D;
}

const factorsOf = (D: Float64Array): Float64Array => Float64Array.from(D, (d) => Math.exp(-d));

async function highsOptimum(n: number, G: Float64Array, v: Float64Array): Promise<number> {
  const R = n * (n - 1);
  const lp = new SparseLp(n, R, 2 * R);
  lp.colUpper.fill(1);
  lp.colCost.set(v);
  for (let a = 0; a < n; a++)
    for (let b = 0; b < n; b++) if (a !== b) lp.addRow2(-Infinity, 0, a, 1, b, -1 / G[a * n + b]!);
  return (await solveSparseLp(lp, 'full pricing model')).objective;
}

/**
 * min v . r over the vertices of P: every set of n tight constraints (r_x = 0, r_x = 1, r_a = f_ab r_b) solved, kept
 * when feasible.
 */
function bruteForce(n: number, G: Float64Array, v: Float64Array): number {
  const cons: { coef: Float64Array; rhs: number }[] = [];
  for (let x = 0; x < n; x++) {
    const e = new Float64Array(n);
    e[x] = 1;
    cons.push({ coef: e, rhs: 0 }, { coef: e, rhs: 1 });
  }
  for (let a = 0; a < n; a++)
    for (let b = 0; b < n; b++) {
      if (a === b) continue;
      const e = new Float64Array(n);
      e[a] = 1;
      e[b] = -1 / G[a * n + b]!;
      cons.push({ coef: e, rhs: 0 });
    }
  let best = Infinity;
  const pick: number[] = [];
  const solveSquare = (): Float64Array | null => {
    const A = pick.map((i) => [...cons[i]!.coef, cons[i]!.rhs]);
    for (let c = 0; c < n; c++) {
      let piv = c;
      for (let r = c + 1; r < n; r++) if (Math.abs(A[r]![c]!) > Math.abs(A[piv]![c]!)) piv = r;
      if (Math.abs(A[piv]![c]!) < 1e-12) return null;
      [A[c], A[piv]] = [A[piv]!, A[c]!];
      for (let r = 0; r < n; r++) {
        if (r === c) continue;
        const t = A[r]![c]! / A[c]![c]!;
        for (let k = c; k <= n; k++) A[r]![k]! -= t * A[c]![k]!;
      }
    }
    return Float64Array.from({ length: n }, (_, c) => A[c]![n]! / A[c]![c]!);
  };
  const rec = (from: number): void => {
    if (pick.length === n) {
      const r = solveSquare();
      if (!r) return;
      for (let x = 0; x < n; x++) if (r[x]! < -1e-9 || r[x]! > 1 + 1e-9) return;
      for (let a = 0; a < n; a++)
        for (let b = 0; b < n; b++) if (a !== b && r[a]! * G[a * n + b]! > r[b]! + 1e-9) return;
      let val = 0;
      for (let x = 0; x < n; x++) val += v[x]! * r[x]!;
      best = Math.min(best, val);
      return;
    }
    for (let i = from; i < cons.length; i++) {
      pick.push(i);
      rec(i + 1);
      pick.pop();
    }
  };
  rec(0);
  return best;
}

/** The largest violation of a pair row r_a <= f_ab r_b, and of the box. */
function violation(n: number, G: Float64Array, r: Float64Array): number {
  let worst = 0;
  for (let a = 0; a < n; a++) {
    worst = Math.max(worst, -r[a]!, r[a]! - 1);
    for (let b = 0; b < n; b++) worst = Math.max(worst, r[a]! * G[a * n + b]! - r[b]!);
  }
  return worst;
}

function randomObjective(n: number, negShare: number, rnd: Rng): Float64Array {
  return Float64Array.from({ length: n }, () => (rnd() < negShare ? -2 * rnd() : rnd() < 0.5 ? 0.1 * rnd() : rnd()));
}

/**
 * Every check of one solve: feasible column, objective = v . r, the certificate recomputed, bound <= optimum <=
 * objective.
 */
function expectExact(
  n: number,
  G: Float64Array,
  v: Float64Array,
  res: ReturnType<ExactPricer['solve']>,
  optimum: number,
  what: string,
): void {
  const scale = 1 + Math.abs(optimum);
  expect(res.status, what).toBe('optimal');
  expect(violation(n, G, res.r), what).toBeLessThanOrEqual(1e-14);
  let vr = 0;
  for (let x = 0; x < n; x++) vr += v[x]! * res.r[x]!;
  expect(Math.abs(vr - res.objective), what).toBeLessThanOrEqual(1e-12 * scale);
  const { a, b, y } = res.certificate;
  for (let k = 0; k < y.length; k++) {
    expect(v[a[k]!]!, what).toBeLessThan(0);
    expect(v[b[k]!]!, what).toBeGreaterThan(0);
    expect(y[k]!, what).toBeGreaterThan(0);
  }
  const again = certificateBound(v, (i, j) => G[i * n + j]!, a, b, y);
  expect(Math.abs(again - res.bound), what).toBeLessThanOrEqual(1e-12 * scale);
  expect(res.bound, what).toBeLessThanOrEqual(optimum + 1e-9 * scale);
  expect(res.objective, what).toBeGreaterThanOrEqual(optimum - 1e-9 * scale);
  expect(res.objective - optimum, what).toBeLessThanOrEqual(1e-8 * scale);
  expect(optimum - res.bound, what).toBeLessThanOrEqual(1e-8 * scale);
}

describe('exact pricing over the column polytope', () => {
  it('matches brute force over the vertices of P on tiny grids and metrics (ties, zeros, one negative entry)', () => {
    const rnd = seededRandom(11);
    let cases = 0;
    for (let t = 0; t < 24; t++) {
      const n = t % 2 === 0 ? 4 : 5;
      const D =
        t % 3 === 0 ? gridMetric(n === 4 ? 2 : 5, n === 4 ? 2 : 1, 0.3 + 2 * rnd()).D : randomMetric(n, 0.5, 1.5, rnd);
      const G = factorsOf(D);
      const v = randomObjective(n, t % 4 === 1 ? 0.2 : 0.5, rnd);
      if (t % 5 === 2) for (let x = 0; x < n; x++) v[x] = Math.round(4 * v[x]!) / 4; // ties and zeros
      if (t % 6 === 3) {
        v.fill(0.5);
        v[0] = -1; // one negative entry
      }
      const res = new ExactPricer(n, G).solve(v);
      expectExact(n, G, v, res, bruteForce(n, G, v), `case ${t} (n = ${n})`);
      cases++;
    }
    expect(cases).toBe(24);
  });

  it('matches HiGHS on the full model: grids, random graphs, random finite metrics, warm and cold alike', async () => {
    const rnd = seededRandom(5);
    for (let t = 0; t < 36; t++) {
      const kind = t % 3;
      let n: number;
      let D: Float64Array;
      if (kind === 0) {
        const w = 2 + Math.floor(rnd() * 6);
        const h = 2 + Math.floor(rnd() * 6);
        ({ n, D } = gridMetric(w, h, 0.2 + 3 * rnd()));
      } else {
        n = 3 + Math.floor(rnd() * 30);
        D = randomMetric(n, kind === 1 ? 1 : 0.2, kind === 1 ? 3 : 1.2, rnd);
      }
      const G = factorsOf(D);
      const v = randomObjective(n, 0.15 + 0.5 * rnd(), rnd);
      const pricer = new ExactPricer(n, G);
      const cold = pricer.solve(v);
      expectExact(n, G, v, cold, await highsOptimum(n, G, v), `case ${t}, cold`);
      // The next round's objective of the same output, warm from its column: the same optimum as cold.
      const v2 = v.map((x) => x + 0.3 * (rnd() - 0.5));
      const warm = pricer.solve(v2, cold.r);
      const again = new ExactPricer(n, G).solve(v2);
      expectExact(n, G, v2, warm, again.objective, `case ${t}, warm`);
      expect(Math.abs(warm.objective - again.objective)).toBeLessThanOrEqual(1e-10 * (1 + Math.abs(again.objective)));
    }
  });

  it('matches HiGHS on solves long enough to cross the forest refreshes (more than 32 pivots), warm and cold alike', async () => {
    const rnd = seededRandom(29);
    let long = 0;
    for (let t = 0; t < 6; t++) {
      const { n, D } =
        t % 2 === 0 ? gridMetric(10, 9, 0.2 + 0.3 * rnd()) : { n: 80, D: randomMetric(80, 0.08, 1, rnd) };
      const G = factorsOf(D);
      // The decomposition's kind of objective (distance to an output minus duals): larger negative sets, longer solves.
      const w = Math.floor(rnd() * n);
      let dmax = 0;
      for (let x = 0; x < n; x++) dmax = Math.max(dmax, D[w * n + x]!);
      const v = Float64Array.from({ length: n }, (_, x) => (4 * D[w * n + x]!) / dmax / n - (1 + 2 * rnd()) / n);
      const pricer = new ExactPricer(n, G);
      const cold = pricer.solve(v);
      expectExact(n, G, v, cold, await highsOptimum(n, G, v), `case ${t}, cold`);
      if (cold.pivots > 32) long++;
      const v2 = v.map((x) => x + 0.2 * (rnd() - 0.5));
      const warm = pricer.solve(v2, cold.r);
      expectExact(n, G, v2, warm, await highsOptimum(n, G, v2), `case ${t}, warm`);
      expect(Math.abs(warm.objective - new ExactPricer(n, G).solve(v2).objective)).toBeLessThanOrEqual(
        1e-10 * (1 + Math.abs(warm.objective)),
      );
    }
    expect(long).toBeGreaterThanOrEqual(3);
  });

  it('prices objectives of the decomposition kind on a 12 x 12 grid with factors up to e^45, certified to 1e-10', () => {
    // c_w[x] = prior[x] * d(x, w) minus duals of that scale: the negative entries a ball around w.
    const { n, D } = gridMetric(12, 12, 45 / Math.hypot(11, 11));
    const G = factorsOf(D);
    const rnd = seededRandom(3);
    const pricer = new ExactPricer(n, G);
    const dist = (a: number, b: number): number =>
      Math.hypot((a % 12) - (b % 12), Math.floor(a / 12) - Math.floor(b / 12));
    let warmPivots = 0;
    let coldPivots = 0;
    const last: Float64Array[] = [];
    // Duals that move a little from round to round, as the decomposition's do near the end.
    const lam = Float64Array.from({ length: n }, () => (2 + 2 * rnd()) / n);
    for (let round = 0; round < 3; round++) {
      for (let x = 0; x < n; x++) lam[x] = lam[x]! * (1 + 0.02 * (rnd() - 0.5));
      for (let w = 0; w < n; w += 7) {
        const v = Float64Array.from({ length: n }, (_, x) => dist(x, w) / n - lam[x]!);
        const res = pricer.solve(v, last[w]);
        const cold = new ExactPricer(n, G).solve(v);
        expect(res.status).toBe('optimal');
        expect(violation(n, G, res.r)).toBeLessThanOrEqual(1e-14);
        expect(Math.abs(res.objective - cold.objective)).toBeLessThanOrEqual(1e-10 * (1 + Math.abs(cold.objective)));
        expect(res.objective - res.bound).toBeLessThanOrEqual(1e-10 * (1 + Math.abs(res.objective)));
        if (round > 0) {
          warmPivots += res.pivots;
          coldPivots += cold.pivots;
        }
        last[w] = res.r;
      }
    }
    // Real pricing (not a cold start): warm and cold solves both pivot. Their counts in the decomposition's own
    // rounds are measured by npm run bench -- exact-pricing (docs/lp.md).
    expect(warmPivots).toBeGreaterThan(0);
    expect(coldPivots).toBeGreaterThan(0);
  });

  it('an output warm-started before its first solve (ExactOutputs.warm): the same optimum, fewer pivots from a good column, ignored once it has its own', () => {
    const { n, D } = gridMetric(9, 9, 20 / Math.hypot(8, 8));
    const G = factorsOf(D);
    const rnd = seededRandom(8);
    const lam = Float64Array.from({ length: n }, () => (2 + 2 * rnd()) / n);
    const objective = (w: number): Float64Array =>
      Float64Array.from(
        { length: n },
        (_, x) => Math.hypot((x % 9) - (w % 9), Math.floor(x / 9) - Math.floor(w / 9)) / n - lam[x]!,
      );
    let coldPivots = 0;
    let warmPivots = 0;
    let againPivots = 0;
    let onesPivots = 0;
    for (let w = 0; w < n; w += 5) {
      const v = objective(w);
      const cold = new ExactOutputs(n, n, G).solve(w, v);
      // The warm start: the optimum of nearby duals (what a good candidate's column is to the first round).
      const near = Float64Array.from(v, (t) => t * (1 + 0.05 * (rnd() - 0.5)));
      const hint = new ExactPricer(n, G).solve(near).r;
      const outs = new ExactOutputs(n, n, G);
      outs.warm(w, hint);
      const warm = outs.solve(w, v);
      expect(Math.abs(warm.objective - cold.objective)).toBeLessThanOrEqual(1e-10 * (1 + Math.abs(cold.objective)));
      expect(warm.objective - warm.safeBound).toBeLessThanOrEqual(1e-10 * (1 + Math.abs(warm.objective)));
      coldPivots += cold.iterations;
      warmPivots += warm.iterations;
      // Once the output has a column of its own, a later warm start is ignored: the next solve starts from that.
      const ones = new Float64Array(n).fill(1);
      outs.warm(w, ones);
      const again = outs.solve(w, v);
      const fromOnes = new ExactOutputs(n, n, G);
      fromOnes.warm(w, ones);
      againPivots += again.iterations;
      onesPivots += fromOnes.solve(w, v).iterations;
      expect(again.objective).toBeCloseTo(cold.objective, 12);
    }
    expect(warmPivots).toBeLessThan(coldPivots);
    expect(againPivots).toBeLessThan(onesPivots);
  });

  it('the trivial cases: all zero, all negative, all positive', () => {
    const { n, D } = gridMetric(3, 3, 1);
    const G = factorsOf(D);
    const pricer = new ExactPricer(n, G);
    const zero = pricer.solve(new Float64Array(n));
    expect([zero.objective, zero.bound]).toEqual([0, 0]);
    const neg = pricer.solve(new Float64Array(n).fill(-0.5));
    expect(neg.objective).toBeCloseTo(-0.5 * n, 14);
    expect(neg.bound).toBeCloseTo(-0.5 * n, 14);
    expect(Array.from(neg.r)).toEqual(new Array(n).fill(1));
    const pos = pricer.solve(new Float64Array(n).fill(0.5));
    expect([pos.objective, pos.bound]).toEqual([0, 0]);
  });

  it('the certificate is a valid bound whatever the flows (random flows against the brute-force optimum)', () => {
    const rnd = seededRandom(17);
    for (let t = 0; t < 10; t++) {
      const n = 4;
      const G = factorsOf(randomMetric(n, 0.6, 1, rnd));
      const v = randomObjective(n, 0.5, rnd);
      const opt = bruteForce(n, G, v);
      const a: number[] = [];
      const b: number[] = [];
      const y: number[] = [];
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) if (v[i]! < 0 && v[j]! > 0) (a.push(i), b.push(j), y.push(rnd() * 2 - 0.5));
      const bound = certificateBound(
        v,
        (i, j) => G[i * n + j]!,
        Int32Array.from(a),
        Int32Array.from(b),
        Float64Array.from(y),
      );
      expect(bound).toBeLessThanOrEqual(opt + 1e-12);
    }
  });

  it('refuses a factor table of the wrong size and an objective that is not finite, in one line each', () => {
    expect(() => new ExactPricer(3, new Float64Array(8))).toThrow(/exact pricing: 3 secrets need 9 factors, got 8/);
    const pricer = new ExactPricer(2, Float64Array.of(1, 0.5, 0.5, 1));
    expect(() => pricer.solve(Float64Array.of(-1, Number.NaN))).toThrow(
      /objective entry 1 is NaN, not a finite number/,
    );
  });

  it('the factors of an exact model and of a graph closure', () => {
    const G = exactPricingFactors(3, Int32Array.of(0, 0, 1), Int32Array.of(1, 2, 2), Float64Array.of(1, 3, 1.5));
    expect(Array.from(G)).toEqual([
      1,
      Math.exp(-1),
      Math.exp(-3),
      Math.exp(-1),
      1,
      Math.exp(-1.5),
      Math.exp(-3),
      Math.exp(-1.5),
      1,
    ]);
    const C = closurePricingFactors(3, Int32Array.of(0, 1), Int32Array.of(1, 2), Float64Array.of(1, 1.5));
    expect(C[2]).toBeCloseTo(Math.exp(-2.5), 15);
    expect(C[6]).toBeCloseTo(Math.exp(-2.5), 15);
  });
});
