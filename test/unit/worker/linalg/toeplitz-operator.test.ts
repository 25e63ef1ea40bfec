import { describe, expect, it } from 'vitest';
import { ToeplitzOperator } from '../../../../src-worker/linalg/toeplitz-operator';
import { RealFFT2D } from '../../../../src-worker/linalg/real-fft-2d';
import { conjugateGradient } from '../../../../src-worker/linalg/conjugate-gradient';
import { minres } from '../../../../src-worker/linalg/minres';
import { Matrix, matVec } from '../../../../src-worker/linalg/matrix';
import { lcg } from '../../support/structured-helpers';

describe('FFT products with (block) Toeplitz matrices', () => {
  it('match the dense product on 1-D and 2-D shapes (odd, even, one row, one point)', () => {
    const rnd = lcg(3);
    const kernel = (a: number, b: number) => Math.exp(-0.4 * Math.hypot(a, b)) + 0.05 * Math.cos(a) * Math.cos(b);
    for (const shape of [[1], [2], [7], [16], [1, 5], [3, 5], [4, 4], [9, 2], [13, 11]]) {
      const op = new ToeplitzOperator(shape, kernel);
      const n1 = shape.length === 2 ? shape[0]! : 1;
      const n2 = shape.length === 2 ? shape[1]! : shape[0]!;
      const n = n1 * n2;
      const x = Float64Array.from({ length: n }, () => rnd() - 0.3);
      const y = op.apply(x, new Float64Array(n));
      for (let i = 0; i < n; i++) {
        let s = 0;
        const r = Math.floor(i / n2);
        const c = i % n2;
        for (let j = 0; j < n; j++) s += kernel(Math.floor(j / n2) - r, (j % n2) - c) * x[j]!;
        expect(Math.abs(s - y[i]!)).toBeLessThan(1e-13 * n);
      }
      // kernel table lookups are the kernel itself
      expect(op.kernelAt(n1 - 1, -(n2 - 1))).toBeCloseTo(kernel(n1 - 1, -(n2 - 1)), 14);
    }
  });

  it('round-trips real data through the half-spectrum transform', () => {
    const f = new RealFFT2D(8, 16);
    const src = Float64Array.from({ length: 5 * 16 }, (_, i) => Math.sin(i) * (i % 3));
    const spec = new Float64Array(f.spectrumLength);
    f.forward(src, 5, 16, 16, spec);
    // DC term = sum of the data
    let sum = 0;
    for (const v of src) sum += v;
    expect(spec[0]).toBeCloseTo(sum, 12);
    const back = new Float64Array(5 * 16);
    f.inverse(spec, 5, 16, 16, back);
    for (let i = 0; i < back.length; i++) expect(back[i]).toBeCloseTo(src[i]!, 13);
  });

  it('rejects sizes that are not powers of two', () => {
    expect(() => new RealFFT2D(3, 8)).toThrow(/power-of-two/);
    expect(() => new ToeplitzOperator([2, 2, 2], () => 1)).toThrow(/1-D and 2-D/);
  });
});

describe('conjugate gradients', () => {
  it('solves an SPD system to the tolerance and reports a true residual', () => {
    const n = 30;
    const a = new Matrix(n, n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) a.set(i, j, Math.exp(-0.5 * Math.abs(i - j)));
    const b = Float64Array.from({ length: n }, (_, i) => 1 + (i % 4));
    const r = conjugateGradient((x, out) => matVec(a, x, out as Float64Array<ArrayBuffer>), b, null, { tol: 1e-13 });
    expect(r.converged).toBe(true);
    expect(r.breakdown).toBe(false);
    expect(r.relResidual).toBeLessThan(1e-12);
    const back = matVec(a, r.x);
    for (let i = 0; i < n; i++) expect(back[i]).toBeCloseTo(b[i]!, 10);
  });

  it('detects a matrix that is not positive definite (breakdown)', () => {
    // diag(1, -1): p^T A p < 0 for the second direction
    const r = conjugateGradient(
      (x, out) => {
        out[0] = x[0]!;
        out[1] = -x[1]!;
        return out;
      },
      Float64Array.of(0, 1),
      null,
    );
    expect(r.breakdown).toBe(true);
    expect(r.converged).toBe(false);
  });
});

describe('MINRES (symmetric indefinite)', () => {
  it('solves an indefinite diagonal system exactly where CG breaks down', () => {
    const n = 50;
    const A = (x: Float64Array, out: Float64Array) => {
      for (let i = 0; i < n; i++) out[i] = (i % 2 ? -1 : 1) * (1 + i) * x[i]!;
      return out;
    };
    const b = Float64Array.from({ length: n }, (_, i) => 1 + (i % 3));
    expect(conjugateGradient(A, b, null).breakdown).toBe(true);
    const r = minres(A, b, null, { tol: 1e-13 });
    expect(r.converged).toBe(true);
    expect(r.relResidual).toBeLessThan(1e-12);
    for (let i = 0; i < n; i++) expect(r.x[i]).toBeCloseTo(b[i]! / ((i % 2 ? -1 : 1) * (1 + i)), 12);
  });

  it('with an SPD preconditioner solves a dense symmetric indefinite system', () => {
    const n = 12;
    const a = new Matrix(n, n);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) a.set(i, j, Math.cos(i * j + 1) + (i === j ? (i % 3) - 1.2 : 0));
    for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) a.set(i, j, a.get(j, i));
    const b = Float64Array.from({ length: n }, (_, i) => i - 4);
    const pre = (r: Float64Array, out: Float64Array) => {
      for (let i = 0; i < n; i++) out[i] = r[i]! / (1 + i);
      return out;
    };
    const r = minres((x, out) => matVec(a, x, out as Float64Array<ArrayBuffer>), b, pre, { tol: 1e-12 });
    expect(r.converged).toBe(true);
    const back = matVec(a, r.x);
    for (let i = 0; i < n; i++) expect(back[i]).toBeCloseTo(b[i]!, 9);
  });
});
