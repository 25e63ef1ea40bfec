import FFT from 'fft.js';
import { MechError } from '../../src-shared/errors';

/**
 * Planned 2-D FFT of real data on an M1 x M2 torus (powers of two; M1 = 1
 * for 1-D data), keeping only the non-redundant half spectrum k2 = 0..M2/2
 * (real input has a Hermitian spectrum). Plans and buffers are allocated
 * once and reused; everything is Float64Array.
 *
 * Layout of a spectrum: column-major by k2, i.e. complex entry (k1, k2) at
 * index 2 * (k2 * M1 + k1) (re) and +1 (im), so the column transforms work
 * on contiguous memory.
 *
 * Cost tricks (each exact): two real rows share one complex FFT (x_a + i x_b),
 * rows that are known to be zero on input are skipped, and on output only the
 * requested leading rows are transformed back.
 */
export class RealFFT2D {
  readonly M1: number;
  readonly M2: number;
  /** Number of stored spectrum columns: M2/2 + 1. */
  readonly H2: number;
  private readonly rowFft: FFT;
  private readonly colFft: FFT | null;
  private readonly rowIn: Float64Array;
  private readonly rowOut: Float64Array;
  private readonly colTmp: Float64Array;

  constructor(M1: number, M2: number) {
    if (!isPow2(M2) || M2 < 2 || !(M1 === 1 || (isPow2(M1) && M1 >= 2))) {
      throw new MechError(
        'internal',
        `RealFFT2D needs power-of-two sizes (M2 >= 2, M1 = 1 or >= 2), got ${M1} x ${M2}`,
      );
    }
    this.M1 = M1;
    this.M2 = M2;
    this.H2 = M2 / 2 + 1;
    this.rowFft = new FFT(M2);
    this.colFft = M1 > 1 ? new FFT(M1) : null;
    this.rowIn = new Float64Array(2 * M2);
    this.rowOut = new Float64Array(2 * M2);
    this.colTmp = new Float64Array(2 * Math.max(M1, 1));
  }

  /** Length (in doubles) of a half-spectrum buffer. */
  get spectrumLength(): number {
    return 2 * this.H2 * this.M1;
  }

  /**
   * Forward transform of R real rows (R <= M1) of length L <= M2 (row r at
   * src[r * stride .. r * stride + L), the rest of the torus zero) into the
   * half spectrum `spec` (length spectrumLength).
   */
  forward(src: Float64Array, R: number, L: number, stride: number, spec: Float64Array): void {
    const { M1, M2, H2, rowIn, rowOut } = this;
    spec.fill(0);
    for (let r = 0; r < R; r += 2) {
      const hasB = r + 1 < R;
      rowIn.fill(0);
      const oa = r * stride;
      const ob = (r + 1) * stride;
      for (let c = 0; c < L; c++) {
        rowIn[2 * c] = src[oa + c]!;
        if (hasB) rowIn[2 * c + 1] = src[ob + c]!;
      }
      this.rowFft.transform(rowOut, rowIn);
      for (let k = 0; k < H2; k++) {
        const m = k === 0 ? 0 : M2 - k;
        const wr = rowOut[2 * k]!;
        const wi = rowOut[2 * k + 1]!;
        const mr = rowOut[2 * m]!;
        const mi = rowOut[2 * m + 1]!;
        const ia = 2 * (k * M1 + r);
        spec[ia] = 0.5 * (wr + mr);
        spec[ia + 1] = 0.5 * (wi - mi);
        if (hasB) {
          spec[ia + 2] = 0.5 * (wi + mi);
          spec[ia + 3] = 0.5 * (mr - wr);
        }
      }
    }
    this.columnTransforms(spec, false);
  }

  /**
   * The column transforms of a half spectrum, in place: each of its H2 columns of M1 complex values (none when M1 = 1).
   */
  private columnTransforms(spec: Float64Array, inverse: boolean): void {
    const fft = this.colFft;
    if (!fft) return;
    const len = 2 * this.M1;
    for (let k = 0; k < this.H2; k++) {
      const col = spec.subarray(k * len, (k + 1) * len);
      if (inverse) fft.inverseTransform(this.colTmp, col);
      else fft.transform(this.colTmp, col);
      col.set(this.colTmp);
    }
  }

  /**
   * Inverse transform of a half spectrum (destroyed) into the leading R real
   * rows of length L: row r written to dst[r * stride .. + L).
   */
  inverse(spec: Float64Array, R: number, L: number, stride: number, dst: Float64Array): void {
    const { M1, M2, H2, rowIn, rowOut } = this;
    this.columnTransforms(spec, true);
    for (let r = 0; r < R; r += 2) {
      const hasB = r + 1 < R;
      // Z[k] = Y_a[k] + i Y_b[k], completing each Hermitian row spectrum.
      for (let k = 0; k < M2; k++) {
        let ar: number, ai: number, br: number, bi: number;
        if (k < H2) {
          const ia = 2 * (k * M1 + r);
          ar = spec[ia]!;
          ai = spec[ia + 1]!;
          br = hasB ? spec[ia + 2]! : 0;
          bi = hasB ? spec[ia + 3]! : 0;
        } else {
          const ia = 2 * ((M2 - k) * M1 + r);
          ar = spec[ia]!;
          ai = -spec[ia + 1]!;
          br = hasB ? spec[ia + 2]! : 0;
          bi = hasB ? -spec[ia + 3]! : 0;
        }
        rowIn[2 * k] = ar - bi;
        rowIn[2 * k + 1] = ai + br;
      }
      this.rowFft.inverseTransform(rowOut, rowIn);
      const oa = r * stride;
      const ob = (r + 1) * stride;
      for (let c = 0; c < L; c++) {
        dst[oa + c] = rowOut[2 * c]!;
        if (hasB) dst[ob + c] = rowOut[2 * c + 1]!;
      }
    }
  }
}

function isPow2(v: number): boolean {
  return Number.isInteger(v) && v >= 1 && (v & (v - 1)) === 0;
}

/** Smallest power of two >= v (and >= min). */
export function nextPow2(v: number, min = 1): number {
  let p = 1;
  while (p < v || p < min) p *= 2;
  return p;
}
