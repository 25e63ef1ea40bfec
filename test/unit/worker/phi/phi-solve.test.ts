import { describe, expect, it } from 'vitest';
import { solvePhi, solvePhiTransposed } from '../../../../src-worker/phi/phi-solve';
import { createPhiOperator } from '../../../../src-worker/phi/phi-operator';
import { kroneckerMatVec, kroneckerRow, kroneckerSolve } from '../../../../src-worker/linalg/kronecker-solve';
import { Matrix } from '../../../../src-worker/linalg/matrix';
import { phiMatrix } from '../../../../src-worker/metric/domain';
import { gridDomain } from '../../../../src-worker/metric/grid';
import { lineDomain } from '../../../../src-worker/metric/line';
import { ringDomain } from '../../../../src-worker/metric/ring';
import { cliqueDomain } from '../../../../src-worker/metric/clique';
import { MechError } from '../../../../src-shared/errors';
import { sumDomain } from '../../../../src-worker/metric/answer-domains';
import { bareClique, lcg, maxRelDiff, productDomain } from '../../support/structured-helpers';

const ones = (n: number) => new Float64Array(n).fill(1);

describe('solvePhi: FFT + PCG path against the dense solve', () => {
  for (const metric of ['euclidean', 'manhattan', 'chebyshev'] as const) {
    it(`grids with ${metric} distance, several sizes and eps, relative error < 1e-8`, () => {
      for (const [r, c, eps] of [
        [12, 12, 0.3],
        [20, 17, 0.7],
        [9, 25, 1.5],
        [20, 20, 3],
      ] as const) {
        const d = gridDomain(r, c, 1, metric);
        const rnd = lcg(r * 31 + c);
        for (const rhs of [ones(d.n), Float64Array.from({ length: d.n }, () => rnd())]) {
          const fast = solvePhi(d, eps, rhs, { method: 'lattice' });
          const dense = solvePhi(d, eps, rhs, { method: 'dense' });
          expect(fast.method).toBe('fft-pcg');
          expect(dense.method).toBe('dense-cholesky');
          expect(fast.relResidual).toBeLessThan(1e-11);
          expect(maxRelDiff(fast.x, dense.x)).toBeLessThan(1e-8);
        }
      }
    });
  }

  it('cell size scales eps: grid step 2 at eps equals step 1 at 2 eps', () => {
    const a = solvePhi(gridDomain(10, 14, 2, 'euclidean'), 0.4, ones(140), { method: 'lattice' });
    const b = solvePhi(gridDomain(10, 14, 1, 'euclidean'), 0.8, ones(140), { method: 'lattice' });
    expect(maxRelDiff(a.x, b.x)).toBeLessThan(1e-9);
  });

  it('lines and rings (any length, not only powers of two)', () => {
    for (const N of [2, 3, 50, 97, 128, 300]) {
      for (const eps of [0.1, 1]) {
        for (const d of [lineDomain(N), ringDomain(N)]) {
          const rnd = lcg(N);
          const rhs = Float64Array.from({ length: N }, () => rnd() + 0.1);
          const fast = solvePhi(d, eps, rhs, { method: 'lattice' });
          const dense = solvePhi(d, eps, rhs, { method: 'dense' });
          expect(maxRelDiff(fast.x, dense.x)).toBeLessThan(1e-8);
        }
      }
    }
  });

  it('ring: z = 1 / sum_r n_r exp(-eps r) (SPEC §5 closed form for ball-size-symmetric metrics)', () => {
    const N = 1001;
    const eps = 0.05;
    let s = 1;
    for (let r = 1; r <= 500; r++) s += 2 * Math.exp(-eps * r);
    // the closed form itself (auto), and CG on the FFT operator agreeing with it
    const closed = solvePhi(ringDomain(N), eps, ones(N));
    expect(closed.method).toBe('ball-sizes');
    expect(closed.relResidual).toBeLessThan(1e-14);
    const res = solvePhi(ringDomain(N), eps, ones(N), { method: 'lattice' });
    expect(res.method).toBe('fft-cg');
    for (const i of [0, 17, 500, 1000]) {
      expect(res.x[i]! * s).toBeCloseTo(1, 11);
      expect(closed.x[i]! * s).toBeCloseTo(1, 14);
    }
  });

  it('line: the tight-constraints z has the closed form of the truncated geometric (interior (1-a)/(1+a), ends 1/(1+a))', () => {
    const N = 1000;
    const eps = 0.2;
    const a = Math.exp(-eps);
    const res = solvePhi(lineDomain(N), eps, ones(N));
    expect(res.method).toBe('fft-pcg');
    expect(res.iterations).toBeLessThan(10);
    expect(res.x[0]).toBeCloseTo(1 / (1 + a), 11);
    expect(res.x[N - 1]).toBeCloseTo(1 / (1 + a), 11);
    for (const i of [1, 10, 500, N - 2]) expect(res.x[i]).toBeCloseTo((1 - a) / (1 + a), 11);
  });

  it('auto picks dense for small domains and the structure for large ones; transposed solve equals the solve', () => {
    expect(solvePhi(gridDomain(5, 5), 1, ones(25)).method).toBe('dense-cholesky');
    const big = gridDomain(30, 30, 1, 'manhattan');
    const r = solvePhi(big, 1, ones(900));
    expect(r.method).toBe('fft-pcg');
    const pi = Float64Array.from({ length: 900 }, (_, i) => (i % 7) + 1);
    const mu1 = solvePhi(big, 1, pi);
    const mu2 = solvePhiTransposed(big, 1, pi);
    expect(maxRelDiff(mu1.x, mu2.x)).toBe(0);
    // mu Phi = pi checked entry by entry with dense rows
    const op = createPhiOperator(big, 1, { method: 'dense' });
    const row = new Float64Array(900);
    for (const j of [0, 451, 899]) {
      op.row(j, row);
      let s = 0;
      for (let i = 0; i < 900; i++) s += mu2.x[i]! * row[i]!;
      expect(s).toBeCloseTo(pi[j]!, 9);
    }
  });

  it('clique (ball sizes 1, N-1): z = 1/(1+(N-1)e^-eps) with no n x n matrix, even where dense would be refused', () => {
    const N = 20000; // Phi would be 4 * 10^8 entries (3 GiB)
    const eps = 0.9;
    const r = solvePhi(bareClique(N), eps, ones(N));
    expect(r.method).toBe('ball-sizes');
    expect(r.x[123]).toBeCloseTo(1 / (1 + (N - 1) * Math.exp(-eps)), 15);
    expect(r.relResidual).toBeLessThan(1e-12);
    // a non-constant rhs has no closed form: dense, refused at this size
    const b = ones(N);
    b[0] = 2;
    expect(() => solvePhi(bareClique(N), eps, b)).toThrow(/too-large|over the limit/);
    // and on a small clique the closed form equals the dense solve
    const small = solvePhi(cliqueDomain(7), eps, ones(7));
    const dense = solvePhi(cliqueDomain(7), eps, ones(7), { method: 'dense' });
    expect(small.method).toBe('ball-sizes');
    expect(maxRelDiff(small.x, dense.x)).toBeLessThan(1e-14);
  });

  it('rejects bad input with typed errors naming the problem', () => {
    const d = gridDomain(4, 4);
    expect(() => solvePhi(d, 0, ones(16))).toThrow(/epsilon must be a finite number > 0/);
    expect(() => solvePhi(d, 1, ones(15))).toThrow(/15 entries but grid:4x4 has 16/);
    expect(() => solvePhi(d, 1, Float64Array.of(...ones(15), NaN), { method: 'lattice' })).toThrow(/entry 15 is NaN/);
    expect(() => solvePhi(cliqueDomain(4), 1, ones(4), { method: 'lattice' })).toThrow(MechError);
    expect(() => solvePhi(cliqueDomain(4), 1, ones(4), { method: 'lattice' })).toThrow(/no lattice structure/);
    try {
      solvePhi(gridDomain(30, 30), 1, ones(900), { method: 'dense', maxDenseEntries: 1000 });
      expect.unreachable();
    } catch (e) {
      expect((e as MechError).code).toBe('too-large');
    }
  });

  it('falls back to dense when CG cannot converge on a small domain, and throws when the domain is too large for that', () => {
    const d = gridDomain(12, 12, 1, 'chebyshev');
    const r = solvePhi(d, 0.5, ones(144), { method: 'lattice', maxIter: 2 });
    expect(r.method).toBe('dense-cholesky');
    expect(r.fellBack).toMatch(/stopped after 2 iterations/);
    expect(() => solvePhi(d, 0.5, ones(144), { method: 'lattice', maxIter: 2, maxDenseEntries: 100 })).toThrow(
      /stopped after 2 iterations/,
    );
  });
});

describe('indefinite Phi on a lattice (sum query answers, d = ceil(|i-j|/V))', () => {
  it('CG breaks down, MINRES with the same preconditioner solves it; equal to dense LU', () => {
    const d = sumDomain(100, 5); // 501 answers
    const eps = 0.5;
    const fast = solvePhi(d, eps, ones(d.n), { method: 'lattice', maxDenseEntries: 1000 });
    expect(fast.method).toBe('fft-minres');
    expect(fast.relResidual).toBeLessThan(1e-11);
    const dense = solvePhi(d, eps, ones(d.n), { method: 'dense' });
    expect(dense.method).toBe('dense-lu'); // Cholesky fails: not positive definite
    expect(maxRelDiff(fast.x, dense.x)).toBeLessThan(1e-8);
  });

  it('when MINRES cannot finish, the small domain falls back to dense and the large one gets a clear error', () => {
    const d = sumDomain(100, 5);
    const r = solvePhi(d, 0.5, ones(d.n), { method: 'lattice', maxIter: 5 });
    expect(r.method).toBe('dense-lu');
    expect(r.fellBack).toMatch(/not positive definite .* MINRES stopped after 5 iterations/);
    expect(() => solvePhi(d, 0.5, ones(d.n), { method: 'lattice', maxIter: 5, maxDenseEntries: 1000 })).toThrow(
      /MINRES stopped after 5 iterations/,
    );
  });
});

describe('Kronecker path for V^u with an additive metric', () => {
  it('matches the dense solve on small V^u (Hamming and line factors), both sides', () => {
    for (const [factor, u, eps] of [
      [cliqueDomain(2), 6, 0.5],
      [cliqueDomain(3), 4, 1],
      [lineDomain(4), 3, 0.3],
    ] as const) {
      const d = productDomain(factor, u);
      const rnd = lcg(d.n);
      const rhs = Float64Array.from({ length: d.n }, () => rnd());
      const fast = solvePhi(d, eps, rhs, { method: 'kronecker' });
      const dense = solvePhi(d, eps, rhs, { method: 'dense' });
      expect(fast.method).toBe('kronecker');
      expect(fast.relResidual).toBeLessThan(1e-12);
      expect(maxRelDiff(fast.x, dense.x)).toBeLessThan(1e-10);
    }
  });

  it('Hamming z for the uniform right-hand side is (1/(1+(v-1)e^-eps))^u (each factor row sums to 1+(v-1)a)', () => {
    const v = 4;
    const u = 8; // 65,536 points: never a dense 65k x 65k matrix
    const eps = 0.7;
    const res = solvePhi(productDomain(cliqueDomain(v), u), eps, ones(v ** u));
    expect(res.method).toBe('kronecker');
    const z = (1 / (1 + (v - 1) * Math.exp(-eps))) ** u;
    expect(res.x[0]).toBeCloseTo(z, 14);
    expect(res.x[12345]).toBeCloseTo(z, 14);
  });

  it('generic API: (A (x) B) x = b and x (A (x) B) = b for non-symmetric factors; rows and products', () => {
    const A = Matrix.fromRows([
      [2, 1],
      [0.5, 3],
    ]);
    const B = Matrix.fromRows([
      [1, 2, 0],
      [0, 1, 4],
      [1, 0, 1],
    ]);
    // dense Kronecker product for reference
    const K = new Matrix(6, 6);
    for (let i = 0; i < 6; i++)
      for (let j = 0; j < 6; j++) K.set(i, j, A.get(Math.floor(i / 3), Math.floor(j / 3)) * B.get(i % 3, j % 3));
    const xTrue = Float64Array.of(1, -2, 3, 0.5, 4, -1);
    const b = kroneckerMatVec([A, B], xTrue);
    for (let i = 0; i < 6; i++) {
      let s = 0;
      for (let j = 0; j < 6; j++) s += K.get(i, j) * xTrue[j]!;
      expect(b[i]).toBeCloseTo(s, 13);
    }
    const x = kroneckerSolve([A, B], b);
    for (let i = 0; i < 6; i++) expect(x[i]).toBeCloseTo(xTrue[i]!, 12);
    // row-vector solve: c = xTrue K, solve y K = c
    const c = new Float64Array(6);
    for (let j = 0; j < 6; j++) for (let i = 0; i < 6; i++) c[j]! += xTrue[i]! * K.get(i, j);
    const y = kroneckerSolve([A, B], c, { transpose: true });
    for (let i = 0; i < 6; i++) expect(y[i]).toBeCloseTo(xTrue[i]!, 12);
    const row = kroneckerRow([A, B], 4, new Float64Array(6));
    for (let j = 0; j < 6; j++) expect(row[j]).toBeCloseTo(K.get(4, j), 14);
    // singular factor: a clear error
    const S = Matrix.fromRows([
      [1, 1],
      [1, 1],
    ]);
    expect(() => kroneckerSolve([S, B], b)).toThrow(/singular/);
  });

  it('phiMatrix of the product equals the Kronecker rows', () => {
    const d = productDomain(lineDomain(3), 3);
    const phi = phiMatrix(d, 0.8);
    const op = createPhiOperator(d, 0.8, { method: 'kronecker' });
    const row = new Float64Array(27);
    for (let i = 0; i < 27; i++) {
      op.row(i, row);
      expect(maxRelDiff(row, phi.row(i))).toBeLessThan(1e-15);
    }
  });

  it('max-combined products have no Kronecker structure', () => {
    expect(() => solvePhi(productDomain(cliqueDomain(2), 3, 'max'), 1, ones(8), { method: 'kronecker' })).toThrow(
      /no kronecker structure/,
    );
  });
});
