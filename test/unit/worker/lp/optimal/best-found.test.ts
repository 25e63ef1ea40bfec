/**
 * The optimal request returns the best mechanism found (docs/lp.md, "Never worse than a cheap construction"):
 * planar Laplace, tight constraints and the exponential mechanism, each with its Bayes remap, are tried before
 * the LP; the result is never worse than any of them, names what it is (`chosen`), and its gap is measured
 * against a certified bound on the exact (all-pairs) optimum. Everything is recomputed here: the candidates'
 * channels (exponential and tight from their formulas), their remapped losses by brute force, the returned
 * channel's loss and privacy over all pairs, and the true optimum from the whole all-pairs LP.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../../../src-shared/numeric/seeded-random';
import { buildMechanism } from '../../../../../src-worker/jobs/engine';
import { optimalMechanism, type OptimalLpResult } from '../../../../../src-worker/lp/optimal/optimal-mechanism';
import { closedFormMechanism } from '../../../../../src-worker/mechanism/closed-form-by-kind';
import type { DenseChannel, RowSource } from '../../../../../src-worker/mechanism/channel';
import { parseDomainSpec } from '../../../../../src-worker/metric/parse-domain-spec';
import { Matrix } from '../../../../../src-worker/linalg/matrix';
import { solve } from '../../../../../src-worker/linalg/lu';
import type { Domain } from '../../../../../src-worker/metric/domain';
import { directLoss, exponentialChannel, remappedLoss, worstPrivacyRatio } from '../../../support/lp-helpers';

const never = new AbortController().signal;

function randomPrior(n: number, seed: number): Float64Array {
  const r = seededRandom(seed);
  const p = Float64Array.from({ length: n }, () => 0.05 + r() ** 3);
  const s = p.reduce((a, b) => a + b, 0);
  return p.map((x) => x / s);
}

function dense(ch: RowSource): Float64Array {
  const out = new Float64Array(ch.rows * ch.cols);
  const row = new Float64Array(ch.cols);
  for (let x = 0; x < ch.rows; x++) out.set(ch.row(x, row), x * ch.cols);
  return out;
}

/**
 * The tight-constraints channel Phi diag(z) with Phi z = 1 by a dense LU solve (not the engine's structured path), or
 * null when some z < 0.
 */
function tightChannel(g: Domain, eps: number): Float64Array | null {
  const n = g.n;
  const phi = new Float64Array(n * n);
  for (let x = 0; x < n; x++) for (let y = 0; y < n; y++) phi[x * n + y] = Math.exp(-eps * g.distance(x, y));
  const z = solve(new Matrix(n, n, phi.slice()), new Float64Array(n).fill(1))!;
  if (z.some((v) => v < 0)) return null;
  const C = new Float64Array(n * n);
  for (let x = 0; x < n; x++) for (let y = 0; y < n; y++) C[x * n + y] = phi[x * n + y]! * z[y]!;
  return C;
}

/** The true optimum: the whole all-pairs LP in one model (no decomposition, no generation, no symmetry). */
async function trueOptimum(g: Domain, eps: number, pi: Float64Array): Promise<number> {
  const m = await optimalMechanism(g, eps, pi, 'dist', {
    constraints: 'all-pairs',
    decomposition: 'off',
    generation: 'off',
    symmetry: 'off',
  });
  return m.facts.solve.objective;
}

async function best(g: Domain, eps: number, pi: Float64Array, lp: Record<string, unknown> = {}, stopFlag?: Int32Array) {
  const o = await buildMechanism('optimal', g, eps, {
    prior: pi,
    loss: { kind: 'dist' },
    signal: never,
    progress: () => undefined,
    lp,
    ...(stopFlag ? { stopFlag } : {}),
  });
  if (!o.exists || !o.lp) throw new Error('no mechanism');
  return { C: (o.mechanism.channel as DenseChannel).matrix.data, lp: o.lp as OptimalLpResult };
}

describe('the optimal request: never worse than a cheap construction, certified against the exact optimum', () => {
  const cases: [string, number, number][] = [
    ['grid:4x4', 0.5, 1],
    ['grid:4x4', 1, 2],
    ['grid:4x4', 2, 3],
    ['grid:5x5', 0.7, 4],
    ['grid:5x5:metric=manhattan', 1, 5],
    ['grid:3x5', 1.5, 6],
  ];
  for (const [spec, eps, seed] of cases) {
    it(`${spec} at eps ${eps}, random prior ${seed}`, async () => {
      const g = parseDomainSpec(spec);
      const n = g.n;
      const pi = randomPrior(n, seed);
      const dist = (w: number, x: number) => g.distance(w, x);
      const { C, lp } = await best(g, eps, pi);
      // the candidates' expected losses, recomputed: channels from their formulas (planar Laplace from the engine),
      // remap by brute force
      const channels: Record<string, Float64Array | null> = {
        'planar-laplace+remap': dense(closedFormMechanism('planar-laplace', g, eps).channel),
        'tight+remap': tightChannel(g, eps),
        'exponential+remap': exponentialChannel(g, eps),
      };
      expect(lp.candidates.map((c) => c.construction)).toEqual(Object.keys(channels));
      for (const c of lp.candidates) {
        const ch = channels[c.construction]!;
        if (ch === null) {
          expect(c.expectedLoss).toBeNull();
          expect(c.note).toMatchObject({ kind: 'tight-does-not-exist' });
          continue;
        }
        const want = remappedLoss(ch, n, n, pi, dist);
        expect(Math.abs(c.expectedLoss! - want)).toBeLessThan(1e-9 * want);
        // never worse than any candidate
        expect(lp.objective).toBeLessThanOrEqual(c.expectedLoss!);
      }
      // the returned channel is what the record says, and private over all pairs
      expect(Math.abs(directLoss(C, n, n, pi, dist) - lp.objective)).toBeLessThan(1e-9 * lp.objective);
      expect(worstPrivacyRatio(C, g, n, eps)).toBeLessThanOrEqual(1 + 1e-9);
      // the bound is certified: below the true optimum, and the gap covers the true distance to it
      const opt = await trueOptimum(g, eps, pi);
      expect(lp.gapBasis).toBe('exact');
      expect(lp.exactLowerBound!).toBeLessThanOrEqual(opt * (1 + 1e-9));
      expect(lp.objective).toBeGreaterThanOrEqual(opt * (1 - 1e-9));
      expect(lp.gap).toBeGreaterThanOrEqual((lp.objective - opt) / lp.objective - 1e-9);
      expect(lp.gap).toBeLessThan(1e-5);
      expect(lp.chosen).toBe('lp');
    }, 60_000);
  }

  it('a stopped LP returns the cheapest candidate, named, with its remapped channel and an honest gap', async () => {
    const g = parseDomainSpec('grid:5x5');
    const n = g.n;
    const eps = 1;
    const pi = randomPrior(n, 11);
    const dist = (w: number, x: number) => g.distance(w, x);
    const stop = new Int32Array(1).fill(1);
    const { C, lp } = await best(g, eps, pi, {}, stop);
    expect(lp.stoppedBy).toBe('stopped');
    const built = lp.candidates.filter((c) => c.expectedLoss !== null);
    const cheapest = built.reduce((a, b) => (b.expectedLoss! < a.expectedLoss! ? b : a));
    expect(lp.chosen).toBe(cheapest.construction);
    expect(lp.objective).toBe(cheapest.expectedLoss);
    expect(lp.lpObjective).toBeGreaterThan(lp.objective);
    // the returned channel is the candidate's C . R: its direct loss is the candidate's remapped loss
    expect(Math.abs(directLoss(C, n, n, pi, dist) - cheapest.expectedLoss!)).toBeLessThan(
      1e-9 * cheapest.expectedLoss!,
    );
    expect(worstPrivacyRatio(C, g, n, eps)).toBeLessThanOrEqual(1 + 1e-9);
    // no round was priced: the only certified bound is 0 (losses >= 0), gap 1, said plainly
    expect(lp.exactLowerBound).toBe(0);
    expect(lp.gap).toBe(1);
  }, 60_000);

  it('the spanner model only when asked; its exact bound (small grids) still certifies the gap against the true optimum', async () => {
    const g = parseDomainSpec('grid:5x5');
    const pi = randomPrior(g.n, 12);
    const auto = await best(g, 1, pi);
    expect(auto.lp.model).toBe('exact');
    const sp = await best(g, 1, pi, { lpModel: 'spanner', delta: 1.5 });
    expect(sp.lp.model).toBe('spanner');
    const opt = await trueOptimum(g, 1, pi);
    expect(sp.lp.gapBasis).toBe('exact');
    expect(sp.lp.exactLowerBound!).toBeLessThanOrEqual(opt * (1 + 1e-9));
    expect(sp.lp.gap).toBeGreaterThanOrEqual((sp.lp.objective - opt) / sp.lp.objective - 1e-9);
    expect(sp.lp.objective).toBeGreaterThanOrEqual(auto.lp.objective * (1 - 1e-9));
  }, 60_000);
});

describe('the whole orbit model on small symmetric problems, with the decomposition behind it', () => {
  it('a uniform prior on 5 x 5: one full model over orbits, the same optimum as the decomposition', async () => {
    const g = parseDomainSpec('grid:5x5');
    const pi = new Float64Array(g.n).fill(1 / g.n);
    const whole = await best(g, 1, pi);
    expect(whole.lp.method).toBe('full-model');
    const dec = await optimalMechanism(g, 1, pi, 'dist', { model: 'exact', symmetry: 'off', targetGap: 1e-9 });
    expect(dec.lp.method).toBe('decomposition');
    expect(Math.abs(whole.lp.objective - dec.lp.objective)).toBeLessThan(1e-7 * dec.lp.objective);
  }, 60_000);

  it('Stop during the whole orbit model returns the best mechanism found at once (the seeded decomposition), private', async () => {
    const g = parseDomainSpec('grid:8x8');
    const pi = new Float64Array(g.n).fill(1 / g.n);
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const messages: string[] = [];
    const o = await buildMechanism('optimal', g, 0.5, {
      prior: pi,
      loss: { kind: 'dist' },
      signal: never,
      // Stop pressed as the one-model solve starts (it takes about a second here: without a stop test it runs to the
      // end)
      progress: (_f, m) => {
        messages.push(m);
        if (/reduced to \d+ orbit variables/.test(m)) Atomics.store(stop, 0, 1);
      },
      lp: {},
      stopFlag: stop,
    });
    if (!o.exists || !o.lp) throw new Error('no mechanism');
    const lp = o.lp as OptimalLpResult;
    expect(messages.some((m) => /orbit variables/.test(m))).toBe(true);
    expect(lp.stoppedBy).toBe('stopped');
    expect(lp.method).toBe('decomposition');
    const cheapest = Math.min(...lp.candidates.filter((c) => c.expectedLoss !== null).map((c) => c.expectedLoss!));
    expect(lp.objective).toBeLessThanOrEqual(cheapest * (1 + 1e-12));
    const C = (o.mechanism.channel as DenseChannel).matrix.data;
    expect(worstPrivacyRatio(C, g, g.n, 0.5)).toBeLessThanOrEqual(1 + 1e-9);
  }, 60_000);

  it('where the whole model fails numerically (grid:3x3 at eps 30, factors up to e^30) the decomposition answers', async () => {
    const g = parseDomainSpec('grid:3x3');
    const pi = new Float64Array(g.n).fill(1 / g.n);
    const { C, lp } = await best(g, 30, pi);
    expect(lp.method).toBe('decomposition');
    // each cell is kept with probability 1 - O(8 e^-30): the expected distance is about 0
    expect(lp.objective).toBeLessThan(1e-10);
    expect(worstPrivacyRatio(C, g, g.n, 30)).toBeLessThanOrEqual(1 + 1e-9);
  }, 60_000);
});
