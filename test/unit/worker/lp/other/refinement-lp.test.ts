import { describe, expect, it } from 'vitest';
import { Matrix, matMul } from '../../../../../src-worker/linalg/matrix';
import { findRefinement } from '../../../../../src-worker/lp/other/refinement-lp';
import { DenseChannel } from '../../../../../src-worker/mechanism/channel';
import { rrChannel, tgChannel } from '../../../support/lp-helpers';

describe('refinement by LP (SPEC §3)', () => {
  it('finds a row-stochastic P with A = B P when A is a post-processing of B', async () => {
    const B = new Matrix(5, 5, tgChannel(5, 0.8));
    const P0 = Matrix.fromRows([
      [0.5, 0.5, 0],
      [0.2, 0.3, 0.5],
      [0, 1, 0],
      [0.1, 0.1, 0.8],
      [0, 0, 1],
    ]);
    const A = matMul(B, P0);
    const r = await findRefinement(new DenseChannel(A), B);
    expect(r.refines).toBe(true);
    const P = r.P!;
    expect([P.rows, P.cols]).toEqual([5, 3]);
    for (let k = 0; k < 5; k++) {
      let s = 0;
      for (let j = 0; j < 3; j++) {
        expect(P.get(k, j)).toBeGreaterThanOrEqual(0);
        s += P.get(k, j);
      }
      expect(Math.abs(s - 1)).toBeLessThan(1e-12);
    }
    const BP = matMul(B, P);
    for (let i = 0; i < A.data.length; i++) expect(Math.abs(BP.data[i]! - A.data[i]!)).toBeLessThan(1e-8);
  });

  it('says none exists for a non-refinement, with a positive residual', async () => {
    // The identity is not a post-processing of randomised response (it leaks more).
    const rr = new Matrix(3, 3, rrChannel(3, 1));
    const r = await findRefinement(Matrix.identity(3), rr);
    expect(r.refines).toBe(false);
    expect(r.P).toBeUndefined();
    expect(r.residual).toBeGreaterThan(0.1);
    // ...while randomised response is a post-processing of the identity.
    const back = await findRefinement(rr, Matrix.identity(3));
    expect(back.refines).toBe(true);
    for (let i = 0; i < 9; i++) expect(Math.abs(back.P!.data[i]! - rr.data[i]!)).toBeLessThan(1e-9);
  });

  it('rejects channels on different secret sets', async () => {
    await expect(findRefinement(Matrix.identity(3), Matrix.identity(4))).rejects.toThrow(
      /same secrets: A has 3 rows, B has 4/,
    );
  });
});
