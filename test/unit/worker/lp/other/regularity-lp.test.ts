import { describe, expect, it } from 'vitest';
import { luFactor, luSolveTransposed } from '../../../../../src-worker/linalg/lu';
import { decideRegularityByLP } from '../../../../../src-worker/lp/other/regularity-lp';
import { uniformPrior } from '../../../../../src-worker/measure/prior';
import { type Domain, phiMatrix } from '../../../../../src-worker/metric/domain';
import { lineDomain } from '../../../../../src-worker/metric/line';
import { twinDomain } from '../../../support/channel-fixtures';

function muPhi(mu: Float64Array, d: Domain, eps: number): Float64Array {
  const phi = phiMatrix(d, eps);
  const out = new Float64Array(d.n);
  for (let x = 0; x < d.n; x++) for (let y = 0; y < d.n; y++) out[y]! += mu[x]! * phi.get(x, y);
  return out;
}

describe('regularity by LP feasibility (SPEC §5)', () => {
  it('non-singular Phi: agrees with the linear solve mu = pi Phi^-1 (regular iff mu >= 0)', async () => {
    const d = lineDomain(5);
    for (const [eps, pi] of [
      [1, uniformPrior(5)],
      [1, Float64Array.from([0.6, 0.1, 0.1, 0.1, 0.1])],
      [0.2, Float64Array.from([0.02, 0.02, 0.92, 0.02, 0.02])],
      [3, Float64Array.from([0.02, 0.02, 0.92, 0.02, 0.02])],
    ] as const) {
      const mu = luSolveTransposed(luFactor(phiMatrix(d, eps)), Float64Array.from(pi));
      const expected = Array.from(mu).every((v) => v >= -1e-12);
      const r = await decideRegularityByLP(d, eps, pi);
      expect(r.regular).toBe(expected);
      if (expected) for (let i = 0; i < 5; i++) expect(Math.abs(r.mu![i]! - mu[i]!)).toBeLessThan(1e-9);
      else expect(r.mu).toBeUndefined();
    }
  });

  it('singular Phi: feasible priors give mu >= 0 with mu Phi = pi; others are not regular', async () => {
    const d = twinDomain();
    const eps = Math.log(2);
    const ok = [0.2, 0.2, 0.3, 0.3];
    const r = await decideRegularityByLP(d, eps, ok);
    expect(r.regular).toBe(true);
    const back = muPhi(r.mu!, d, eps);
    for (let i = 0; i < 4; i++) {
      expect(r.mu![i]!).toBeGreaterThanOrEqual(0);
      expect(Math.abs(back[i]! - ok[i]!)).toBeLessThan(1e-9);
    }
    // Twins must get equal prior mass (their Phi rows are equal).
    expect((await decideRegularityByLP(d, eps, [0.3, 0.1, 0.3, 0.3])).regular).toBe(false);
    // Mass concentrated on b: needs negative weights on its neighbours.
    expect((await decideRegularityByLP(d, eps, [0.05, 0.05, 0.85, 0.05])).regular).toBe(false);
  });

  it('rejects a bad prior or epsilon', async () => {
    await expect(decideRegularityByLP(lineDomain(3), 1, [0.5, 0.6, -0.1])).rejects.toThrow(/negative/);
    await expect(decideRegularityByLP(lineDomain(3), NaN, uniformPrior(3))).rejects.toThrow(/epsilon/);
  });
});
