import { describe, expect, it } from 'vitest';
import {
  discreteAdditiveCapacity,
  discreteMultiplicativeCapacity,
  lineMultiplicativeCapacity,
} from '../../../../src-worker/capacity/capacity-closed-forms';
import { privacyTypeCapacities } from '../../../../src-worker/capacity/privacy-type-capacity';
import { cliqueDomain } from '../../../../src-worker/metric/clique';
import { gridDomain } from '../../../../src-worker/metric/grid';
import { lineDomain } from '../../../../src-worker/metric/line';
import { MechError } from '../../../../src-shared/errors';
import { worstPrivacyRatio } from '../../support/lp-helpers';

describe('privacy-type capacities by LP (SPEC §6, §7)', () => {
  it('line, eps = ln 2: SPEC §7 multiplicative and additive values for N = 2..6', async () => {
    const mult = [4 / 3, 5 / 3, 2, 7 / 3, 8 / 3];
    const add = [1 / 3, 1 / 2, 2 / 3, 3 / 4, 5 / 6];
    for (let N = 2; N <= 6; N++) {
      const c = await privacyTypeCapacities(lineDomain(N), Math.LN2);
      expect(c.multiplicative).toBeCloseTo(mult[N - 2]!, 7);
      expect(c.additive).toBeCloseTo(add[N - 2]!, 7);
      expect(Math.abs(c.multiplicative - lineMultiplicativeCapacity(N, Math.LN2))).toBeLessThan(1e-7);
    }
  });

  it('discrete metric, eps = ln 2: SPEC §7 multiplicative values for n = 2..5', async () => {
    const mult = [4 / 3, 3 / 2, 8 / 5, 5 / 3];
    for (let n = 2; n <= 5; n++) {
      const c = await privacyTypeCapacities(cliqueDomain(n), Math.LN2);
      expect(Math.abs(c.multiplicative - mult[n - 2]!)).toBeLessThan(1e-7);
      expect(Math.abs(c.additive - discreteAdditiveCapacity(n, Math.LN2))).toBeLessThan(1e-7);
    }
  });

  it('closed forms match the LP for other eps (line and discrete)', async () => {
    for (const eps of [0.3, 1.7]) {
      for (const N of [3, 5, 7]) {
        const c = await privacyTypeCapacities(lineDomain(N), eps);
        expect(Math.abs(c.multiplicative - lineMultiplicativeCapacity(N, eps))).toBeLessThan(1e-7);
      }
      for (const n of [2, 4, 6]) {
        const c = await privacyTypeCapacities(cliqueDomain(n), eps);
        expect(Math.abs(c.multiplicative - discreteMultiplicativeCapacity(n, eps))).toBeLessThan(1e-7);
        expect(Math.abs(c.additive - discreteAdditiveCapacity(n, eps))).toBeLessThan(1e-7);
      }
    }
  });

  it('returns private mechanisms achieving both capacities', async () => {
    const d = lineDomain(5);
    const c = await privacyTypeCapacities(d, Math.LN2);
    for (const [mech, target] of [
      [c.multiplicativeMechanism, c.multiplicative],
      [c.additiveMechanism, 1 - c.additive],
    ] as const) {
      const m = (mech.channel as unknown as { matrix: { data: Float64Array } }).matrix.data;
      let trace = 0;
      for (let i = 0; i < 5; i++) {
        trace += m[i * 5 + i]!;
        let s = 0;
        for (let j = 0; j < 5; j++) s += m[i * 5 + j]!;
        expect(Math.abs(s - 1)).toBeLessThan(1e-12);
      }
      expect(Math.abs(trace - target)).toBeLessThan(1e-9);
      expect(worstPrivacyRatio(m, d, 5, Math.LN2)).toBeLessThanOrEqual(1 + 1e-9);
    }
  });

  it('Euclidean grid capacities use exact constraints: equal to the all-pairs LP', async () => {
    const g = gridDomain(3, 3);
    const exact = await privacyTypeCapacities(g, 0.8);
    const all = await privacyTypeCapacities(g, 0.8, { constraints: 'all-pairs' });
    expect(Math.abs(exact.multiplicative - all.multiplicative)).toBeLessThan(1e-8);
    expect(Math.abs(exact.additive - all.additive)).toBeLessThan(1e-8);
  });

  it('rejects a bad epsilon with a MechError', async () => {
    await expect(privacyTypeCapacities(lineDomain(3), 0)).rejects.toThrow(MechError);
    await expect(privacyTypeCapacities(lineDomain(3), -1)).rejects.toThrow(/epsilon/);
    expect(() => lineMultiplicativeCapacity(0, 1)).toThrow(/line size/);
  });
});
