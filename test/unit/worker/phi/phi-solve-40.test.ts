import { describe, expect, it } from 'vitest';
import { solvePhi } from '../../../../src-worker/phi/phi-solve';
import { gridDomain } from '../../../../src-worker/metric/grid';
import { maxRelDiff } from '../../support/structured-helpers';

// The largest grids of the dense comparison (n = 1600: about a second of
// Cholesky each), one eps per metric; smaller grids and more eps are in
// phi-solve.test.ts.
describe('solvePhi on 40 x 40 grids, FFT + PCG against dense Cholesky', () => {
  for (const [metric, eps] of [
    ['euclidean', 0.5],
    ['manhattan', 0.25],
    ['chebyshev', 1.2],
  ] as const) {
    it(`${metric}, eps ${eps}: relative error < 1e-8`, () => {
      const d = gridDomain(40, 40, 1, metric);
      const rhs = new Float64Array(d.n).fill(1);
      const fast = solvePhi(d, eps, rhs);
      const dense = solvePhi(d, eps, rhs, { method: 'dense' });
      expect(fast.method).toBe('fft-pcg');
      expect(fast.iterations).toBeLessThan(60);
      expect(maxRelDiff(fast.x, dense.x)).toBeLessThan(1e-8);
    });
  }
});
