import { MechError } from '../../src-shared/errors';
import { RealFFT2D, nextPow2 } from './real-fft-2d';

/**
 * A (block) Toeplitz matrix T[x][x'] = k(x' - x) on a 1-D or 2-D lattice of
 * shape [n1, n2] (row-major index x = r * n2 + c; 1-D: n1 = 1), applied in
 * O(n log n) by embedding it in a circulant (BCCB) matrix on an M1 x M2
 * torus (powers of two, M >= 2n) and diagonalising that by FFT.
 *
 * The embedding uses the minimum-image kernel: torus offset j stands for the
 * lattice offset j (j < M/2) or j - M (j > M/2); the Nyquist offset M/2 is
 * never used by T (|offset| <= n - 1 < M/2) and gets the average of k(M/2)
 * and k(-M/2) so the embedding stays even (its spectrum real). Because the
 * minimum-image kernel is the periodisation of k truncated to the torus, its
 * spectrum samples the symbol of the infinite Toeplitz operator, which makes
 * C^-1 restricted to the lattice a good preconditioner (see
 * conjugate-gradient.ts and phi/lattice-phi.ts).
 *
 * The kernel must be even: k(-d) = k(d) (true for exp(-eps d) with a metric).
 */
export class ToeplitzOperator {
  readonly n1: number;
  readonly n2: number;
  readonly n: number;
  readonly fft: RealFFT2D;
  /** Minimum-image kernel on the torus, row-major M1 x M2 (also the table used for rows). */
  readonly kernelTorus: Float64Array;
  /** Real spectrum of the embedding, index k2 * M1 + k1 (k2 = 0..M2/2). */
  readonly spectrum: Float64Array;
  private readonly work: Float64Array;
  /** Count of circulant applications (matrix-vector products and preconditioner solves). */
  applications = 0;

  constructor(shape: readonly number[], kernel: (d1: number, d2: number) => number, opts: { padFactor?: number } = {}) {
    if (shape.length !== 1 && shape.length !== 2) {
      throw new MechError('not-applicable', `FFT path supports 1-D and 2-D lattices, got ${shape.length} dimensions`);
    }
    const n1 = shape.length === 2 ? shape[0]! : 1;
    const n2 = shape.length === 2 ? shape[1]! : shape[0]!;
    if (!Number.isInteger(n1) || !Number.isInteger(n2) || n1 < 1 || n2 < 1) {
      throw new MechError('invalid-input', `lattice shape must be positive integers, got [${shape.join(', ')}]`);
    }
    const pad = opts.padFactor ?? 2;
    this.n1 = n1;
    this.n2 = n2;
    this.n = n1 * n2;
    const M1 = n1 === 1 ? 1 : nextPow2(pad * n1, 2);
    const M2 = nextPow2(pad * n2, 2);
    this.fft = new RealFFT2D(M1, M2);
    const torus = new Float64Array(M1 * M2);
    const off = (j: number, M: number) => (j <= M / 2 ? j : j - M);
    for (let j1 = 0; j1 < M1; j1++) {
      const d1 = M1 === 1 ? 0 : off(j1, M1);
      const nyq1 = M1 > 1 && j1 === M1 / 2;
      for (let j2 = 0; j2 < M2; j2++) {
        const d2 = off(j2, M2);
        const nyq2 = j2 === M2 / 2;
        let v: number;
        if (nyq1 && nyq2) v = 0.5 * (kernel(d1, d2) + kernel(d1, -d2));
        else if (nyq1) v = 0.5 * (kernel(d1, d2) + kernel(-d1, d2));
        else if (nyq2) v = 0.5 * (kernel(d1, d2) + kernel(d1, -d2));
        else v = kernel(d1, d2);
        if (!Number.isFinite(v))
          throw new MechError('invalid-input', `kernel at offset (${d1}, ${d2}) is ${v}, not a finite number`);
        torus[j1 * M2 + j2] = v;
      }
    }
    this.kernelTorus = torus;
    const spec = new Float64Array(this.fft.spectrumLength);
    this.fft.forward(torus, M1, M2, M2, spec);
    const lambda = new Float64Array(this.fft.H2 * M1);
    for (let i = 0; i < lambda.length; i++) lambda[i] = spec[2 * i]!; // imaginary parts vanish (even kernel)
    this.spectrum = lambda;
    this.work = spec;
  }

  get M1(): number {
    return this.fft.M1;
  }
  get M2(): number {
    return this.fft.M2;
  }

  /** k(d1, d2) for |d1| < n1, |d2| < n2, from the torus table (no exp). */
  kernelAt(d1: number, d2: number): number {
    const M1 = this.fft.M1;
    const M2 = this.fft.M2;
    const j1 = M1 === 1 ? 0 : d1 < 0 ? d1 + M1 : d1;
    const j2 = d2 < 0 ? d2 + M2 : d2;
    return this.kernelTorus[j1 * M2 + j2]!;
  }

  /** out = T x (x, out of length n; may alias). */
  apply(x: Float64Array, out: Float64Array): Float64Array {
    return this.applySpectrum(this.spectrum, x, out);
  }

  /**
   * out = R diag-in-Fourier(s) R^T x: the circulant with spectrum s restricted
   * to the lattice (s = spectrum gives T x; s = 1/spectrum gives the
   * preconditioner).
   */
  applySpectrum(s: Float64Array, x: Float64Array, out: Float64Array): Float64Array {
    const { fft, work, n1, n2 } = this;
    fft.forward(x, n1, n2, n2, work);
    const len = s.length;
    for (let i = 0; i < len; i++) {
      const v = s[i]!;
      work[2 * i]! *= v;
      work[2 * i + 1]! *= v;
    }
    fft.inverse(work, n1, n2, n2, out);
    this.applications++;
    return out;
  }

  /** Doubles held by this operator (for memory reports): torus, spectrum, work. */
  get heldEntries(): number {
    return this.kernelTorus.length + this.spectrum.length + this.work.length;
  }
}
