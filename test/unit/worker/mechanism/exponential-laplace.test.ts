import { describe, expect, it } from 'vitest';
import { checkPrivacy } from '../../../../src-worker/check/privacy-check';
import { exponentialMechanism } from '../../../../src-worker/mechanism/exponential';
import { laplaceRowNormalised } from '../../../../src-worker/mechanism/laplace-row-normalised';
import { gridDomain } from '../../../../src-worker/metric/grid';
import { lineDomain } from '../../../../src-worker/metric/line';
import { ringDomain } from '../../../../src-worker/metric/ring';
import {
  expectClose,
  maxRowSumError,
  mechErrorOf,
  rowsOf,
  expectTightlyPrivate,
} from '../../support/mechanism-helpers';

describe('exponential mechanism and row-normalised Laplace variant (SPEC §2)', () => {
  it('exponential: rows proportional to exp(-eps d/2); eps*d-private', () => {
    const d = lineDomain(5);
    const eps = 1.2;
    const m = exponentialMechanism(d, eps);
    const rows = rowsOf(m.channel);
    const z0 = [0, 1, 2, 3, 4].reduce((s, k) => s + Math.exp((-eps * k) / 2), 0);
    expectClose(rows[0]![3]!, Math.exp((-eps * 3) / 2) / z0, 1e-15);
    expect(maxRowSumError(m.channel)).toBeLessThan(1e-15);
    expect(m.guaranteedEpsilon).toBe(eps);
    const r = checkPrivacy(m.channel, d, eps);
    expect(r.passes).toBe(true);
    expect(r.effectiveEpsilon).toBeLessThan(eps);
  });

  it('laplace variant: guaranteed only 2 eps, effective eps measured in (eps, 2 eps] on a bounded line', () => {
    for (const [N, eps] of [
      [3, 1],
      [6, 0.5],
      [12, 2],
    ] as const) {
      const d = lineDomain(N);
      const m = laplaceRowNormalised(d, eps);
      expect(m.guaranteedEpsilon).toBe(2 * eps);
      expect(m.guarantee).toMatch(/only 2 eps/);
      const r = checkPrivacy(m.channel, d, 2 * eps);
      expect(r.passes).toBe(true);
      expect(r.effectiveEpsilon).toBeGreaterThan(eps * (1 + 1e-6));
      expect(r.effectiveEpsilon).toBeLessThanOrEqual(2 * eps);
      // it is NOT eps*d-private on the bounded line
      expect(checkPrivacy(m.channel, d, eps).passes).toBe(false);
    }
    // Two points: both normalisers are 1 + e^-eps, so the ratio is exactly e^eps: effective = eps, not more.
    const two = checkPrivacy(laplaceRowNormalised(lineDomain(2), 1).channel, lineDomain(2), 2);
    expectClose(two.effectiveEpsilon, 1, 1e-14);
  });

  it('laplace variant on a ring (vertex-transitive: equal normalisers) is exactly eps-private', () => {
    const d = ringDomain(7);
    const m = laplaceRowNormalised(d, 0.8);
    expectClose(expectTightlyPrivate(m.channel, d, 0.8).effectiveEpsilon, 0.8, 1e-12);
  });

  it('works on a Euclidean grid (all-pairs check) and rejects bad eps', () => {
    const d = gridDomain(3, 4, 0.5);
    const m = exponentialMechanism(d, 2);
    expect(checkPrivacy(m.channel, d, 2).passes).toBe(true);
    for (const bad of [0, NaN, -3]) {
      expect(mechErrorOf(() => exponentialMechanism(d, bad)).code).toBe('invalid-input');
      expect(mechErrorOf(() => laplaceRowNormalised(d, bad)).code).toBe('invalid-input');
    }
  });
});
