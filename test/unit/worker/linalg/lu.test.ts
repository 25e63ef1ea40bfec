import { describe, expect, it } from 'vitest';
import { Matrix, matVec, assertDenseFits } from '../../../../src-worker/linalg/matrix';
import { luFactor, luSolve, luSolveTransposed, solveSymmetric, cholesky } from '../../../../src-worker/linalg/lu';
import { MechError } from '../../../../src-shared/errors';

function randomMatrix(n: number, seed: number): Matrix {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5;
  const m = new Matrix(n, n);
  for (let i = 0; i < n * n; i++) m.data[i] = rnd();
  return m;
}

describe('dense LU with partial pivoting', () => {
  it('solves A x = b and x A = b to 1e-10 on random systems', () => {
    for (const n of [1, 2, 5, 17, 40]) {
      const a = randomMatrix(n, n + 7);
      const xTrue = Float64Array.from({ length: n }, (_, i) => i - n / 3);
      const b = matVec(a, xTrue);
      const f = luFactor(a);
      expect(f.singular).toBe(false);
      const x = luSolve(f, b);
      for (let i = 0; i < n; i++) expect(x[i]).toBeCloseTo(xTrue[i]!, 8);
      // transposed: x A = c with c = xTrue A
      const c = new Float64Array(n);
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) c[j]! += xTrue[i]! * a.get(i, j);
      const y = luSolveTransposed(f, c);
      for (let i = 0; i < n; i++) expect(y[i]).toBeCloseTo(xTrue[i]!, 8);
    }
  });

  it('flags a singular matrix', () => {
    const a = Matrix.fromRows([
      [1, 2, 3],
      [2, 4, 6],
      [1, 0, 1],
    ]);
    expect(luFactor(a).singular).toBe(true);
    expect(() => luSolve(luFactor(a), new Float64Array(3))).toThrow(MechError);
  });

  it('symmetric solver uses Cholesky for SPD and LU otherwise', () => {
    const spd = Matrix.fromRows([
      [4, 1, 0],
      [1, 3, 1],
      [0, 1, 2],
    ]);
    const r = solveSymmetric(spd, Float64Array.from([1, 2, 3]))!;
    expect(r.method).toBe('cholesky');
    const back = matVec(spd, r.x);
    expect(Array.from(back)).toEqual([1, 2, 3].map((v) => expect.closeTo(v, 12)));
    const indefinite = Matrix.fromRows([
      [0, 1],
      [1, 0],
    ]);
    expect(cholesky(indefinite)).toBeNull();
    const r2 = solveSymmetric(indefinite, Float64Array.from([3, 5]))!;
    expect(r2.method).toBe('lu');
    expect(Array.from(r2.x)).toEqual([5, 3]);
  });

  it('refuses dense matrices over the memory limit with a typed error', () => {
    expect(() => assertDenseFits(100_000, 100_000, 'Phi')).toThrowError(/Phi would be a dense 100000 x 100000 matrix/);
    try {
      assertDenseFits(100_000, 100_000, 'Phi');
    } catch (e) {
      expect((e as MechError).code).toBe('too-large');
    }
  });
});
