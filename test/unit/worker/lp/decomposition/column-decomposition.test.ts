import { describe, expect, it } from 'vitest';
import { MechError } from '../../../../../src-shared/errors';
import {
  privateStartChannel,
  solveByColumnDecomposition,
} from '../../../../../src-worker/lp/decomposition/column-decomposition';
import { ColumnLifter } from '../../../../../src-worker/lp/model/privacy-repair';
import { optimalMechanism } from '../../../../../src-worker/lp/optimal/optimal-mechanism';
import {
  privacyConstraintGraph,
  type ConstraintMode,
} from '../../../../../src-worker/lp/model/privacy-constraint-graph';
import type { DecompositionProblem } from '../../../../../src-worker/lp/decomposition/decomposition-setup';
import { uniformPrior } from '../../../../../src-worker/measure/prior';
import type { Domain } from '../../../../../src-worker/metric/domain';
import { gridDomain } from '../../../../../src-worker/metric/grid';
import { lineDomain } from '../../../../../src-worker/metric/line';
import { worstPrivacyRatio, obj, expectChannelMatchesLp, normalised } from '../../../support/lp-helpers';

/** The channel LP on g with its pair rows at eps (mode) and the given costs, as the decomposition takes it. */
function channelLp(
  g: Domain,
  eps: number,
  mode: ConstraintMode,
  cost: Float64Array,
  sense: DecompositionProblem['sense'] = 'minimize',
): DecompositionProblem {
  const graph = privacyConstraintGraph(g, eps, mode);
  const factor = Float64Array.from(graph.exponent, (e) => Math.exp(e));
  return { n: g.n, m: g.n, cost, sense, pairs: { from: graph.from, to: graph.to, factor }, what: 'test LP' };
}

/** cost[x*n + w] = pi_x d(x, w): the expected distance loss of a channel. */
function distanceCost(g: Domain, pi: Float64Array): Float64Array {
  const n = g.n;
  const cost = new Float64Array(n * n);
  for (let x = 0; x < n; x++) for (let w = 0; w < n; w++) cost[x * n + w] = pi[x]! * g.distance(x, w);
  return cost;
}

/** Every row of the n x n channel C sums to 1 within tol. */
function expectRowsSumToOne(C: Float64Array, n: number, tol: number): void {
  for (let x = 0; x < n; x++) {
    let s = 0;
    for (let w = 0; w < n; w++) s += C[x * n + w]!;
    expect(Math.abs(s - 1)).toBeLessThan(tol);
  }
}

describe('decomposition by output column of the channel LP (SPEC §2)', () => {
  it('gives the full model optimum (spanner, edges and all pairs; several priors, eps, losses) with a certified bound, and passes the privacy check', async () => {
    const g = gridDomain(3, 4);
    const n = g.n;
    const priors: [string, Float64Array][] = [
      ['uniform', Float64Array.from(uniformPrior(n))],
      ['lumpy', normalised(Array.from({ length: n }, (_, i) => (i % 5 === 2 ? 20 : 1 + (i % 3))))],
    ];
    let checked = 0;
    for (const [name, pi] of priors)
      for (const eps of [0.5, 1.4])
        for (const loss of ['dist', 'bin'] as const)
          for (const constraints of ['spanner', 'all-pairs'] as const) {
            const what = `${name} eps ${eps} ${loss} ${constraints}`;
            const full = await optimalMechanism(g, eps, pi, loss, {
              constraints,
              generation: 'off',
              decomposition: 'off',
              symmetry: 'off',
            });
            const dw = await optimalMechanism(g, eps, pi, loss, { constraints, decomposition: 'on' });
            expect(full.facts.solve.decomposition?.rounds, what).toBeUndefined();
            expect(dw.facts.solve.decomposition!.rounds, what).toBeGreaterThanOrEqual(1);
            expect(Math.abs(obj(dw) - obj(full)) / obj(full), what).toBeLessThan(1e-7);
            // The Lagrangian bound is below the optimum and within the 1e-9 stopping gap of the master's objective.
            const lb = dw.lp.lowerBound;
            expect(lb, what).toBeLessThanOrEqual(obj(full) * (1 + 1e-9));
            expect(dw.facts.solve.decomposition!.relativeGap, what).toBeLessThanOrEqual(1e-9);
            expectChannelMatchesLp(dw, g, eps, pi, loss, what);
            checked++;
          }
    expect(checked).toBe(16);
  }, 120_000);

  it('on a line (edge constraints) matches the truncated geometric optimum for binary gain, an independent closed form (SPEC §2, §7)', async () => {
    // TG on 0..5 at eps = ln 2 is optimal for the uniform prior: utility (sum of column maxima)/6 with first row
    // 32,8,4,2,1,1 over 48.
    const d = lineDomain(6);
    const m = await optimalMechanism(d, Math.LN2, uniformPrior(6), 'bin', { decomposition: 'on' });
    const a = 0.5;
    // TG columns maxima: ends 1/(1+a), interior (1-a)/(1+a)
    const util = (2 / (1 + a) + 4 * ((1 - a) / (1 + a))) / 6;
    expect(obj(m)).toBeCloseTo(1 - util, 10);
  });

  it('called directly: the optimum of the full model, rows summing to 1', async () => {
    const g = gridDomain(4, 4);
    const pi = normalised(Array.from({ length: 16 }, (_, i) => 1 + (i % 3)));
    const full = await optimalMechanism(g, 1, pi, 'dist', { constraints: 'spanner', symmetry: 'off' });
    expect(full.facts.solve.decomposition?.rounds).toBeUndefined();
    const r = await solveByColumnDecomposition(channelLp(g, 1, 'spanner', distanceCost(g, pi)));
    expect(Math.abs(r.objective - obj(full)) / obj(full)).toBeLessThan(1e-8);
    expect(r.bound).toBeLessThanOrEqual(r.objective);
    // Rows of the assembled channel sum to 1 (up to the solver tolerance) and every column is eps*d-private on the
    // spanner.
    expectRowsSumToOne(r.channel, 16, 1e-8);
  });

  it('maximisation: the bound is above the objective, and bad options are refused', async () => {
    const g = gridDomain(2, 3);
    // max sum_x C[x][x] (the multiplicative capacity-like objective restricted to the diagonal)
    const cost = new Float64Array(36);
    for (let x = 0; x < 6; x++) cost[x * 6 + x] = 1;
    const lp = channelLp(g, 1, 'spanner', cost, 'maximize');
    const r = await solveByColumnDecomposition(lp);
    expect(r.bound).toBeGreaterThanOrEqual(r.objective - 1e-12);
    expect(r.objective).toBeGreaterThan(1);
    await expect(solveByColumnDecomposition(lp, undefined, { smoothing: 1 })).rejects.toThrow(MechError);
  });
});

describe('the decomposition on a concentrated prior at small eps (degenerate masters)', () => {
  // A population bump: before the start channel, the first master was the constant channel (a degenerate
  // vertex) and the loop gave up as 'stalled' after 21 rounds at a 80-100% gap on all of these.
  const bump = (side: number): Float64Array =>
    normalised(
      Array.from(
        { length: side * side },
        (_, i) => Math.exp(-((Math.floor(i / side) - side / 3) ** 2 + ((i % side) - side / 2) ** 2) / 4) + 1e-3,
      ),
    );

  it.each<[number, number, ConstraintMode]>([
    [5, 1.3, 'spanner'],
    [4, 0.7, 'all-pairs'],
    [6, 2, 'spanner'],
  ])(
    'the start channel (exponential mechanism at half eps from the lifted indicators) is row-stochastic and eps*d-private: side %i, eps %f, %s',
    (side, eps, mode) => {
      const g = gridDomain(side, side);
      const n = g.n;
      const graph = privacyConstraintGraph(g, eps, mode);
      const lifter = new ColumnLifter(
        n,
        graph.from,
        graph.to,
        Float64Array.from(graph.exponent, (e) => Math.exp(e)),
      );
      const lifted = Array.from({ length: n }, (_, w) => {
        const r = new Float64Array(n);
        r[w] = 1;
        return lifter.lift(r);
      });
      const cols = privateStartChannel(lifted);
      const C = new Float64Array(n * n);
      for (let w = 0; w < n; w++) for (let x = 0; x < n; x++) C[x * n + w] = cols[w]![x]!;
      expectRowsSumToOne(C, n, 1e-12);
      // Brute force over all pairs: the spanner's polytope lies inside the exact one, so eps*d holds everywhere.
      expect(worstPrivacyRatio(C, g, n, eps), `${side} ${eps} ${mode}`).toBeLessThanOrEqual(1 + 1e-12);
      // Every output is used (the constant channel, the old first master, uses one).
      for (let w = 0; w < n; w++) expect(C[w * n + w]!).toBeGreaterThan(1 / n);
    },
  );

  it('reaches the full model optimum (spanner and all pairs) instead of stalling at the constant channel', async () => {
    for (const [side, eps, constraints] of [
      [6, 0.3, 'spanner'],
      [7, 0.5, 'spanner'],
      [6, 0.4, 'all-pairs'],
    ] as const) {
      const g = gridDomain(side, side);
      const n = g.n;
      const pi = bump(side);
      const what = `${side}x${side} eps ${eps} ${constraints}`;
      const full = await optimalMechanism(g, eps, pi, 'dist', {
        constraints,
        generation: 'off',
        decomposition: 'off',
        symmetry: 'off',
      });
      const cost = distanceCost(g, pi);
      const r = await solveByColumnDecomposition(channelLp(g, eps, constraints, cost));
      expect(r.stoppedBy, what).toBe('optimal');
      expect(Math.abs(r.objective - obj(full)) / obj(full), what).toBeLessThan(1e-8);
      expect(r.bound, what).toBeLessThanOrEqual(obj(full) * (1 + 1e-9));
      // The constant channel's loss (the old answer) is well above the optimum here.
      let constant = Infinity;
      for (let w = 0; w < n; w++) {
        let s = 0;
        for (let x = 0; x < n; x++) s += cost[x * n + w]!;
        constant = Math.min(constant, s);
      }
      expect(constant, what).toBeGreaterThan(obj(full) * 1.005);
    }
  }, 120_000);
});
