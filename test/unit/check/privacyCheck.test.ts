import { describe, expect, it } from 'vitest';
import { UNDERFLOW_FLOOR, checkPrivacy } from '../../../src-worker/check/privacy-check';
import { closedFormMechanism } from '../../../src-worker/mechanism/closed-form-by-kind';
import { ringDomain } from '../../../src-worker/metric/ring';
import { tightConstraints } from '../../../src-worker/mechanism/tight-constraints';
import { DenseChannel } from '../../../src-worker/mechanism/channel';
import { exponentialMechanism } from '../../../src-worker/mechanism/exponential';
import { Matrix } from '../../../src-worker/linalg/matrix';
import { cliqueDomain } from '../../../src-worker/metric/clique';
import { gridDomain } from '../../../src-worker/metric/grid';
import { lineDomain } from '../../../src-worker/metric/line';
import { REL_TOL } from '../../../src-worker/numeric/tolerance';
import { FunctionRowSource } from '../../../src-worker/mechanism/function-row-source';

function dense(rows: number[][]): DenseChannel {
  return new DenseChannel(Matrix.fromRows(rows));
}
function mechErr(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (e) {
    return e as { code: string; message: string };
  }
  throw new Error('no error');
}

describe('privacy check (SPEC §4)', () => {
  it('computes the effective eps max ln(C[x][y]/C[x\'][y]) / d and names the worst pair', () => {
    // line of 3; the pair (0,1) has ratio 0.6/0.2 = 3 on output 0; (1,2) ratio 2
    const c = dense([
      [0.6, 0.2, 0.2],
      [0.2, 0.4, 0.4],
      [0.1, 0.2, 0.7],
    ]);
    const r = checkPrivacy(c, lineDomain(3), Math.log(3));
    expect(r.mode).toBe('edges');
    expect(r.pairsChecked).toBe(2);
    expect(r.effectiveEpsilon).toBeCloseTo(Math.log(3), 14);
    expect(r.passes).toBe(true);
    expect(r.worst[0]).toMatchObject({ x: '0', xp: '1', y: '0', distance: 1 });
    expect(r.worst[0]!.ratio).toBeCloseTo(3, 14);
    const f = checkPrivacy(c, lineDomain(3), 1);
    expect(f.passes).toBe(false);
    expect(f.worst[0]!.violates).toBe(true);
    expect(f.worst[0]!.allowedRatio).toBeCloseTo(Math.E, 14);
    // all pairs agree with edges on a graph metric: (0,2) has at most ln(0.6/0.1)/2 = ln(6)/2 < ln 3
    const all = checkPrivacy(c, lineDomain(3), Math.log(3), { pairs: 'all' });
    expect(all.pairsChecked).toBe(3);
    expect(all.effectiveEpsilon).toBeCloseTo(r.effectiveEpsilon, 14);
  });

  it('zero handling: 0/0 is fine, positive/0 is an infinite violation', () => {
    const ok = dense([
      [0.5, 0.5, 0],
      [0.5, 0.5, 0],
    ]);
    const r = checkPrivacy(ok, cliqueDomain(2), 0.1);
    expect(r.passes).toBe(true);
    expect(r.effectiveEpsilon).toBe(0);
    const bad = dense([
      [0.5, 0.4, 0.1],
      [0.5, 0.5, 0],
    ]);
    const b = checkPrivacy(bad, cliqueDomain(2), 5);
    expect(b.passes).toBe(false);
    expect(b.effectiveEpsilon).toBe(Infinity);
    expect(b.worst[0]).toMatchObject({ x: '0', xp: '1', y: '2', ratio: Infinity, violates: true });
  });

  it('underflow: entries below 2^-1022 are not resolved, so exp(-eps d) rounding to 0 is no violation; a resolved positive/0 still is', () => {
    const lim = Math.exp(5) * (1 + REL_TOL) * UNDERFLOW_FLOOR; // about 3.3e-306
    const tiny = (a: number) =>
      dense([
        [0.5, 0.5 - a, a],
        [0.5, 0.5, 0],
      ]);
    // 1e-310 next to a rounding zero: passes with a finite (small) effective eps
    const ok = checkPrivacy(tiny(1e-310), cliqueDomain(2), 5);
    expect(ok.passes).toBe(true);
    expect(ok.effectiveEpsilon).toBeLessThan(5);
    // 1e-300 > e^5 * 2^-1022: it cannot be the neighbour of a rounding zero, so it is the infinite violation of SPEC §4
    expect(1e-300).toBeGreaterThan(lim);
    const bad = checkPrivacy(tiny(1e-300), cliqueDomain(2), 5);
    expect(bad.passes).toBe(false);
    expect(bad.effectiveEpsilon).toBe(Infinity);
  });

  it('closed-form mechanisms at large eps * d pass at their eps although far entries underflow to 0, and fail at 0.99 eps', () => {
    for (const [kind, d, eps] of [
      ['tg', lineDomain(100), 10],
      ['exponential', lineDomain(100), 20],
      ['laplace', lineDomain(400), 2],
      ['symmetric', ringDomain(401), 4],
      ['planar-laplace', gridDomain(12, 12, 1, 'manhattan'), 40],
      ['planar-laplace', gridDomain(12, 12), 40],
    ] as const) {
      const m = closedFormMechanism(kind, d, eps);
      const g = m.guaranteedEpsilon;
      const r = checkPrivacy(m.channel, d, g, { topK: 1 });
      expect(r.passes, `${kind} on ${d.spec} at ${g}`).toBe(true);
      expect(Number.isFinite(r.effectiveEpsilon)).toBe(true);
      if (kind !== 'exponential' && kind !== 'laplace') expect(checkPrivacy(m.channel, d, 0.99 * g, { topK: 1 }).passes).toBe(false);
    }
    const line = lineDomain(300);
    const t = tightConstraints(line, 5);
    expect(t.exists).toBe(true);
    if (t.exists) expect(checkPrivacy(t.mechanism.channel, line, 5, { topK: 1 }).passes).toBe(true);
    // randomised response at eps = 800: the off-diagonal e^-800 is 0; the ratio is unresolved beyond e^708, not a violation
    const rr = checkPrivacy(closedFormMechanism('rr', cliqueDomain(4), 800).channel, cliqueDomain(4), 800);
    expect(rr.passes).toBe(true);
    expect(rr.effectiveEpsilon).toBeGreaterThan(700);
  });

  it('relative tolerance REL_TOL on the ratio: (1 + REL_TOL/2) e^eps passes, (1 + 10 REL_TOL) e^eps fails', () => {
    const eps = 0.7;
    for (const [f, pass] of [
      [1 + REL_TOL / 2, true],
      [1 + 10 * REL_TOL, false],
    ] as const) {
      const a = 0.5;
      const b = a / (Math.exp(eps) * f);
      const c = dense([
        [a, 1 - a],
        [b, 1 - b],
      ]);
      expect(checkPrivacy(c, cliqueDomain(2), eps).passes).toBe(pass);
    }
  });

  it('Euclidean grids (no edges) check all pairs with distances; exponential mechanism passes', () => {
    const d = gridDomain(3, 3, 2);
    const m = exponentialMechanism(d, 0.4);
    const r = checkPrivacy(m.channel, d, 0.4);
    expect(r.mode).toBe('all-pairs');
    expect(r.pairsChecked).toBe(36);
    expect(r.passes).toBe(true);
    expect(r.worst.length).toBe(10);
    for (let k = 1; k < r.worst.length; k++) expect(r.worst[k - 1]!.effectiveEpsilon).toBeGreaterThanOrEqual(r.worst[k]!.effectiveEpsilon);
  });

  it('works row by row: never asks for a row outside the domain and regenerates within a small cache', () => {
    let calls = 0;
    const n = 200;
    const src = new FunctionRowSource(n, n, (i, out) => {
      calls++;
      out.fill(0, 0, n);
      out[i] = 1; // identity: infinitely non-private
    }, String);
    const r = checkPrivacy(src, lineDomain(n), 1, { cacheEntries: 3 * n });
    expect(r.effectiveEpsilon).toBe(Infinity);
    expect(r.violatingPairs).toBe(2 * (n - 1));
    expect(calls).toBe(n); // the sliding window of a line's edges never regenerates a row
  });

  it('bad input: eps <= 0 or NaN, row count mismatch, all-pairs size guard', () => {
    const c = dense([[1], [1]]);
    for (const eps of [0, -1, NaN]) expect(mechErr(() => checkPrivacy(c, cliqueDomain(2), eps)).code).toBe('invalid-input');
    const e = mechErr(() => checkPrivacy(c, lineDomain(3), 1));
    expect(e.code).toBe('invalid-input');
    expect(e.message).toMatch(/2 rows but the domain line:3 has 3 points/);
    const big = gridDomain(40, 40);
    const src = new FunctionRowSource(1600, 1600, (_i, out) => void out.fill(1 / 1600, 0, 1600), String);
    const g = mechErr(() => checkPrivacy(src, big, 1, { maxWork: 1e8 }));
    expect(g.code).toBe('too-large');
    expect(g.message).toMatch(/no graph edges/);
  });
});
