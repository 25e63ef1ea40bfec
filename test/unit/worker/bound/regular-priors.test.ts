import { describe, expect, it } from 'vitest';
import { MechError } from '../../../../src-shared/errors';
import { cliqueDomain } from '../../../../src-worker/metric/clique';
import { lineDomain } from '../../../../src-worker/metric/line';
import { ringDomain } from '../../../../src-worker/metric/ring';
import { gridDomain } from '../../../../src-worker/metric/grid';
import { databaseDomain } from '../../../../src-worker/metric/database';
import { phiMatrix } from '../../../../src-worker/metric/domain';
import { uniformPrior } from '../../../../src-worker/measure/prior';
import { posteriorVulnerability } from '../../../../src-worker/measure/posterior-vulnerability';
import { minEntropyLeakage } from '../../../../src-worker/measure/min-entropy-leakage';
import { regularity, decideRegularity } from '../../../../src-worker/bound/regularity';
import { utilityBound, leakageBound } from '../../../../src-worker/bound/optimality-bounds';
import { cornerPrior, cornerPriors } from '../../../../src-worker/bound/corner-priors';
import { solveMu } from '../../../../src-worker/bound/mu';
import { productMu } from '../../../../src-worker/bound/product-mu';
import { productPriorBounds } from '../../../../src-worker/bound/product-prior-bounds';
import { databaseLeakageBound } from '../../../../src-worker/bound/database-leakage-bounds';
import { productPrior, rng, rr, tableDomain, tg } from '../../support/channel-fixtures';

const LN2 = Math.log(2);

function expectMechError(f: () => unknown, code: string, msg: RegExp): void {
  let err: unknown;
  try {
    f();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(MechError);
  expect((err as MechError).code).toBe(code);
  expect((err as MechError).message).toMatch(msg);
}

describe('regular priors and the optimality bounds (SPEC §5, §7)', () => {
  it('cliques: the closed form mu = (pi - a/(1-a+na)) / (1-a) equals the dense LU solve, and clique:3000 needs no n x n matrix', () => {
    const r = rng(5);
    for (const [n, eps] of [
      [2, 0.3],
      [5, 1],
      [9, 2.5],
    ] as const) {
      const w = Array.from({ length: n }, () => 0.2 + r());
      const s = w.reduce((a, b) => a + b, 0);
      const pi = w.map((v) => v / s);
      const closed = solveMu(cliqueDomain(n), eps, pi);
      expect(closed.method).toBe('closed-form');
      // the same domain without its kind: the generic dense LU
      const dense = solveMu({ ...cliqueDomain(n), kind: 'graph' as const }, eps, pi);
      expect(dense.method).toBe('dense-lu');
      for (let i = 0; i < n; i++) expect(closed.mu![i]!).toBeCloseTo(dense.mu![i]!, 12);
    }
    const big = regularity(cliqueDomain(3000), 1, uniformPrior(3000));
    expect(big.status).toBe('regular');
    expect(big.method).toBe('closed-form');
    // uniform prior: mu_i = (1/n)(1 - a n/(1-a+na)) / (1-a) = 1/(n(1-a+na)); sum = 1/(1-a+na)
    const a = Math.exp(-1);
    expect(Math.abs(big.muSum * (1 - a + 3000 * a) - 1)).toBeLessThan(1e-12);
  });

  it('RR on six labels (eps = ln 2, uniform) has utility 2/7 = sum(mu), and leakage = the leakage bound', () => {
    const d = cliqueDomain(6);
    const p = uniformPrior(6);
    const r = regularity(d, LN2, p);
    expect(r.status).toBe('regular');
    expect(utilityBound(d, LN2, p)).toBeCloseTo(2 / 7, 14);
    expect(posteriorVulnerability(p, rr(6, LN2)).value).toBeCloseTo(utilityBound(d, LN2, p), 14);
    expect(leakageBound(d, LN2, p)).toBeCloseTo(minEntropyLeakage(p, rr(6, LN2)), 13);
  });

  it('TG on 0..5 (alpha = 1/2) reaches the bound 4/9 for the uniform prior; random mechanisms stay below', () => {
    const d = lineDomain(6);
    const p = uniformPrior(6);
    expect(utilityBound(d, LN2, p)).toBeCloseTo(4 / 9, 14);
    expect(posteriorVulnerability(p, tg(5, 0.5)).value).toBeCloseTo(4 / 9, 14);
    // a less accurate eps-private mechanism (TG at a smaller eps) is below the bound
    expect(posteriorVulnerability(p, tg(5, 0.7)).value).toBeLessThan(4 / 9);
  });

  it('corner priors are regular with mu = e_y / rowsum, their convex combinations too', () => {
    const domains = [lineDomain(5), ringDomain(6), gridDomain(3, 3, 1, 'euclidean'), cliqueDomain(4)];
    const r = rng(3);
    for (const d of domains) {
      const eps = 0.8;
      const corners = cornerPriors(d, eps);
      for (let y = 0; y < d.n; y++) {
        const c = corners.row(y);
        expect(Array.from(c)).toEqual(Array.from(cornerPrior(d, eps, y)));
        const reg = regularity(d, eps, c);
        expect(reg.status).toBe('regular');
        const rowSum = phiMatrix(d, eps)
          .row(y)
          .reduce((a, b) => a + b, 0);
        for (let x = 0; x < d.n; x++) expect(reg.mu![x]).toBeCloseTo(x === y ? 1 / rowSum : 0, 13);
      }
      for (let t = 0; t < 5; t++) {
        const w = Array.from({ length: d.n }, () => (r() < 0.4 ? 0 : r()));
        w[0] = w[0]! + 0.1;
        const s = w.reduce((a, b) => a + b, 0);
        const mix = new Float64Array(d.n);
        for (let y = 0; y < d.n; y++) for (let x = 0; x < d.n; x++) mix[x]! += (w[y]! / s) * corners.get(y, x);
        const reg = regularity(d, eps, mix);
        expect(reg.status).toBe('regular');
        // mu = sum_y (w_y / s) e_y / rowsum_y: sum(mu) = sum_y w_y / (s rowsum_y)
        let expected = 0;
        for (let y = 0; y < d.n; y++)
          expected +=
            w[y]! /
            s /
            phiMatrix(d, eps)
              .row(y)
              .reduce((a, b) => a + b, 0);
        expect(utilityBound(d, eps, mix)).toBeCloseTo(expected, 12);
      }
    }
  });

  it('a prior outside the hull is refused with the reason: the most negative mu component and its label', () => {
    const d = lineDomain(6);
    const p = [0.9, 0.02, 0.02, 0.02, 0.02, 0.02];
    const reg = regularity(d, LN2, p);
    expect(reg.status).toBe('not-regular');
    expect(reg.minMu).toBeLessThan(0);
    // mu = Phi^{-1} p: for the line Phi^{-1} is tridiagonal, mu_1 = (-a p0 + (1+a^2) p1 - a p2)/(1-a^2)
    const a = 0.5;
    expect(reg.mu![1]).toBeCloseTo((-a * 0.9 + (1 + a * a) * 0.02 - a * 0.02) / (1 - a * a), 13);
    expect(reg.minMuLabel).toBe('1');
    expect(reg.reason).toMatch(
      /^the prior is not regular for line:6 at epsilon 0\.69\d*: it lies outside the region of regular priors \(a mix of the corner priors with no negative weight\), since as a mix of them it needs the weight -0\.5\d* on the corner prior of 1$/,
    );
    expectMechError(
      () => utilityBound(d, LN2, p),
      'not-applicable',
      /not regular.*needs the weight -0\.5\d* on the corner prior of 1$/,
    );
    expectMechError(() => leakageBound(d, LN2, p), 'not-applicable', /leakage bound.*does not apply/);
    try {
      utilityBound(d, LN2, p);
    } catch (e) {
      expect((e as MechError).detail).toMatchObject({ status: 'not-regular', minMuIndex: 1, minMuLabel: '1' });
    }
  });

  it('singular Phi: undecided without an LP, settled by a plugged-in LP decider, bounds refused', async () => {
    // two distinct points at distance 0 (a pseudo-metric): Phi has two equal rows
    const d = tableDomain([
      [0, 0, 1],
      [0, 0, 1],
      [1, 1, 0],
    ]);
    const p = [0.3, 0.3, 0.4];
    const r = regularity(d, 1, p);
    expect(r.status).toBe('undecided');
    expect(r.mu).toBeNull();
    expectMechError(() => utilityBound(d, 1, p), 'not-applicable', /singular/);
    let called = 0;
    const lp = (_d: unknown, eps: number, prior: Float64Array) => {
      called++;
      expect(eps).toBe(1);
      expect(Array.from(prior)).toEqual(p);
      return true;
    };
    const decided = await decideRegularity(d, 1, p, { decideByLP: lp });
    expect(decided.status).toBe('regular');
    expect(decided.method).toBe('lp');
    expect(called).toBe(1);
    const no = await decideRegularity(d, 1, p, { decideByLP: async () => false });
    expect(no.status).toBe('not-regular');
    // a non-singular case never calls the LP
    await decideRegularity(lineDomain(3), 1, uniformPrior(3), { decideByLP: lp });
    expect(called).toBe(1);
  });

  it('databases: the uniform prior on V^u is regular and its Kronecker leakage bound is u log2(v e^eps/(v-1+e^eps))', () => {
    const db = databaseDomain(5, 4);
    const p = uniformPrior(1024);
    expect(leakageBound(db, 0.5, p)).toBeCloseTo(2.5226, 4);
    expect(leakageBound(db, 0.5, p)).toBeCloseTo(databaseLeakageBound(5, 4, 0.5), 12);
    // product prior: regular iff the factor mu is >= 0. Clique factor: mu1 = (p - a/(1+3a)) / (1 - a), a = e^-eps,
    // so (0.3,0.27,0.23,0.2) is NOT regular at eps = 0.5 (a/(1+3a) = 0.2151 > 0.2) but is at eps = 1 (0.1749).
    const marg = [0.3, 0.27, 0.23, 0.2];
    const mu1 = (eps: number) =>
      marg.map((q) => (q - Math.exp(-eps) / (1 + 3 * Math.exp(-eps))) / (1 - Math.exp(-eps)));
    const half = productMu(db, 0.5, marg);
    for (let i = 0; i < 4; i++) expect(half.factors![0]![i]).toBeCloseTo(mu1(0.5)[i]!, 14);
    expect(half.min).toBeCloseTo(mu1(0.5)[3]! * mu1(0.5)[0]! ** 4, 14);
    expect(half.min).toBeLessThan(0);
    const reg = regularity(db, 0.5, productPrior(marg, 5));
    expect(reg.status).toBe('not-regular');
    expect(reg.minMu).toBeCloseTo(half.min, 14);
    // the minimum is tied across the 5 placements of the value 3 (a symmetric product): any of them is right
    expect(['(3,0,0,0,0)', '(0,3,0,0,0)', '(0,0,3,0,0)', '(0,0,0,3,0)', '(0,0,0,0,3)']).toContain(reg.minMuLabel);
    const pm = productMu(db, 1, marg);
    expect(pm.min).toBeGreaterThan(0);
    expect(regularity(db, 1, productPrior(marg, 5)).status).toBe('regular');
    expect(utilityBound(db, 1, productPrior(marg, 5))).toBeCloseTo(pm.sum, 13);
    const big = databaseDomain(12, 4); // 16.7M databases: the product path never forms a vector of that size
    const pmBig = productMu(big, 1, marg);
    expect(pmBig.sum).toBeCloseTo(pm.sum ** (12 / 5), 12);
  });
});

describe('bad input to the bounds raises a typed MechError', () => {
  const d = lineDomain(4);
  it('eps <= 0, NaN eps', () => {
    expectMechError(() => regularity(d, 0, uniformPrior(4)), 'invalid-input', /epsilon must be a finite number > 0/);
    expectMechError(() => solveMu(d, -1, uniformPrior(4)), 'invalid-input', /epsilon/);
    expectMechError(() => utilityBound(d, NaN, uniformPrior(4)), 'invalid-input', /epsilon/);
    expectMechError(() => cornerPrior(d, 0, 1), 'invalid-input', /epsilon/);
  });
  it('prior not summing to 1, negative, NaN, wrong length', () => {
    expectMechError(() => regularity(d, 1, [0.25, 0.25, 0.25, 0.26]), 'invalid-input', /sums to/);
    expectMechError(() => utilityBound(d, 1, [0.5, 0.6, -0.1, 0]), 'invalid-input', /negative/);
    expectMechError(() => leakageBound(d, 1, [0.5, NaN, 0.25, 0.25]), 'invalid-input', /not a finite number/);
    expectMechError(() => regularity(d, 1, [0.5, 0.5]), 'invalid-input', /2 entries but the domain has 4/);
    expectMechError(
      () => productMu(databaseDomain(3, 3), 1, [0.5, 0.6, -0.1]),
      'invalid-input',
      /per-individual prior 1: entry 2 is negative/,
    );
  });
  it('corner prior index out of range; product prior on a non-product domain', () => {
    expectMechError(() => cornerPrior(d, 1, 4), 'invalid-input', /not a point of line:4/);
    expectMechError(() => productMu(d, 1, [1]), 'not-applicable', /not a product/);
  });
});

describe('product-prior bounds from the factors only (SPEC §5)', () => {
  it('equal the dense regular-prior bounds on db:5,4 at eps = 1, and refuse the non-regular eps = 0.5 case', () => {
    const db = databaseDomain(5, 4);
    const marg = [0.3, 0.27, 0.23, 0.2];
    const p = productPrior(marg, 5);
    const b = productPriorBounds(db, 1, marg);
    expect(b.utilityBound).toBeCloseTo(utilityBound(db, 1, p), 13);
    expect(b.leakageBound).toBeCloseTo(leakageBound(db, 1, p), 12);
    expectMechError(
      () => productPriorBounds(db, 0.5, marg),
      'not-applicable',
      /not regular.*mu\[\([0-3,]+\)\] = -0\.0000832/,
    );
    // uniform marginals reproduce the closed-form database leakage bound at any size (u = 12: 4^12 databases, no vector
    // of that size formed)
    const huge = databaseDomain(12, 4);
    expect(productPriorBounds(huge, 0.5, [0.25, 0.25, 0.25, 0.25]).leakageBound).toBeCloseTo(
      databaseLeakageBound(12, 4, 0.5),
      12,
    );
  });
});
