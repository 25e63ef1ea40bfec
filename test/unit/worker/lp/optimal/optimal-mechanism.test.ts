import { describe, expect, it } from 'vitest';
import { MechError } from '../../../../../src-shared/errors';
import { Matrix } from '../../../../../src-worker/linalg/matrix';
import { gridOutputSet } from '../../../../../src-worker/lp/optimal/loss-input';
import { optimalMechanism } from '../../../../../src-worker/lp/optimal/optimal-mechanism';
import { uniformPrior } from '../../../../../src-worker/measure/prior';
import { cliqueDomain } from '../../../../../src-worker/metric/clique';
import { gridDomain } from '../../../../../src-worker/metric/grid';
import { lineDomain } from '../../../../../src-worker/metric/line';
import { ringDomain } from '../../../../../src-worker/metric/ring';
import {
  directLoss,
  exponentialChannel,
  remappedLoss,
  rrChannel,
  tgChannel,
  worstPrivacyRatio,
  data,
} from '../../../support/lp-helpers';

describe('optimal mechanism LP (SPEC §2)', () => {
  it('is eps*d-private and beats TG, RR and exponential on a line with distance loss', async () => {
    const N = 7;
    const d = lineDomain(N);
    const eps = 0.7;
    const pi = [0.05, 0.1, 0.3, 0.2, 0.15, 0.12, 0.08];
    const loss = (w: number, x: number): number => Math.abs(w - x);
    const mech = await optimalMechanism(d, eps, pi, 'dist');
    const C = data(mech);
    expect(mech.kind).toBe('optimal');
    expect(mech.facts.solve.constraintMode).toBe('edges');
    expect(worstPrivacyRatio(C, d, N, eps)).toBeLessThanOrEqual(1 + 1e-7);
    const opt = directLoss(C, N, N, pi, loss);
    expect(Math.abs(opt - mech.facts.solve.objective)).toBeLessThan(1e-9);
    for (const other of [tgChannel(N, eps), rrChannel(N, eps), exponentialChannel(d, eps)]) {
      expect(worstPrivacyRatio(other, d, N, eps)).toBeLessThanOrEqual(1 + 1e-9);
      expect(opt).toBeLessThanOrEqual(remappedLoss(other, N, N, pi, loss) + 1e-9);
    }
    // TG is universally optimal on a line (Ghosh et al.): with an optimal remap it attains the LP optimum.
    expect(Math.abs(remappedLoss(tgChannel(N, eps), N, N, pi, loss) - opt)).toBeLessThan(1e-9);
  });

  it('clique, binary loss, uniform prior: optimum = 1 - RR utility (6 categories: 1 - 2/7)', async () => {
    const mech = await optimalMechanism(cliqueDomain(6), Math.LN2, uniformPrior(6), 'bin');
    expect(Math.abs(mech.facts.solve.objective - 5 / 7)).toBeLessThan(1e-9);
    for (const n of [3, 4]) {
      const m = await optimalMechanism(cliqueDomain(n), 1.2, uniformPrior(n), 'bin');
      const rrUtility = Math.exp(1.2) / (Math.exp(1.2) + n - 1);
      expect(Math.abs(m.facts.solve.objective - (1 - rrUtility))).toBeLessThan(1e-9);
    }
  });

  it('Euclidean grid: the spanner optimum lies between the exact optimum and the optimum at eps/delta', async () => {
    for (const [r, c, delta] of [
      [4, 4, 1.1],
      [3, 5, 1.3],
    ] as const) {
      const g = gridDomain(r, c);
      const n = r * c;
      const pi = Array.from({ length: n }, (_, i) => (i + 1) / ((n * (n + 1)) / 2));
      const eps = 0.9;
      const spanner = await optimalMechanism(g, eps, pi, 'dist', { delta });
      const exact = await optimalMechanism(g, eps, pi, 'dist', { constraints: 'all-pairs' });
      const reduced = await optimalMechanism(g, eps, pi, 'dist', { constraints: 'exact' });
      const dilated = await optimalMechanism(g, eps / delta, pi, 'dist', { constraints: 'all-pairs' });
      expect(spanner.facts.solve.constraintMode).toBe('spanner');
      expect(spanner.facts.solve.delta).toBe(delta);
      const s = spanner.facts.solve.objective;
      const e = exact.facts.solve.objective;
      expect(Math.abs(reduced.facts.solve.objective - e)).toBeLessThan(1e-9);
      expect(reduced.facts.solve.constrainedPairs).toBeLessThan(exact.facts.solve.constrainedPairs);
      expect(s).toBeGreaterThanOrEqual(e - 1e-9);
      expect(s).toBeLessThanOrEqual(dilated.facts.solve.objective + 1e-9);
      expect(worstPrivacyRatio(data(spanner), g, n, eps)).toBeLessThanOrEqual(1 + 1e-7);
    }
  });

  it('symmetry reduction: same optimum with one variable per orbit, only when prior and loss are invariant', async () => {
    for (const [d, gens, factor] of [
      [gridDomain(4, 4), 7, 7],
      [gridDomain(3, 5), 3, 3.4],
      [lineDomain(6), 1, 1.9],
      [ringDomain(8), 2, 7],
      [cliqueDomain(6), 2, 17],
    ] as const) {
      const u = uniformPrior(d.n);
      const loss = d.kind === 'clique' ? 'bin' : 'dist';
      const red = await optimalMechanism(d, 0.8, u, loss);
      const full = await optimalMechanism(d, 0.8, u, loss, { symmetry: 'off' });
      expect(red.facts.solve.symmetries).toBe(gens);
      expect(full.facts.solve.symmetries).toBe(0);
      expect(red.facts.solve.reducedVariables).toBeLessThan(full.facts.solve.reducedVariables / factor);
      expect(Math.abs(red.facts.solve.objective - full.facts.solve.objective)).toBeLessThan(1e-9);
      expect(worstPrivacyRatio(data(red), d, d.n, 0.8)).toBeLessThanOrEqual(1 + 1e-7);
    }
    const skew = Array.from({ length: 16 }, (_, i) => (i + 1) / 136);
    const m = await optimalMechanism(gridDomain(4, 4), 0.8, skew, 'dist');
    expect(m.facts.solve.symmetries).toBe(0);
  });

  it('accepts a loss matrix, a loss function and a separate output grid', async () => {
    const d = lineDomain(4);
    const pi = [0.4, 0.3, 0.2, 0.1];
    const lm = new Matrix(4, 4);
    for (let w = 0; w < 4; w++) for (let x = 0; x < 4; x++) lm.set(w, x, (w - x) ** 2);
    const a = await optimalMechanism(d, 1, pi, lm);
    const b = await optimalMechanism(d, 1, pi, (w, x) => (w - x) ** 2);
    const c = await optimalMechanism(d, 1, pi, 'dist2');
    expect(Math.abs(a.facts.solve.objective - b.facts.solve.objective)).toBeLessThan(1e-12);
    expect(Math.abs(a.facts.solve.objective - c.facts.solve.objective)).toBeLessThan(1e-12);

    // 4x4 secrets, outputs on a 2x2 grid of double cells centred between them.
    const g = gridDomain(4, 4);
    const out = gridOutputSet(g, 2, 2, 2, [0.5, 0.5]);
    const m = await optimalMechanism(g, 1, uniformPrior(16), 'dist', { outputs: out });
    const C = data(m);
    expect(m.channel.cols).toBe(4);
    expect(m.channel.colLabel(3)).toBe('out(1,1)');
    expect(worstPrivacyRatio(C, g, 4, 1)).toBeLessThanOrEqual(1 + 1e-7);
    // Never worse than reporting the output nearest the grid centre for everyone (loss of a constant row).
    let constant = Infinity;
    for (let w = 0; w < 4; w++) {
      let s = 0;
      for (let x = 0; x < 16; x++) s += out.distanceToSecret!(w, x) / 16;
      constant = Math.min(constant, s);
    }
    expect(m.facts.solve.objective).toBeLessThanOrEqual(constant + 1e-12);
    expect(m.facts.solve.objective).toBeGreaterThan(0);
  });

  it('reports phases and honours cancellation', async () => {
    const phases: string[] = [];
    await optimalMechanism(lineDomain(5), 1, uniformPrior(5), 'bin', {
      onProgress: (f, msg) => phases.push(`${f}:${msg.split(' ')[0]}`),
    });
    // building the model counts from 10% (a coarse start, when there is one, takes 1-10%)
    expect(phases[0]).toMatch(/^0\.1:building/);
    expect(phases.some((p) => p.startsWith('0.5:solving'))).toBe(true);
    expect(phases.some((p) => p.startsWith('0.9:extracting'))).toBe(true);
    expect(phases.at(-1)).toMatch(/^1:/);
    const ac = new AbortController();
    ac.abort();
    await expect(
      optimalMechanism(lineDomain(5), 1, uniformPrior(5), 'bin', { signal: ac.signal }),
    ).rejects.toMatchObject({ code: 'cancelled' });
  });

  it('interior point without crossover: near-optimal and still exactly private after the repair', async () => {
    const g = gridDomain(4, 4);
    const pi = Array.from({ length: 16 }, (_, i) => (1 + (i % 3)) / 31);
    const vertex = await optimalMechanism(g, 1, pi, 'dist', { solver: 'simplex' });
    const interior = await optimalMechanism(g, 1, pi, 'dist', { solver: 'ipm', crossover: false });
    const v = vertex.facts.solve.objective;
    const i = interior.facts.solve.objective;
    expect(i).toBeGreaterThanOrEqual(v - 1e-9);
    expect((i - v) / v).toBeLessThan(1e-6);
    expect(worstPrivacyRatio(data(interior), g, 16, 1)).toBeLessThanOrEqual(1 + 1e-9);
  });

  it('a shared cancel flag stops a running solve at a solver checkpoint', async () => {
    const g = gridDomain(5, 5);
    const skew = Array.from({ length: 25 }, (_, i) => (1 + (i % 4)) / 61);
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const ok = await optimalMechanism(g, 1, skew, 'dist', { cancelFlag: flag, solver: 'simplex' });
    expect(ok.facts.solve.status).toBe('optimal');
    Atomics.store(flag, 0, 1); // as the dispatcher would from another thread
    await expect(optimalMechanism(g, 1, skew, 'dist', { cancelFlag: flag, solver: 'simplex' })).rejects.toMatchObject({
      code: 'cancelled',
      message: expect.stringMatching(/cancelled during the solve/),
    });
  });

  it('bad input gives a MechError naming the problem', async () => {
    const d = lineDomain(3);
    const u = uniformPrior(3);
    await expect(optimalMechanism(d, 0, u, 'bin')).rejects.toThrow(/epsilon/);
    await expect(optimalMechanism(d, 1, [0.5, 0.5], 'bin')).rejects.toThrow(/prior has 2 entries/);
    await expect(optimalMechanism(d, 1, u, new Matrix(2, 3))).rejects.toThrow(/loss matrix is 2 x 3/);
    await expect(optimalMechanism(d, 1, u, () => NaN)).rejects.toThrow(/not a finite number/);
    await expect(optimalMechanism(d, 1, u, 'dist', { outputs: { n: 2, label: String } })).rejects.toThrow(
      /needs distances/,
    );
    await expect(optimalMechanism(d, 1, u, 'bin', { delta: 0.5, constraints: 'spanner' })).rejects.toThrow(
      /dilation delta/,
    );
    await expect(
      optimalMechanism(gridDomain(3, 3), 1, uniformPrior(9), 'bin', { constraints: 'edges' }),
    ).rejects.toThrow(/no graph edges/);
    await expect(optimalMechanism(d, 1, u, 'bin', { timeLimitSeconds: -1 })).rejects.toThrow(/time limit/);
  });

  it('a solve that reaches the time limit gives a MechError naming the limit', async () => {
    const g = gridDomain(6, 6);
    const skew = Array.from({ length: 36 }, (_, i) => (1 + (i % 5)) / 106);
    const err = await optimalMechanism(g, 1, skew, 'dist', { timeLimitSeconds: 1e-3 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MechError);
    expect((err as MechError).code).toBe('too-large');
    expect((err as MechError).message).toMatch(/not solved within the 0.001 s limit/);
  });

  it('an oversized model is refused early with the memory estimate', async () => {
    const g = gridDomain(30, 30);
    const skew = Array.from({ length: 900 }, (_, i) => (1 + (i % 2)) / 1350);
    const err = await optimalMechanism(g, 1, skew, 'dist', { constraints: 'all-pairs' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MechError);
    expect((err as MechError).code).toBe('too-large');
    expect((err as MechError).message).toMatch(/would need about \d+ MiB of solver memory/);
  });
});
