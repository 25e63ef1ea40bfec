import { describe, expect, it } from 'vitest';
import { checkPrivacy } from '../../../../src-worker/check/privacy-check';
import { randomisedResponse } from '../../../../src-worker/mechanism/randomised-response';
import { tightConstraints } from '../../../../src-worker/mechanism/tight-constraints';
import { cliqueDomain } from '../../../../src-worker/metric/clique';
import { gridDomain } from '../../../../src-worker/metric/grid';
import {
  expectClose,
  maxRowSumError,
  mechErrorOf,
  rowsOf,
  utility,
  expectTightlyPrivate,
} from '../../support/mechanism-helpers';

describe('randomised response (SPEC §2, §7)', () => {
  it('six labels at eps = ln 2: 2/7 on the diagonal, 1/7 elsewhere, utility 2/7', () => {
    const m = randomisedResponse(cliqueDomain(6), Math.log(2));
    const rows = rowsOf(m.channel);
    for (let i = 0; i < 6; i++) for (let j = 0; j < 6; j++) expectClose(rows[i]![j]!, i === j ? 2 / 7 : 1 / 7, 1e-15);
    expectClose(utility(m.channel), 2 / 7, 1e-15);
    expect(m.guaranteedEpsilon).toBe(Math.log(2));
  });

  it.each([
    [2, 0.3],
    [5, 1.1],
    [9, 0.05],
  ])('equals the tight-constraints mechanism on the discrete metric of %i labels, eps %f', (n, eps) => {
    const d = cliqueDomain(n);
    const t = tightConstraints(d, eps);
    expect(t.exists).toBe(true);
    if (!t.exists) return;
    const a = rowsOf(randomisedResponse(d, eps).channel);
    const b = rowsOf(t.mechanism.channel);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) expectClose(a[i]![j]!, b[i]![j]!, 1e-12);
  });

  it('passes the check at eps and fails at 0.99 eps; large eps does not overflow', () => {
    const d = cliqueDomain(7);
    const m = randomisedResponse(d, 0.8);
    expectTightlyPrivate(m.channel, d, 0.8);
    const big = randomisedResponse(d, 800);
    expect(maxRowSumError(big.channel)).toBe(0);
    expect(rowsOf(big.channel)[3]![3]).toBe(1);
  });

  it('scales its guarantee by the smallest distance on other metrics (grid step 0.5: 2 eps)', () => {
    const d = gridDomain(2, 3, 0.5, 'manhattan');
    const m = randomisedResponse(d, 1);
    expect(m.guaranteedEpsilon).toBe(2);
    expect(m.guarantee).toMatch(/smallest distance here is 0.5/);
    const r = checkPrivacy(m.channel, d, 2);
    expect(r.passes).toBe(true);
    expectClose(r.effectiveEpsilon, 2, 1e-12);
  });

  it('rejects bad eps', () => {
    for (const bad of [0, -0.5, NaN])
      expect(mechErrorOf(() => randomisedResponse(cliqueDomain(3), bad)).code).toBe('invalid-input');
  });
});
