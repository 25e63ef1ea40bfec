import { describe, expect, it } from 'vitest';
import { MechError } from '../../../../../src-shared/errors';
import { Matrix } from '../../../../../src-worker/linalg/matrix';
import { solve } from '../../../../../src-worker/linalg/lu';
import {
  type GenerationOptions,
  solveByConstraintGeneration,
} from '../../../../../src-worker/lp/channel/constraint-generation';
import { optimalMechanism } from '../../../../../src-worker/lp/optimal/optimal-mechanism';
import { solvePrivateChannelLp } from '../../../../../src-worker/lp/channel/private-channel-lp';
import { PersistentLp, solveSparseLp } from '../../../../../src-worker/lp/solver/persistent-lp';
import { SparseLp } from '../../../../../src-worker/lp/solver/sparse-model';
import { uniformPrior } from '../../../../../src-worker/measure/prior';
import type { Domain } from '../../../../../src-worker/metric/domain';
import { gridDomain } from '../../../../../src-worker/metric/grid';
import {
  directLoss,
  worstPrivacyRatio,
  data,
  obj,
  expectChannelMatchesLp,
  normalised,
} from '../../../support/lp-helpers';

/** Priors without grid symmetry (so the full model is solved without orbit reduction). */
function priors(n: number): [string, Float64Array][] {
  return [
    ['uniform', Float64Array.from(uniformPrior(n))],
    ['linear', normalised(Array.from({ length: n }, (_, i) => i + 1))],
    ['lumpy', normalised(Array.from({ length: n }, (_, i) => (i % 5 === 2 ? 20 : 1 + (i % 3))))],
  ];
}

/**
 * The optimal mechanism on a 3 x 3 grid at eps 1 with distance loss, every pair constrained, its rows found by
 * generation from an empty seed (seedReach 0) with the given options.
 */
function generatedFromNothing(pi: Float64Array, options: GenerationOptions) {
  return optimalMechanism(gridDomain(3, 3), 1, pi, 'dist', {
    constraints: 'all-pairs',
    generation: 'on',
    generationOptions: { seedReach: 0, ...options },
  });
}

/** Tight-constraints mechanism (SPEC §2) by a dense solve of Phi z = 1, or null when some z < 0. */
function tightChannel(d: Domain, eps: number): Float64Array | null {
  const n = d.n;
  const phi = new Matrix(n, n);
  for (let x = 0; x < n; x++) for (let y = 0; y < n; y++) phi.set(x, y, Math.exp(-eps * d.distance(x, y)));
  const z = solve(phi, new Float64Array(n).fill(1));
  if (!z || z.some((v) => v < 0)) return null;
  const C = new Float64Array(n * n);
  for (let x = 0; x < n; x++) for (let y = 0; y < n; y++) C[x * n + y] = phi.get(x, y) * z[y]!;
  return C;
}

describe('constraint generation for the optimal-mechanism LP (SPEC §2)', () => {
  it('gives the full model optimum (spanner and all pairs, several priors, eps, losses dist and bin) and passes the privacy check', async () => {
    const g = gridDomain(3, 4);
    const n = g.n;
    let checked = 0;
    for (const [name, pi] of priors(n))
      for (const eps of [0.6, 1.4])
        for (const loss of ['dist', 'bin'] as const)
          for (const constraints of ['spanner', 'all-pairs'] as const) {
            const full = await optimalMechanism(g, eps, pi, loss, { constraints, generation: 'off', symmetry: 'off' });
            const cg = await optimalMechanism(g, eps, pi, loss, { constraints, generation: 'on' });
            const what = `${name} eps ${eps} ${loss} ${constraints}`;
            expect(full.facts.solve.generation?.rounds, what).toBeUndefined();
            expect(cg.facts.solve.generation!.rounds, what).toBeGreaterThanOrEqual(1);
            expect(cg.facts.solve.generation!.privacyRows, what).toBeLessThanOrEqual(
              cg.facts.solve.generation!.fullPrivacyRows,
            );
            expect(cg.facts.solve.generation!.fullPrivacyRows, what).toBe(full.facts.solve.constraints - n);
            expect(Math.abs(obj(cg) - obj(full)) / obj(full), what).toBeLessThan(1e-7);
            // The spanner model guarantees eps*d through eps/delta on its edges; all pairs directly.
            expectChannelMatchesLp(cg, g, eps, pi, loss, what);
            checked++;
          }
    expect(checked).toBe(24);
  }, 60_000);

  it('adds rows in rounds when seeded with nothing, and still reaches the optimum', async () => {
    const g = gridDomain(3, 3);
    const pi = priors(9)[2]![1];
    const full = await optimalMechanism(g, 1, pi, 'dist', {
      constraints: 'all-pairs',
      generation: 'off',
      symmetry: 'off',
    });
    const cg = await generatedFromNothing(pi, { batch: 20 });
    expect(cg.facts.solve.generation!.rounds).toBeGreaterThan(3);
    expect(cg.facts.solve.generation!.privacyRows).toBeLessThan(cg.facts.solve.generation!.fullPrivacyRows / 2);
    expect(Math.abs(obj(cg) - obj(full)) / obj(full)).toBeLessThan(1e-7);
    expect(worstPrivacyRatio(data(cg), g, 9, 1)).toBeLessThanOrEqual(1 + 1e-9);
    // Same optimum from the primal formulation (rows appended as rows, dual simplex resumes) and from a first
    // solve by interior point + crossover, then warm dual simplex.
    for (const variant of [{ formulation: 'primal' }, { firstSolver: 'ipm' }] as const) {
      const m = await generatedFromNothing(pi, { batch: 20, ...variant });
      expect(m.facts.solve.generation!.rounds, JSON.stringify(variant)).toBeGreaterThan(3);
      expect(Math.abs(obj(m) - obj(full)) / obj(full), JSON.stringify(variant)).toBeLessThan(1e-7);
    }
  });

  it("the exact model ('exact' through generation) is <= the spanner LP and <= the tight-constraints mechanism's expected loss", async () => {
    const g = gridDomain(4, 4);
    const n = g.n;
    const eps = 1.3;
    const T = tightChannel(g, eps);
    expect(T).not.toBeNull(); // exists at this eps: the comparison is not vacuous
    const dist = (w: number, x: number): number => g.distance(w, x);
    for (const [name, pi] of priors(n)) {
      const exact = await optimalMechanism(g, eps, pi, 'dist', { constraints: 'exact', generation: 'on' });
      const spanner = await optimalMechanism(g, eps, pi, 'dist', { constraints: 'spanner' });
      expect(exact.facts.solve.constraintMode, name).toBe('exact');
      expect(obj(exact), name).toBeLessThanOrEqual(obj(spanner) + 1e-9);
      expect(obj(exact), name).toBeLessThanOrEqual(directLoss(T!, n, n, pi, dist) + 1e-9);
      expect(worstPrivacyRatio(T!, g, n, eps)).toBeLessThanOrEqual(1 + 1e-9);
      expect(worstPrivacyRatio(data(exact), g, n, eps), name).toBeLessThanOrEqual(1 + 1e-9);
    }
  }, 30_000);

  it("'auto' generates for the all-pairs model above the row threshold and agrees with the full solve", async () => {
    const g = gridDomain(5, 5); // 300 pairs x 25 outputs x 2 = 15000 rows: below the threshold
    const pi = priors(25)[1]![1];
    const small = await optimalMechanism(g, 1, pi, 'dist', { constraints: 'all-pairs' });
    expect(small.facts.solve.generation?.rounds).toBeUndefined();
    const g6 = gridDomain(6, 6); // 630 x 36 x 2 = 45360 rows: above
    const pi6 = priors(36)[1]![1];
    const auto = await optimalMechanism(g6, 1, pi6, 'dist', { constraints: 'all-pairs' });
    expect(auto.facts.solve.generation!.rounds).toBeGreaterThanOrEqual(1);
    const full = await optimalMechanism(g6, 1, pi6, 'dist', { constraints: 'all-pairs', generation: 'off' });
    expect(Math.abs(obj(auto) - obj(full)) / obj(full)).toBeLessThan(1e-7);
  }, 60_000);

  it('maximisation (the capacity LP: max trace over private channels) gives the same optimum', async () => {
    const g = gridDomain(3, 4);
    const n = g.n;
    const trace = new Float64Array(n * n);
    for (let i = 0; i < n; i++) trace[i * n + i] = 1;
    const p = {
      domain: g,
      eps: 0.9,
      outputs: n,
      cost: trace,
      sense: 'maximize' as const,
      constraints: 'exact' as const,
      outputsAreSecrets: true,
      symmetry: 'off' as const,
      what: 'a capacity LP',
    };
    const full = await solvePrivateChannelLp({ ...p, generation: 'off' });
    const cg = await solvePrivateChannelLp({ ...p, generation: 'on' });
    expect(cg.generation!.rounds.length).toBeGreaterThanOrEqual(1);
    expect(full.generation).toBeUndefined();
    expect(Math.abs(cg.objective - full.objective) / full.objective).toBeLessThan(1e-7);
    expect(cg.objective).toBeGreaterThan(1); // more than a constant channel's trace
    expect(worstPrivacyRatio(cg.channel, g, n, 0.9)).toBeLessThanOrEqual(1 + 1e-9);
  });

  it('a persistent model re-solved after appending rows equals a fresh solve of the grown model', async () => {
    // max x + y  s.t.  x + 2y <= 4, x <= 3 ; then add  x - y <= 1.
    const build = (withCut: boolean): SparseLp => {
      const lp = new SparseLp(2);
      lp.sense = 'maximize';
      lp.colCost.set([1, 1]);
      lp.addRow2(-Infinity, 4, 0, 1, 1, 2);
      lp.addRow(-Infinity, 3, [0], [1]);
      if (withCut) lp.addRow2(-Infinity, 1, 0, 1, 1, -1);
      return lp;
    };
    // The cut x - y <= 1 (row bounds, column starts, column indices, values), appended to a solved model.
    const cut = () =>
      [
        Float64Array.of(-Infinity),
        Float64Array.of(1),
        Int32Array.of(0, 2),
        Int32Array.of(0, 1),
        Float64Array.of(1, -1),
      ] as const;
    const p = await PersistentLp.open(build(false), 'a persistent LP');
    try {
      expect(p.run().objective).toBeCloseTo(3.5, 12); // x = 3, y = 0.5
      p.addRows(...cut());
      expect(p.numRows).toBe(3);
      const warm = p.run();
      const fresh = await solveSparseLp(build(true), 'the grown LP');
      expect(warm.objective).toBeCloseTo(fresh.objective, 12);
      expect(warm.objective).toBeCloseTo(2 + 1, 12); // x = 2, y = 1
    } finally {
      p.dispose();
    }
    // The dual formulation: the appended rows become columns of the transposed model.
    const d = await PersistentLp.open(build(false), 'a dual LP', { formulation: 'dual' });
    try {
      expect(d.run().objective).toBeCloseTo(3.5, 12);
      d.addRows(...cut());
      const warm = d.run();
      expect(warm.objective).toBeCloseTo(3, 12);
      expect(warm.colValue[0]).toBeCloseTo(2, 12);
      expect(warm.colValue[1]).toBeCloseTo(1, 12);
      expect(() =>
        d.addRows(Float64Array.of(0), Float64Array.of(1), Int32Array.of(0, 1), Int32Array.of(0), Float64Array.of(1)),
      ).toThrow(/one-sided rows/);
    } finally {
      d.dispose();
    }
  });

  it('gives up with MechError too-large after maxRounds, and refuses pair sets too large to track', async () => {
    const err = await generatedFromNothing(priors(9)[1]![1], { batch: 1, maxRounds: 2 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MechError);
    expect((err as MechError).code).toBe('too-large');
    expect((err as MechError).message).toMatch(/did not converge in 2 rounds/);
    const huge = {
      from: new Int32Array(1),
      to: new Int32Array(1),
      exponent: new Float64Array(1),
      factor: new Float64Array(1),
    };
    Object.defineProperty(huge.from, 'length', { value: 2 ** 21 });
    await expect(solveByConstraintGeneration(new SparseLp(4), 2, 2 ** 10, huge, 'a huge LP')).rejects.toMatchObject({
      code: 'too-large',
    });
  });
});
