import { describe, expect, it } from 'vitest';
import { luFactor, luSolveTransposed, solveSymmetric } from '../../../../src-worker/linalg/lu';
import { phiMatrix } from '../../../../src-worker/metric/domain';
import { cliqueDomain } from '../../../../src-worker/metric/clique';
import { lineDomain } from '../../../../src-worker/metric/line';
import { databaseDomain } from '../../../../src-worker/metric/database';
import { gridDomain } from '../../../../src-worker/metric/grid';
import { solveMu } from '../../../../src-worker/bound/mu';
import { productMu, extremeProduct } from '../../../../src-worker/bound/product-mu';
import { kroneckerMatVec, kroneckerSolve } from '../../../../src-worker/linalg/kronecker-solve';
import { tightExists } from '../../../../src-worker/bound/tight-exists';
import { regularity } from '../../../../src-worker/bound/regularity';
import { productDomain, productPrior, randomPrior } from '../../support/channel-fixtures';

function denseMu(domain: Parameters<typeof phiMatrix>[0], eps: number, p: Float64Array): Float64Array {
  return luSolveTransposed(luFactor(phiMatrix(domain, eps)), p);
}

describe('Kronecker structure of Phi on V^u (SPEC §5)', () => {
  it('v=3, u=3 Hamming, random (non-product) prior: Kronecker mu = dense mu', () => {
    const d = productDomain(cliqueDomain(3), 3);
    const p = randomPrior(27, 5);
    const k = solveMu(d, 0.7, p);
    expect(k.method).toBe('kronecker');
    const dense = denseMu(d, 0.7, p);
    for (let i = 0; i < 27; i++) expect(k.mu![i]).toBeCloseTo(dense[i]!, 12);
  });

  it('v=4, u=5 Hamming, product prior (0.3,0.27,0.23,0.2): Kronecker mu = dense mu = product of factor mus', () => {
    const marg = [0.3, 0.27, 0.23, 0.2];
    const d = productDomain(cliqueDomain(4), 5);
    const p = productPrior(marg, 5);
    const eps = 0.5;
    const k = solveMu(d, eps, p).mu!;
    // dense reference by Cholesky (Phi is SPD here; half the flops of LU on the 1024 x 1024 matrix)
    const dense = solveSymmetric(phiMatrix(d, eps), p)!.x;
    const pm = productMu(d, eps, marg);
    const fromFactors = productPrior(pm.factors![0]!, 5);
    let maxErr = 0;
    for (let i = 0; i < 1024; i++) {
      maxErr = Math.max(maxErr, Math.abs(k[i]! - dense[i]!), Math.abs(fromFactors[i]! - dense[i]!));
    }
    expect(maxErr).toBeLessThan(1e-13);
    expect(pm.sum).toBeCloseTo(
      dense.reduce((a, b) => a + b, 0),
      12,
    );
    expect(pm.min).toBeCloseTo(Math.min(...dense), 14);
    // the same through the team's database domain (db:5,4 Hamming)
    const db = databaseDomain(5, 4);
    const kdb = solveMu(db, eps, p);
    expect(kdb.method).toBe('kronecker');
    for (let i = 0; i < 1024; i += 37) expect(kdb.mu![i]).toBeCloseTo(dense[i]!, 13);
  });

  it('Manhattan d1 on a line factor (sum-combined, no ball symmetry): mu and z vs dense; kron solve inverts kron multiply', () => {
    const d = productDomain(lineDomain(3), 4);
    const eps = 0.4;
    const p = randomPrior(81, 9);
    const k = solveMu(d, eps, p).mu!;
    const dense = denseMu(d, eps, p);
    for (let i = 0; i < 81; i++) expect(k[i]).toBeCloseTo(dense[i]!, 11);
    // Kronecker power multiply is the dense Phi times a vector
    const phi = phiMatrix(d, eps);
    const y = kroneckerMatVec(
      Array.from({ length: 4 }, () => phiMatrix(lineDomain(3), eps)),
      p,
    );
    for (let i = 0; i < 81; i++) {
      let s = 0;
      for (let j = 0; j < 81; j++) s += phi.get(i, j) * p[j]!;
      expect(y[i]).toBeCloseTo(s, 13);
    }
    const back = kroneckerSolve(
      Array.from({ length: 4 }, () => phiMatrix(lineDomain(3), eps)),
      y,
    );
    for (let i = 0; i < 81; i++) expect(back[i]).toBeCloseTo(p[i]!, 12);
    // tight mechanism existence: z = Phi^{-1} 1 through the factor vs dense
    const t = tightExists(d, eps);
    expect(t.method).toBe('kronecker');
    const zDense = luSolveTransposed(luFactor(phi), new Float64Array(81).fill(1));
    expect(t.minZ).toBeCloseTo(Math.min(...zDense), 13);
    expect(t.exists).toBe(Math.min(...zDense) >= 0);
  });

  it('a product domain where z has negative entries: the DP finds the most negative product', () => {
    // star factor: centre 0 and three leaves; z_centre = (1 - 2 alpha)/(1 + alpha) < 0 for alpha > 1/2
    const star = [
      [0, 1, 1, 1],
      [1, 0, 2, 2],
      [1, 2, 0, 2],
      [1, 2, 2, 0],
    ];
    const factor = {
      ...cliqueDomain(4),
      kind: 'custom' as const,
      spec: 'star4',
      distance: (i: number, j: number) => star[i]![j]!,
      structure: {},
    };
    const d = productDomain(factor, 3);
    const eps = 0.3;
    const t = tightExists(d, eps);
    const zDense = luSolveTransposed(luFactor(phiMatrix(d, eps)), new Float64Array(64).fill(1));
    const minDense = Math.min(...zDense);
    expect(minDense).toBeLessThan(0);
    expect(t.exists).toBe(false);
    expect(t.minZ).toBeCloseTo(minDense, 12);
    expect(zDense[t.minZIndex]).toBeCloseTo(minDense, 12);
    // and a non-product prior's regularity through the Kronecker path agrees with dense
    const r = regularity(d, eps, randomPrior(64, 1));
    const dm = denseMu(d, eps, randomPrior(64, 1));
    expect(r.minMu).toBeCloseTo(Math.min(...dm), 12);
  });

  it('Manhattan grid R x C = line ⊗ line (different sizes): mu and z vs dense, and a 200 x 300 grid without any dense Phi', () => {
    const g = gridDomain(4, 5, 2, 'manhattan');
    const eps = 0.3;
    const p = randomPrior(20, 4);
    const k = solveMu(g, eps, p);
    expect(k.method).toBe('kronecker');
    const dense = denseMu(g, eps, p);
    for (let i = 0; i < 20; i++) expect(k.mu![i]).toBeCloseTo(dense[i]!, 12);
    const zDense = luSolveTransposed(luFactor(phiMatrix(g, eps)), new Float64Array(20).fill(1));
    const t = tightExists(g, eps);
    expect(t.method).toBe('kronecker');
    expect(t.minZ).toBeCloseTo(Math.min(...zDense), 13);
    expect(zDense[t.minZIndex]).toBeCloseTo(t.minZ, 13);
    // large: product prior pr ⊗ pc on a 200 x 300 grid (60000 points; dense Phi would be 3.6e9 entries)
    const R = 200;
    const C = 300;
    const big = gridDomain(R, C, 1, 'manhattan');
    const pr = randomPrior(R, 1);
    const pc = randomPrior(C, 2);
    const prior = new Float64Array(R * C);
    for (let r = 0; r < R; r++) for (let c = 0; c < C; c++) prior[r * C + c] = pr[r]! * pc[c]!;
    const mu = solveMu(big, 0.2, prior).mu!;
    const muR = luSolveTransposed(luFactor(phiMatrix(lineDomain(R), 0.2)), pr);
    const muC = luSolveTransposed(luFactor(phiMatrix(lineDomain(C), 0.2)), pc);
    for (const [r, c] of [
      [0, 0],
      [17, 250],
      [199, 299],
      [100, 1],
    ] as const)
      expect(mu[r * C + c]).toBeCloseTo(muR[r]! * muC[c]!, 13);
  });

  it('extremeProduct vs enumeration', () => {
    const f = [Float64Array.from([-2, 0.5, 3]), Float64Array.from([1, -1]), Float64Array.from([-0.5, 4])];
    let mn = Infinity;
    let mx = -Infinity;
    for (const a of f[0]!)
      for (const b of f[1]!) for (const c of f[2]!) ((mn = Math.min(mn, a * b * c)), (mx = Math.max(mx, a * b * c)));
    const e = extremeProduct(f);
    expect(e.min).toBe(mn);
    expect(e.max).toBe(mx);
    expect(f[0]![e.argMin[0]!]! * f[1]![e.argMin[1]!]! * f[2]![e.argMin[2]!]!).toBe(mn);
  });
});
