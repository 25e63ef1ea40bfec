import { describe, expect, it } from 'vitest';
import { MechError } from '../../../../../src-shared/errors';
import { DENSE_KERNELS_WASM } from '../../../../../src-worker/lp/decomposition/dense-kernels.wasm';
import { DenseSimplex } from '../../../../../src-worker/lp/decomposition/dense-simplex';
import { solveSparseLp } from '../../../../../src-worker/lp/solver/persistent-lp';
import { SparseLp } from '../../../../../src-worker/lp/solver/sparse-model';

/** Columns of a master-like LP: dense, entries in (0, 1], costs c . a; plus +-e_x box columns of cost B. */
interface Col {
  cost: number;
  a: Float64Array | null;
  row?: number;
  sign?: 1 | -1;
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** eps is drawn from [epsLow, epsLow + epsSpread): small values give wide plateaus, nearly parallel columns. */
function denseColumns(n: number, k: number, rand: () => number, epsLow = 0.2, epsSpread = 2): Col[] {
  const cols: Col[] = [];
  for (let j = 0; j < k; j++) {
    const a = new Float64Array(n);
    const centre = Math.floor(rand() * n);
    // Plateau-like: e^(-eps |x - centre|) with a random eps, and a random cost vector.
    const eps = epsLow + epsSpread * rand();
    let cost = 0;
    for (let x = 0; x < n; x++) {
      a[x] = Math.exp(-eps * Math.abs(x - centre));
      cost += a[x]! * (0.1 + rand()) * Math.abs(x - ((j * 7) % n));
    }
    cols.push({ cost, a });
  }
  return cols;
}

/** The same LP (A theta = 1, theta >= 0) solved by HiGHS: objective and row duals. */
async function highsOptimum(n: number, cols: Col[]): Promise<number> {
  const lp = new SparseLp(cols.length, n, n * cols.length);
  cols.forEach((c, j) => (lp.colCost[j] = c.cost));
  for (let x = 0; x < n; x++) {
    const idx: number[] = [];
    const val: number[] = [];
    cols.forEach((c, j) => {
      const v = c.a ? c.a[x]! : c.row === x ? c.sign! : 0;
      if (v !== 0) {
        idx.push(j);
        val.push(v);
      }
    });
    lp.addRow(1, 1, idx, val);
  }
  return (await solveSparseLp(lp, 'reference LP', { solver: 'simplex' })).objective;
}

/** Same optimum as HiGHS' (whose tolerances are 1e-7 on feasibility): 1e-9 relative. */
function expectSameOptimum(ours: number, highs: number): void {
  expect(Math.abs(ours - highs)).toBeLessThan(1e-9 * Math.max(1, Math.abs(highs)));
}

function load(s: DenseSimplex, cols: Col[]): void {
  for (const c of cols) {
    if (c.a) s.addDense(c.cost, c.a);
    else s.addUnit(c.cost, c.row!, c.sign!);
  }
}

/** Checks a solution the way an LP certificate does: feasibility, reduced costs >= 0, and objective = b . y. */
function expectCertified(n: number, cols: Col[], theta: Float64Array, y: Float64Array, objective: number): void {
  const scale = Math.max(1, Math.abs(objective));
  for (let x = 0; x < n; x++) {
    let row = 0;
    cols.forEach((c, j) => (row += theta[j]! * (c.a ? c.a[x]! : c.row === x ? c.sign! : 0)));
    expect(Math.abs(row - 1)).toBeLessThan(1e-9);
  }
  let cost = 0;
  cols.forEach((c, j) => {
    expect(theta[j]!).toBeGreaterThanOrEqual(0);
    cost += c.cost * theta[j]!;
    let d = c.cost;
    if (c.a) for (let x = 0; x < n; x++) d -= y[x]! * c.a[x]!;
    else d -= c.sign! * y[c.row!]!;
    expect(d).toBeGreaterThan(-1e-8 * scale);
  });
  expect(cost).toBeCloseTo(objective, 9);
  let dual = 0;
  for (let x = 0; x < n; x++) dual += y[x]!;
  expect(Math.abs(dual - objective)).toBeLessThan(1e-8 * scale);
}

describe('DenseSimplex (the decomposition master)', () => {
  it('runs the WebAssembly kernels compiled from dense-kernels.wat (the embedded module is up to date)', async () => {
    const { compileKernels } = (await import('../../../../../scripts/build-kernels.mjs' as string)) as {
      compileKernels: () => Promise<string>;
    };
    expect(await compileKernels()).toBe(DENSE_KERNELS_WASM);
  });

  it('solves dense master-like LPs to HiGHS optimum, with duals that certify it, warm after appends', async () => {
    for (const [n, k, seed] of [
      [8, 30, 1],
      [13, 50, 4],
      [20, 120, 2],
      [23, 90, 5],
      [40, 300, 3],
    ] as const) {
      const rand = rng(seed);
      const cols: Col[] = [{ cost: 50 * n, a: new Float64Array(n).fill(1) }, ...denseColumns(n, k, rand)];
      const s = new DenseSimplex(n, new Float64Array(n).fill(1), 'test master');
      load(s, cols.slice(0, k / 2));
      const first = s.run();
      expectSameOptimum(first.objective, await highsOptimum(n, cols.slice(0, k / 2)));
      expectCertified(n, cols.slice(0, k / 2), first.colValue, s.duals(), first.objective);
      // Warm: the rest appended, re-solved from the last basis.
      load(s, cols.slice(k / 2));
      const second = s.run();
      expectSameOptimum(second.objective, await highsOptimum(n, cols));
      expect(second.objective).toBeLessThanOrEqual(first.objective + 1e-12);
      expectCertified(n, cols, second.colValue, s.duals(), second.objective);
    }
  });

  it('shares the row updates and the pricing scans with a helper thread: the same pivots and optimum as on one thread', async () => {
    // Rows enough that a chunk (n / 8 rows) outlasts the helper's wake-up, and columns enough that a scan (a quarter
    // of them) is shared too (1,400 / 4 x 200 entries).
    const n = 200;
    const cols: Col[] = [{ cost: 50 * n, a: new Float64Array(n).fill(1) }, ...denseColumns(n, 2800, rng(11))];
    const one = new DenseSimplex(n, new Float64Array(n).fill(1), 'test master', 1);
    const two = new DenseSimplex(n, new Float64Array(n).fill(1), 'test master', 2);
    try {
      expect(await one.helperReady()).toBe(false);
      expect(await two.helperReady()).toBe(true);
      load(one, cols.slice(0, 1400));
      load(two, cols.slice(0, 1400));
      const a1 = one.run();
      const a2 = two.run();
      load(one, cols.slice(1400));
      load(two, cols.slice(1400));
      const b1 = one.run();
      const b2 = two.run();
      // The same arithmetic on the same rows, whichever thread ran them: the same pivots, the same values.
      expect(a2.iterations).toBe(a1.iterations);
      expect(b2.iterations).toBe(b1.iterations);
      expect(b2.objective).toBe(b1.objective);
      expect(Array.from(two.duals())).toEqual(Array.from(one.duals()));
      expectCertified(n, cols, b2.colValue, two.duals(), b2.objective);
      expectSameOptimum(b2.objective, await highsOptimum(n, cols));
      expect(a1.iterations + b1.iterations).toBeGreaterThan(100);
      // The helper takes chunks when it is scheduled in time (on a loaded machine this thread may do them all): more
      // rounds, each compared, until it has.
      for (let round = 0; round < 50 && two.helped === 0; round++) {
        const more = denseColumns(n, 20, rng(100 + round));
        load(one, more);
        load(two, more);
        expect(two.run().objective).toBe(one.run().objective);
      }
      expect(one.helped).toBe(0);
      expect(two.helped).toBeGreaterThan(0);
      // closed mid-life: the simplex goes on alone, with the same answer
      two.close();
      load(one, denseColumns(n, 50, rng(12)));
      load(two, denseColumns(n, 50, rng(12)));
      expect(two.run().objective).toBe(one.run().objective);
    } finally {
      one.close();
      two.close();
    }
  });

  it('keeps solving after basic columns are deleted (an artificial takes their place, phase 1 again) and with box columns', async () => {
    const n = 16;
    const rand = rng(7);
    const box: Col[] = [];
    for (let j = 0; j < 2 * n; j++) box.push({ cost: 40, a: null, row: j % n, sign: j < n ? 1 : -1 });
    let cols: Col[] = [{ cost: 30 * n, a: new Float64Array(n).fill(1) }, ...denseColumns(n, 80, rand), ...box];
    const s = new DenseSimplex(n, new Float64Array(n).fill(1), 'test master');
    load(s, cols);
    let sol = s.run();
    expectSameOptimum(sol.objective, await highsOptimum(n, cols));
    for (let round = 0; round < 3; round++) {
      // Delete the basic columns with the largest values (and a few non-basic ones), then add fresh columns.
      const order = [...sol.colValue.keys()]
        .filter((j) => cols[j]!.a !== null)
        .sort((i, j) => sol.colValue[j]! - sol.colValue[i]!);
      const drop = [...order.slice(0, 4), ...order.slice(-3)].sort((i, j) => i - j);
      expect(sol.colValue[drop.at(-1)!]! + sol.colValue[order[0]!]!).toBeGreaterThan(0);
      s.deleteColumns(drop);
      cols = cols.filter((_, j) => !drop.includes(j));
      const fresh = denseColumns(n, 10, rand);
      load(s, fresh);
      cols = [...cols, ...fresh];
      sol = s.run();
      expectSameOptimum(sol.objective, await highsOptimum(n, cols));
      expectCertified(n, cols, sol.colValue, s.duals(), sol.objective);
    }
    // Widening the box (new costs of some columns) keeps the basis usable.
    cols.forEach((c, j) => {
      if (!c.a) {
        c.cost = 400;
        s.setCost(j, 400);
      }
    });
    sol = s.run();
    expectSameOptimum(sol.objective, await highsOptimum(n, cols));
  });

  it('rebuilds the inverse from the basic columns when its residuals drift (many pivots, nearly parallel columns), with the same certified optimum', async () => {
    const n = 120;
    const rand = rng(11);
    // Wide plateaus (small eps): nearly parallel columns, an ill-conditioned basis after more than n pivots.
    const cols: Col[] = [{ cost: 50 * n, a: new Float64Array(n).fill(1) }, ...denseColumns(n, 900, rand, 0.002, 0.05)];
    const s = new DenseSimplex(n, new Float64Array(n).fill(1), 'test master');
    load(s, cols);
    const sol = s.run();
    expect(sol.iterations).toBeGreaterThan(n);
    expect(sol.rebuilds).toBeGreaterThan(0);
    expectSameOptimum(sol.objective, await highsOptimum(n, cols));
    expectCertified(n, cols, sol.colValue, s.duals(), sol.objective);
  });

  it('stops at a deadline and stays usable; reports an infeasible LP', async () => {
    const n = 60;
    const rand = rng(11);
    const cols: Col[] = [{ cost: 100 * n, a: new Float64Array(n).fill(1) }, ...denseColumns(n, 600, rand)];
    const s = new DenseSimplex(n, new Float64Array(n).fill(1), 'test master');
    load(s, cols);
    let err: unknown;
    try {
      s.run({ deadline: performance.now() - 1 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MechError);
    expect((err as MechError).code).toBe('cancelled');
    expect((err as MechError).detail?.['reason']).toBe('time-limit');
    expect(() => s.run(undefined, () => true)).toThrow(/cancelled/);
    const sol = s.run();
    expectSameOptimum(sol.objective, await highsOptimum(n, cols));
    expectCertified(n, cols, sol.colValue, s.duals(), sol.objective);

    // Row 2 is covered by no column: no theta >= 0 gives A theta = 1.
    const bad = new DenseSimplex(3, new Float64Array(3).fill(1), 'test master');
    bad.addDense(1, Float64Array.from([1, 0.5, 0]));
    bad.addDense(1, Float64Array.from([0.2, 1, 0]));
    expect(() => bad.run()).toThrow(/no feasible solution/);
  });

  it("starts from a basis of a feasible channel's columns (fewer pivots, the same certified optimum) and refuses an infeasible one", async () => {
    const n = 30;
    const rand = rng(21);
    // A feasible channel: n/3 columns (of 3 outputs' worth each) with rows summing to 1, and a duplicate of one of
    // them (dependent: left out of the basis).
    const k = n / 3;
    const chan: Col[] = [];
    const raw = Array.from({ length: k }, (_, j) => {
      const a = new Float64Array(n);
      for (let x = 0; x < n; x++) a[x] = Math.exp(-0.4 * Math.abs(x - 3 * j - 1)) + 0.01 * rand();
      return a;
    });
    for (let x = 0; x < n; x++) {
      let t = 0;
      for (const a of raw) t += a[x]!;
      for (const a of raw) a[x]! /= t;
    }
    // Cheap (as a good candidate is): the optimum is near its vertex.
    for (const a of raw) chan.push({ cost: 0.5 * (1 + 0.1 * rand()), a });
    const others = denseColumns(n, 200, rand);
    const cols: Col[] = [{ cost: 50 * n, a: new Float64Array(n).fill(1) }, ...others, ...chan, chan[0]!];
    const reference = await highsOptimum(n, cols);
    const cold = new DenseSimplex(n, new Float64Array(n).fill(1), 'test master');
    load(cold, cols);
    const fromArtificial = cold.run();
    const warm = new DenseSimplex(n, new Float64Array(n).fill(1), 'test master');
    load(warm, cols);
    const first = 1 + others.length;
    expect(warm.crash(cols.map((_, j) => j).slice(first))).toBe(true);
    const fromChannel = warm.run();
    expectSameOptimum(fromArtificial.objective, reference);
    expectSameOptimum(fromChannel.objective, reference);
    expectCertified(n, cols, fromChannel.colValue, warm.duals(), fromChannel.objective);
    expect(fromChannel.iterations).toBeLessThan(fromArtificial.iterations);

    // Columns whose only combination meeting the row sums has a negative weight (2 (1, 2) - (1, 3) = (1, 1)): no feasible basis, the artificial
    // basis is kept and the solve still finds the optimum.
    const m = 2;
    const neg = new DenseSimplex(m, new Float64Array(m).fill(1), 'test master');
    neg.addDense(1, Float64Array.from([1, 2]));
    neg.addDense(1, Float64Array.from([1, 3]));
    neg.addDense(3, Float64Array.from([1, 1]));
    expect(neg.crash([0, 1])).toBe(false);
    expect(neg.run().objective).toBeCloseTo(
      await highsOptimum(m, [
        { cost: 1, a: Float64Array.from([1, 2]) },
        { cost: 1, a: Float64Array.from([1, 3]) },
        { cost: 3, a: Float64Array.from([1, 1]) },
      ]),
      12,
    );
  });
});
