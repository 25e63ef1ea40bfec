import { describe, expect, it } from 'vitest';
import { factsOf } from '../../../../src-worker/mechanism/facts';
import { checkPrivacy } from '../../../../src-worker/check/privacy-check';
import { ballSizeSymmetric } from '../../../../src-worker/mechanism/ball-size-symmetric';
import { randomisedResponse } from '../../../../src-worker/mechanism/randomised-response';
import { evenRingDoublingLegal, symmetricA, symmetricGraph } from '../../../../src-worker/mechanism/symmetric-graph';
import { tightConstraints } from '../../../../src-worker/mechanism/tight-constraints';
import { cliqueDomain } from '../../../../src-worker/metric/clique';
import { gridDomain } from '../../../../src-worker/metric/grid';
import { lineDomain } from '../../../../src-worker/metric/line';
import { ringDomain } from '../../../../src-worker/metric/ring';
import {
  expectClose,
  maxRowSumError,
  mechErrorOf,
  rowsOf,
  utility,
  expectTightlyPrivate,
} from '../../support/mechanism-helpers';

describe('symmetric-graph mechanism (SPEC §2, §7)', () => {
  it('ring of 6 at eps = ln 2: a = 4/11, rows 4,2,1,1,1,2 over 11, utility 4/11', () => {
    const m = symmetricGraph(ringDomain(6), Math.log(2));
    expectClose(factsOf(m, 'symmetric').a, 4 / 11, 1e-15);
    const rows = rowsOf(m.channel);
    [4, 2, 1, 1, 1, 2].forEach((v, j) => expectClose(rows[0]![j]!, v / 11, 1e-15));
    // rotation: row 2 is row 0 shifted by 2
    [1, 2, 4, 2, 1, 1].forEach((v, j) => expectClose(rows[2]![j]!, v / 11, 1e-15));
    expectClose(utility(m.channel), 4 / 11, 1e-15);
  });

  it('a matches the SPEC formula E^m(1-E)/(E^m(1-E)+c(1-E^m))', () => {
    for (const [eps, c, mm] of [
      [0.3, 2, 5],
      [1.2, 4, 1],
      [0.05, 2, 12],
    ] as const) {
      const E = Math.exp(eps);
      const spec = (E ** mm * (1 - E)) / (E ** mm * (1 - E) + c * (1 - E ** mm));
      expectClose(symmetricA(eps, c, mm), spec, 1e-12);
    }
  });

  it('on a clique equals randomised response; odd ring equals the ball-size closed form and the tight mechanism', () => {
    const cl = cliqueDomain(5);
    const a = rowsOf(symmetricGraph(cl, 0.9).channel);
    const b = rowsOf(randomisedResponse(cl, 0.9).channel);
    for (let i = 0; i < 5; i++) for (let j = 0; j < 5; j++) expectClose(a[i]![j]!, b[i]![j]!, 1e-15);
    const ring = ringDomain(7);
    const s = rowsOf(symmetricGraph(ring, 0.4).channel);
    const bs = rowsOf(ballSizeSymmetric(ring, 0.4).channel);
    const t = tightConstraints(ring, 0.4);
    expect(t.exists).toBe(true);
    const tr = t.exists ? rowsOf(t.mechanism.channel) : [];
    for (let i = 0; i < 7; i++)
      for (let j = 0; j < 7; j++) {
        expectClose(s[i]![j]!, bs[i]![j]!, 1e-14);
        expectClose(s[i]![j]!, tr[i]![j]!, 1e-12);
      }
  });

  it.each([
    ['odd ring', ringDomain(9), 0.5],
    ['even ring', ringDomain(8), 0.6],
    ['clique', cliqueDomain(4), 0.3],
  ] as const)('passes the check at eps and fails at 0.99 eps: %s', (_shape, d, eps) => {
    const m = symmetricGraph(d, eps);
    expect(maxRowSumError(m.channel)).toBeLessThan(1e-14);
    expectTightlyPrivate(m.channel, d, eps);
  });

  it('even-ring doubling needs e^(2 eps) >= 2: a clear not-applicable error below ln 2 / 2', () => {
    expect(evenRingDoublingLegal(Math.log(2) / 2)).toBe(true);
    expect(evenRingDoublingLegal(0.34)).toBe(false);
    const e = mechErrorOf(() => symmetricGraph(ringDomain(6), 0.3));
    expect(e.code).toBe('not-applicable');
    expect(e.message).toMatch(/e\^\(2 eps\) >= 2/);
    // at the threshold it exists and is private
    const eps = Math.log(2) / 2;
    const m = symmetricGraph(ringDomain(6), eps);
    expect(checkPrivacy(m.channel, ringDomain(6), eps).passes).toBe(true);
  });

  it('closes a line into a ring: valid (passes on the line), not optimal, says so', () => {
    const d = lineDomain(6);
    const m = symmetricGraph(d, Math.log(2));
    expect(m.guarantee).toMatch(/not optimal/);
    const rows = rowsOf(m.channel);
    [4, 2, 1, 1, 1, 2].forEach((v, j) => expectClose(rows[0]![j]!, v / 11, 1e-15));
    expectTightlyPrivate(m.channel, d, Math.log(2));
    // TG (optimal on the line) has higher uniform utility 4/9 > 4/11
    expect(utility(m.channel)).toBeLessThan(4 / 9);
    // even line at small eps: closed into a ring of 7 and restricted
    const small = symmetricGraph(d, 0.2);
    expect(small.channel.cols).toBe(7);
    expect(factsOf(small, 'symmetric').closedIntoRing).toBe(7);
    expect(maxRowSumError(small.channel)).toBeLessThan(1e-14);
    expect(checkPrivacy(small.channel, d, 0.2).passes).toBe(true);
  });

  it('refuses domains without a single orbit', () => {
    const e = mechErrorOf(() => symmetricGraph(gridDomain(2, 2), 1));
    expect(e.code).toBe('not-applicable');
    expect(e.message).toMatch(/single-orbit/);
    expect(mechErrorOf(() => symmetricGraph(ringDomain(5), NaN)).code).toBe('invalid-input');
  });
});

describe('ball-size-symmetric closed form (SPEC §5)', () => {
  it('ring of 6: C = exp(-eps d) / sum_r n_r exp(-eps r), equal to the dense tight-constraints mechanism', () => {
    const d = ringDomain(6);
    const eps = 0.7;
    const m = ballSizeSymmetric(d, eps);
    const norm = 1 + 2 * Math.exp(-eps) + 2 * Math.exp(-2 * eps) + Math.exp(-3 * eps);
    expectClose(rowsOf(m.channel)[1]![4]!, Math.exp(-3 * eps) / norm, 1e-15);
    const t = tightConstraints(d, eps);
    expect(t.exists).toBe(true);
    if (t.exists) {
      const a = rowsOf(m.channel);
      const b = rowsOf(t.mechanism.channel);
      for (let i = 0; i < 6; i++) for (let j = 0; j < 6; j++) expectClose(a[i]![j]!, b[i]![j]!, 1e-12);
    }
    expectTightlyPrivate(m.channel, d, eps);
  });

  it('refuses a domain without ball sizes', () => {
    expect(mechErrorOf(() => ballSizeSymmetric(lineDomain(4), 1)).code).toBe('not-applicable');
  });
});
