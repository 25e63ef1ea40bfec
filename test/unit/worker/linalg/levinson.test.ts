import { describe, expect, it } from 'vitest';
import { levinsonSolve, toeplitzResidual } from '../../../../src-worker/linalg/levinson';
import { luFactor, luSolve } from '../../../../src-worker/linalg/lu';
import { phiMatrix } from '../../../../src-worker/metric/domain';
import { parseDomainSpec } from '../../../../src-worker/metric/parse-domain-spec';
import { tightExists } from '../../../../src-worker/bound/tight-exists';

describe('Levinson recursion for symmetric Toeplitz systems', () => {
  it('solves an indefinite Toeplitz system like LU (Phi of sum:20,3: d = ceil(|k|/3))', () => {
    const n = 61;
    for (const eps of [0.2, 0.7, 1.5]) {
      const r = Float64Array.from({ length: n }, (_, k) => Math.exp(-eps * Math.ceil(k / 3)));
      const b = Float64Array.from({ length: n }, (_, i) => 1 + (i % 7) / 10);
      const x = levinsonSolve(r, b)!;
      const dense = luSolve(luFactor(phiMatrix(parseDomainSpec('sum:20,3'), eps)), b);
      for (let i = 0; i < n; i++) expect(x[i]).toBeCloseTo(dense[i]!, 9);
      expect(toeplitzResidual(r, x, b)).toBeLessThan(1e-10);
    }
  });

  it('reports a breakdown (singular leading minor) as null', () => {
    // [[1, 1], [1, 1]]: the 2 x 2 minor is singular
    expect(levinsonSolve(Float64Array.of(1, 1), Float64Array.of(1, 2))).toBeNull();
  });

  it('tightExists on the sum answer graph agrees with the dense solve (min z, its sign) on both sides of the threshold', () => {
    const d = parseDomainSpec('sum:40,5'); // 201 points
    for (const eps of [0.3, 0.9, 0.96, 0.97, 1.1, 2]) {
      const t = tightExists(d, eps);
      const z = luSolve(luFactor(phiMatrix(d, eps)), new Float64Array(d.n).fill(1));
      const minZ = Math.min(...z);
      expect(t.minZ).toBeCloseTo(minZ, 10);
      expect(t.exists).toBe(minZ >= -1e-10 * Math.max(1, ...z.map(Math.abs)));
    }
  });
});
