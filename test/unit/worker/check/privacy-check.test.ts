import { describe, expect, it } from 'vitest';
import { checkPrivacy } from '../../../../src-worker/check/privacy-check';
import { checkTightPrivacy } from '../../../../src-worker/measure/structured/tight-privacy-check';
import { tightConstraintsStructured } from '../../../../src-worker/mechanism/implicit/tight-structured';
import type { ImplicitTightChannel } from '../../../../src-worker/mechanism/implicit/implicit-tight-channel';
import { closedFormMechanism } from '../../../../src-worker/mechanism/closed-form-by-kind';
import { ringDomain } from '../../../../src-worker/metric/ring';
import { tightConstraints } from '../../../../src-worker/mechanism/tight-constraints';
import { DenseChannel } from '../../../../src-worker/mechanism/channel';
import { exponentialMechanism } from '../../../../src-worker/mechanism/exponential';
import { Matrix } from '../../../../src-worker/linalg/matrix';
import { cliqueDomain } from '../../../../src-worker/metric/clique';
import { gridDomain } from '../../../../src-worker/metric/grid';
import { lineDomain } from '../../../../src-worker/metric/line';
import { REL_TOL } from '../../../../src-shared/numeric/tolerance';
import { FunctionRowSource } from '../../../../src-worker/mechanism/function-row-source';

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
  it("computes the effective eps max ln(C[x][y]/C[x'][y]) / d and names the worst pair", () => {
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

  it('tiny entries are compared exactly: a positive entry facing 0 is never private, ratios of tiny numbers are ratios', () => {
    const two = (a: number, b: number) =>
      dense([
        [0.5, 0.5 - a, a],
        [0.5, 0.5 - b, b],
      ]);
    for (const [a, b, eps] of [
      [1e-300, 0, 18],
      [1e-300, 0, 1e4],
      [5e-324, 0, 1],
      [1e-310, 0, 5],
    ] as const) {
      const r = checkPrivacy(two(a, b), cliqueDomain(2), eps);
      expect(r.passes, `${a} facing ${b} at eps ${eps}`).toBe(false);
      expect(r.effectiveEpsilon).toBe(Infinity);
      expect(r.worst[0]).toMatchObject({ x: '0', xp: '1', y: '2', ratio: Infinity, lnRatio: Infinity, violates: true });
    }
    // 1e-310 against 1e-320 (both subnormal): a ratio of 1e10, effective eps ln(1e10)
    const sub = checkPrivacy(two(1e-310, 1e-320), cliqueDomain(2), 1);
    expect(sub.passes).toBe(false);
    expect(sub.effectiveEpsilon).toBeCloseTo(Math.log(1e-310 / 1e-320), 9);
    expect(sub.effectiveEpsilon).toBeGreaterThan(23);
    expect(checkPrivacy(two(1e-310, 1e-320), cliqueDomain(2), 23.1).passes).toBe(true);
    // a quotient beyond the largest double (0.5 / 1e-310 = 5e309) is resolved in log space
    const big = dense([
      [0.5, 0.5],
      [1e-310, 1 - 1e-310],
    ]);
    const lr = Math.log(0.5) - Math.log(1e-310);
    const rb = checkPrivacy(big, cliqueDomain(2), 700);
    expect(rb.passes).toBe(false);
    expect(rb.effectiveEpsilon).toBeCloseTo(lr, 9);
    expect(rb.worst[0]!.lnRatio).toBeCloseTo(lr, 9);
    expect(checkPrivacy(big, cliqueDomain(2), lr + 1e-6).passes).toBe(true);
  });

  it('identity channels (no noise) are never private, at any eps and any distance scale', () => {
    const identity = (n: number) =>
      dense(Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 1 : 0))));
    for (const eps of [1, 708.4, 1e4]) {
      const r = checkPrivacy(identity(10), lineDomain(10), eps);
      expect(r.passes, `line:10 at ${eps}`).toBe(false);
      expect(r.effectiveEpsilon).toBe(Infinity);
    }
    const g = gridDomain(3, 3, 1000);
    const rg = checkPrivacy(identity(9), g, 1);
    expect(rg.passes).toBe(false);
    expect(rg.effectiveEpsilon).toBe(Infinity);
  });

  it('negative, NaN or infinite entries are an error, not a verdict', () => {
    for (const v of [NaN, -1e-3, Infinity]) {
      const c = new FunctionRowSource(
        2,
        3,
        (i, out) => {
          out.set(i === 0 ? [0.5, 0.5, 0] : [0.5, 0.5, 0]);
          out[2] = i === 1 ? v : 0;
        },
        String,
      );
      const e = mechErr(() => checkPrivacy(c, cliqueDomain(2), 1));
      expect(e.code).toBe('invalid-input');
      expect(e.message).toMatch(/not a probability/);
    }
  });

  it('closed-form mechanisms pass at their eps while no entry underflows, and fail at 0.99 eps; once an entry underflows to 0 the stored channel is not private', () => {
    for (const [kind, d, eps] of [
      ['tg', lineDomain(100), 7],
      ['exponential', lineDomain(100), 14],
      ['laplace', lineDomain(400), 1.7],
      ['symmetric', ringDomain(401), 3.5],
      ['planar-laplace', gridDomain(12, 12, 1, 'manhattan'), 30],
      ['planar-laplace', gridDomain(12, 12), 30],
    ] as const) {
      const m = closedFormMechanism(kind, d, eps);
      const g = m.guaranteedEpsilon;
      const r = checkPrivacy(m.channel, d, g, { topK: 1 });
      expect(r.passes, `${kind} on ${d.spec} at ${g}`).toBe(true);
      expect(Number.isFinite(r.effectiveEpsilon)).toBe(true);
      if (kind !== 'exponential' && kind !== 'laplace')
        expect(checkPrivacy(m.channel, d, 0.99 * g, { topK: 1 }).passes).toBe(false);
    }
    const line = lineDomain(300);
    const t = tightConstraints(line, 2);
    expect(t.exists).toBe(true);
    if (t.exists) expect(checkPrivacy(t.mechanism.channel, line, 2, { topK: 1 }).passes).toBe(true);
    // TG at eps 10 on line:100: e^-990 is 0 in double precision, next to a positive e^-980
    const tg = closedFormMechanism('tg', lineDomain(100), 10);
    const rt = checkPrivacy(tg.channel, lineDomain(100), 10, { topK: 1 });
    expect(rt.passes).toBe(false);
    expect(rt.effectiveEpsilon).toBe(Infinity);
    // randomised response at eps = 800: the off-diagonal e^-800 is 0 — the released channel is the identity
    const rr = checkPrivacy(closedFormMechanism('rr', cliqueDomain(4), 800).channel, cliqueDomain(4), 800);
    expect(rr.passes).toBe(false);
    expect(rr.effectiveEpsilon).toBe(Infinity);
  });

  it('the structural tight-constraints check vouches only while every entry is a normal double', () => {
    const line = lineDomain(300);
    const ok = tightConstraintsStructured(line, 2);
    expect(ok.exists).toBe(true);
    if (ok.exists) {
      const s = checkTightPrivacy(ok.mechanism.channel as ImplicitTightChannel, 2);
      expect([s.passes, s.representable]).toEqual([true, true]);
    }
    // eps 5 across 299 steps: e^-1495 underflows, the rows really hold zeros next to positive entries
    const far = tightConstraintsStructured(line, 5);
    expect(far.exists).toBe(true);
    if (far.exists) {
      const s = checkTightPrivacy(far.mechanism.channel as ImplicitTightChannel, 5);
      expect(s.passes).toBe(false);
      expect(s.representable).toBe(false);
      // ln z_min - 5 * 299: far below ln 2^-1022 = -708.4
      expect(s.lnMinEntry).toBeLessThan(-1022 * Math.LN2);
      // not a lattice solve here: the triples among the first min(n, 150) points
      expect(s.coverage).toEqual({ kind: 'triples', checked: 150, n: 300 });
      expect(checkPrivacy(far.mechanism.channel, line, 5, { topK: 1 }).effectiveEpsilon).toBe(Infinity);
    }
  });

  it('the check on graph edges has a work limit too (clique edges are all pairs)', () => {
    const n = 300;
    const c = new FunctionRowSource(n, n, (_i, out) => void out.fill(1 / n), String);
    const e = mechErr(() => checkPrivacy(c, cliqueDomain(n), 1, { maxWork: 1e6 }));
    expect(e.code).toBe('too-large');
    expect(e.message).toMatch(/graph edges/);
    expect(checkPrivacy(c, cliqueDomain(n), 1).passes).toBe(true);
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
    for (let k = 1; k < r.worst.length; k++)
      expect(r.worst[k - 1]!.effectiveEpsilon).toBeGreaterThanOrEqual(r.worst[k]!.effectiveEpsilon);
  });

  it('works row by row: never asks for a row outside the domain and regenerates within a small cache', () => {
    let calls = 0;
    const n = 200;
    const src = new FunctionRowSource(
      n,
      n,
      (i, out) => {
        calls++;
        out.fill(0, 0, n);
        out[i] = 1; // identity: infinitely non-private
      },
      String,
    );
    const r = checkPrivacy(src, lineDomain(n), 1, { cacheEntries: 3 * n });
    expect(r.effectiveEpsilon).toBe(Infinity);
    expect(r.violatingPairs).toBe(2 * (n - 1));
    expect(calls).toBe(n); // the sliding window of a line's edges never regenerates a row
  });

  it('bad input: eps <= 0 or NaN, row count mismatch, all-pairs size guard', () => {
    const c = dense([[1], [1]]);
    for (const eps of [0, -1, NaN])
      expect(mechErr(() => checkPrivacy(c, cliqueDomain(2), eps)).code).toBe('invalid-input');
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
