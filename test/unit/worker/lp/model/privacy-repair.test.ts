import { describe, expect, it } from 'vitest';
import { optimalMechanism } from '../../../../../src-worker/lp/optimal/optimal-mechanism';
import { privacyConstraintGraph } from '../../../../../src-worker/lp/model/privacy-constraint-graph';
import { repairPrivacy } from '../../../../../src-worker/lp/model/privacy-repair';
import { uniformPrior } from '../../../../../src-worker/measure/prior';
import type { DenseChannel } from '../../../../../src-worker/mechanism/channel';
import { gridDomain } from '../../../../../src-worker/metric/grid';
import { lineDomain } from '../../../../../src-worker/metric/line';
import { worstPrivacyRatio } from '../../../support/lp-helpers';

describe('privacy repair of LP solutions', () => {
  it('lifts entries left at 0 or slightly too small by the solver, changing the channel by ~the defect', () => {
    const d = lineDomain(3);
    const eps = Math.log(2);
    const g = privacyConstraintGraph(d, eps);
    const f = Float64Array.from(g.exponent, (x) => Math.exp(x));
    // TG on 0..2 (alpha 1/2) plus a fourth output; column 2 of row 0 is 1e-9
    // too small (ratio just over 2) and column 3 holds 1e-11 next to exact 0s (infinite ratio).
    const C = Float64Array.from([
      2 / 3 + 1e-9,
      1 / 6,
      1 / 6 - 1e-9,
      0,
      1 / 3,
      1 / 3,
      1 / 3 - 1e-11,
      1e-11,
      1 / 6,
      1 / 6,
      2 / 3,
      0,
    ]);
    expect(worstPrivacyRatio(C, d, 4, eps)).toBe(Infinity);
    const before = C.slice();
    const added = repairPrivacy(C, 3, 4, g, f);
    expect(worstPrivacyRatio(C, d, 4, eps)).toBeLessThanOrEqual(1 + 1e-9);
    expect(added).toBeLessThan(2e-9);
    for (let i = 0; i < 12; i++) expect(Math.abs(C[i]! - before[i]!)).toBeLessThan(2e-9);
    expect(Math.abs(C[3]! - 5e-12)).toBeLessThan(1e-19);
    for (let x = 0; x < 3; x++)
      expect(Math.abs(C[x * 4]! + C[x * 4 + 1]! + C[x * 4 + 2]! + C[x * 4 + 3]! - 1)).toBeLessThan(1e-15);
  });

  it('a private channel is left unchanged', () => {
    const d = lineDomain(3);
    const g = privacyConstraintGraph(d, 1);
    const f = Float64Array.from(g.exponent, (x) => Math.exp(x));
    const C = new Float64Array(9).fill(1 / 3);
    expect(repairPrivacy(C, 3, 3, g, f)).toBe(0);
    expect(Array.from(C)).toEqual(new Array(9).fill(1 / 3));
  });

  it('huge eps*d (factors beyond 1e13) are capped, never a solver error, and the result is private', async () => {
    const g = gridDomain(3, 3, 100, 'manhattan');
    const m = await optimalMechanism(g, 1, uniformPrior(9), 'bin');
    expect(m.facts.solve.cappedPairs).toBe(12);
    const C = (m.channel as DenseChannel).matrix.data;
    expect(worstPrivacyRatio(C, g, 9, 1)).toBeLessThanOrEqual(1 + 1e-9);
    // Nearly the identity: the binary loss is essentially 0.
    expect(m.facts.solve.objective).toBeLessThan(1e-9);
  });
});
