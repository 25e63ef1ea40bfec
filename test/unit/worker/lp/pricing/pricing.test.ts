import { describe, expect, it } from 'vitest';
import {
  type PricingForm,
  PricingGroups,
  PricingModel,
  type PricingRows,
  groupThread,
} from '../../../../../src-worker/lp/pricing/pricing';
import {
  LAZY_ROWS_PER_OUTPUT_EXPECTED,
  PRICING_BYTES_PER_ROW,
  lazyPricingGroupSize,
} from '../../../../../src-worker/lp/solver/memory-estimate';
import { privacyConstraintGraph } from '../../../../../src-worker/lp/model/privacy-constraint-graph';
import { gridDomain } from '../../../../../src-worker/metric/grid';
import { solveSparseLp } from '../../../../../src-worker/lp/solver/persistent-lp';
import { SparseLp } from '../../../../../src-worker/lp/solver/sparse-model';
import { seededRandom } from '../../../../../src-shared/numeric/seeded-random';
import { floydWarshall } from '../../../support/metric-helpers';

/**
 * The pricing LP min v . r over P = { r in [0,1]^n : r_a <= f r_b on every row }, warm-started per output in
 * either form, against a cold solve of the LP as written (a fresh model, HiGHS' defaults).
 */
async function coldOptimum(n: number, rows: PricingRows, v: Float64Array): Promise<number> {
  const lp = new SparseLp(n, rows.from.length, 2 * rows.from.length);
  lp.colUpper.fill(1);
  lp.colCost.set(v);
  for (let k = 0; k < rows.from.length; k++) lp.addRow2(-Infinity, 0, rows.from[k]!, 1, rows.to[k]!, -rows.factor[k]!);
  return (await solveSparseLp(lp, 'reference pricing LP')).objective;
}

/**
 * The best plateau r_x = e^(-D(x, S)) (S a non-empty set of secrets, D the shortest path over the rows with
 * lengths ln f), by enumeration: every plateau is a point of P, so the optimum is at most this; but the
 * plateaus are not all of P's vertices (an entry can also sit at the cap f r_z of a lower neighbour z).
 */
function bestPlateau(n: number, rows: PricingRows, v: Float64Array): number {
  const D = floydWarshall(n, { from: rows.from, to: rows.to, weight: Float64Array.from(rows.factor, Math.log) });
  let best = 0;
  for (let S = 1; S < 1 << n; S++) {
    let val = 0;
    for (let x = 0; x < n; x++) {
      let d = Infinity;
      for (let s = 0; s < n; s++) if (S & (1 << s)) d = Math.min(d, D[s * n + x]!);
      val += v[x]! * Math.exp(-d);
    }
    best = Math.min(best, val);
  }
  return best;
}

function rowsOf(side: number, eps: number, mode: 'spanner' | 'all-pairs'): PricingRows {
  const g = privacyConstraintGraph(gridDomain(side, side), eps, mode);
  // Both directions of every constrained pair, as the decomposition's pricing models hold them.
  const E = g.from.length;
  const from = new Int32Array(2 * E);
  const to = new Int32Array(2 * E);
  const factor = new Float64Array(2 * E);
  for (let e = 0; e < E; e++) {
    from[2 * e] = g.from[e]!;
    to[2 * e] = g.to[e]!;
    from[2 * e + 1] = g.to[e]!;
    to[2 * e + 1] = g.from[e]!;
    factor[2 * e] = factor[2 * e + 1] = Math.exp(g.exponent[e]!);
  }
  return { from, to, factor };
}

/** The all-pairs rows of a 3 x 3 grid at eps 1.2: all of them, their first half and the rest. */
function halvedRows(): { rows: PricingRows; first: PricingRows; rest: PricingRows } {
  const rows = rowsOf(3, 1.2, 'all-pairs');
  const half = Math.floor(rows.from.length / 2);
  const part = (start: number, end?: number): PricingRows => ({
    from: rows.from.slice(start, end),
    to: rows.to.slice(start, end),
    factor: rows.factor.slice(start, end),
  });
  return { rows, first: part(0, half), rest: part(half) };
}

function expectInP(r: Float64Array, rows: PricingRows): void {
  for (const t of r) expect(t >= 0 && t <= 1).toBe(true);
  for (let k = 0; k < rows.from.length; k++)
    expect(r[rows.from[k]!]!).toBeLessThanOrEqual(rows.factor[k]! * r[rows.to[k]!]! * (1 + 1e-9) + 1e-12);
}

describe.each<PricingForm>(['dual', 'primal'])('pricing LP, %s form', (form) => {
  it.each<[number, number, 'spanner' | 'all-pairs']>([
    [3, 0.7, 'spanner'],
    [3, 2, 'all-pairs'],
  ])(
    'equals a cold solve, warm re-solves per output included, and is at most the best plateau: side %i, eps %f, %s',
    async (side, eps, mode) => {
      const n = side * side;
      const rows = rowsOf(side, eps, mode);
      const m = 3;
      const model = await PricingModel.open(n, m, rows, 'test pricing', undefined, form);
      let belowPlateaus = 0;
      try {
        const rnd = seededRandom(7);
        // Each output is solved several times with moving objectives (a warm start from its own last basis).
        for (let round = 0; round < 6; round++)
          for (let w = 0; w < m; w++) {
            const v = Float64Array.from({ length: n }, () => rnd() - 0.6);
            const out = model.solve(w, v);
            const exact = await coldOptimum(n, rows, v);
            const plateau = bestPlateau(n, rows, v);
            expect(out.objective).toBeLessThanOrEqual(plateau + 1e-12);
            if (plateau > exact + 1e-6) belowPlateaus++;
            expect(
              Math.abs(out.objective - exact),
              `round ${round} output ${w}: ${out.objective} vs ${exact} safe ${out.safeBound}`,
            ).toBeLessThan(1e-9);
            expect(out.safeBound).toBeLessThanOrEqual(exact + 1e-12);
            expect(out.safeBound).toBeGreaterThan(exact - 1e-9);
            expectInP(out.r, rows);
            let val = 0;
            for (let x = 0; x < n; x++) val += v[x]! * out.r[x]!;
            expect(Math.abs(val - out.objective)).toBeLessThan(1e-9);
          }
        // The plateaus alone would not do: on these cases some optima lie strictly below the best plateau.
        expect(belowPlateaus).toBeGreaterThan(0);
      } finally {
        model.dispose();
      }
    },
  );

  it('rows appended later give the same optima as a model holding them all', async () => {
    const n = 9;
    const { rows, first, rest } = halvedRows();
    const grown = await PricingModel.open(n, 2, first, 'grown', undefined, form);
    const whole = await PricingModel.open(n, 2, rows, 'whole', undefined, form);
    try {
      const rnd = seededRandom(11);
      const v0 = Float64Array.from({ length: n }, () => rnd() - 0.5);
      // A solve on the first half (a relaxation: its optimum is at most the whole model's), then the rows arrive.
      const relaxed = grown.solve(0, v0).objective;
      grown.addRows(rest);
      expect(grown.rows).toBe(rows.from.length);
      for (let w = 0; w < 2; w++) {
        const v = w === 0 ? v0 : Float64Array.from({ length: n }, () => rnd() - 0.5);
        const a = grown.solve(w, v);
        const b = whole.solve(w, v);
        expect(Math.abs(a.objective - b.objective)).toBeLessThan(1e-9);
        expect(Math.abs(a.objective - (await coldOptimum(n, rows, v)))).toBeLessThan(1e-9);
        if (w === 0) expect(relaxed).toBeLessThanOrEqual(a.objective + 1e-12);
        expectInP(a.r, rows);
      }
    } finally {
      grown.dispose();
      whole.dispose();
    }
  });

  it('a stop ends a solve without an outcome, and the next solve of that output starts cold and is exact', async () => {
    const n = 25;
    const rows = rowsOf(5, 1, 'all-pairs');
    const model = await PricingModel.open(n, 1, rows, 'stopped pricing', undefined, form);
    try {
      const rnd = seededRandom(3);
      const v = Float64Array.from({ length: n }, () => rnd() - 0.6);
      expect(model.solveUntil(0, v, 0, { shouldStop: () => true })).toBeNull();
      expect(model.solveUntil(0, v, 0, { deadline: performance.now() - 1 })).toBeNull();
      const out = model.solveUntil(0, v, 0, { shouldStop: () => false });
      expect(out).not.toBeNull();
      expect(Math.abs(out!.objective - (await coldOptimum(n, rows, v)))).toBeLessThan(1e-9);
    } finally {
      model.dispose();
    }
  });
});

describe('pricing groups (lazy rows held per group of outputs)', () => {
  it('routes each output to its group, and rows added to one group tighten only that group', async () => {
    const n = 9;
    const { rows, first, rest } = halvedRows();
    // 5 outputs in groups of 2: groups {0, 1}, {2, 3}, {4}.
    const groups = await PricingGroups.open(n, 5, first, 2, () => true, 'groups');
    try {
      expect([0, 1, 2, 3, 4].map((w) => groups.groupOf(w))).toEqual([0, 0, 1, 1, 2]);
      const rnd = seededRandom(5);
      // An objective whose optimum on the first half of the rows violates the rest (found by search, then fixed).
      let v = new Float64Array(n);
      let relaxed = 0;
      let exact = 0;
      for (let tries = 0; tries < 200 && !(relaxed < exact - 1e-6); tries++) {
        v = Float64Array.from({ length: n }, () => rnd() - 0.6);
        relaxed = await coldOptimum(n, first, v);
        exact = await coldOptimum(n, rows, v);
      }
      expect(relaxed).toBeLessThan(exact - 1e-6);
      groups.addRows(rest, 1);
      expect(groups.rows).toBe(rows.from.length);
      // Outputs 2 and 3 (group 1) now price over all rows; 0, 1 and 4 still over the first half (a relaxation).
      for (let w = 0; w < 5; w++) {
        const out = groups.solveUntil(w, v, 0)!;
        const want = w === 2 || w === 3 ? exact : relaxed;
        expect(Math.abs(out.objective - want), `output ${w}`).toBeLessThan(1e-9);
        expect(out.safeBound).toBeLessThanOrEqual(want + 1e-12);
        expectInP(out.r, w === 2 || w === 3 ? rows : first);
      }
      // Rows for every group: all price over the whole model.
      groups.addRows(rest);
      for (let w = 0; w < 5; w++) expect(Math.abs(groups.solveUntil(w, v, 0)!.objective - exact)).toBeLessThan(1e-9);
    } finally {
      groups.dispose();
    }
  });

  it('a worker opens only its own groups and refuses outputs of the others', async () => {
    const rows = rowsOf(3, 1, 'spanner');
    const own = await PricingGroups.open(9, 6, rows, 2, (g) => g % 2 === 1, 'thread 1 of 2');
    try {
      expect(own.solveUntil(2, new Float64Array(9).fill(-1), 0)!.objective).toBeLessThan(0);
      expect(() => own.solveUntil(0, new Float64Array(9), 0)).toThrow(/not priced here/);
    } finally {
      own.dispose();
    }
    // Groups are dealt to threads when there are at least as many groups as threads; otherwise every thread holds all.
    expect([0, 1, 2].map((g) => groupThread(g, 6, 2, 2))).toEqual([0, 1, 0]);
    expect(groupThread(0, 6, 6, 2)).toBeUndefined();
  });

  it('the group size is the smallest whose models fit the heap share (20 x 20 city, 2,964 seed rows)', () => {
    const limit = 1.75 * 2 ** 30;
    const size = (threads: number): number => lazyPricingGroupSize(400, 2964, threads, limit);
    const fits = (k: number, threads: number): boolean =>
      Math.ceil(Math.ceil(400 / threads) / k) * PRICING_BYTES_PER_ROW * (2964 + LAZY_ROWS_PER_OUTPUT_EXPECTED * k) <=
      (threads > 1 ? 0.5 : 0.35) * limit;
    expect(size(1)).toBe(7);
    expect(size(2)).toBe(2);
    for (const threads of [1, 2]) {
      expect(fits(size(threads), threads)).toBe(true);
      expect(fits(size(threads) - 1, threads)).toBe(false);
    }
    // Nothing smaller fits: one shared model.
    expect(lazyPricingGroupSize(400, 2964, 1, 64 * 2 ** 20)).toBe(400);
  });
});
