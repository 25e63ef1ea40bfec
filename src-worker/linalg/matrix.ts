import { MechError } from '../../src-shared/errors';

/**
 * Dense row-major matrix on a Float64Array. The only dense matrix type in the
 * engine: no arrays of arrays in hot loops.
 */
export class Matrix {
  readonly rows: number;
  readonly cols: number;
  readonly data: Float64Array;

  constructor(rows: number, cols: number, data?: Float64Array) {
    assertDenseFits(rows, cols, 'matrix');
    this.rows = rows;
    this.cols = cols;
    if (data) {
      if (data.length !== rows * cols)
        throw new MechError('internal', `matrix data has ${data.length} entries, expected ${rows * cols}`);
      this.data = data;
    } else {
      this.data = new Float64Array(rows * cols);
    }
  }

  get(i: number, j: number): number {
    return this.data[i * this.cols + j]!;
  }

  set(i: number, j: number, v: number): void {
    this.data[i * this.cols + j] = v;
  }

  /** A view of row i (no copy). */
  row(i: number): Float64Array {
    return this.data.subarray(i * this.cols, (i + 1) * this.cols);
  }

  clone(): Matrix {
    return new Matrix(this.rows, this.cols, this.data.slice());
  }

  static fromRows(rows: ArrayLike<ArrayLike<number>>): Matrix {
    const r = rows.length;
    const c = r === 0 ? 0 : rows[0]!.length;
    const m = new Matrix(r, c);
    for (let i = 0; i < r; i++) {
      const src = rows[i]!;
      if (src.length !== c) throw new MechError('invalid-input', `row ${i} has ${src.length} entries, expected ${c}`);
      for (let j = 0; j < c; j++) m.data[i * c + j] = src[j]!;
    }
    return m;
  }

  static identity(n: number): Matrix {
    const m = new Matrix(n, n);
    for (let i = 0; i < n; i++) m.data[i * n + i] = 1;
    return m;
  }

  toRows(): number[][] {
    const out: number[][] = [];
    for (let i = 0; i < this.rows; i++) out.push(Array.from(this.row(i)));
    return out;
  }
}

/**
 * Largest number of Float64 entries a dense object may hold (default 2^27 =
 * 134M entries = 1 GiB). Overridable with MECHSTUDIO_MAX_DENSE_ENTRIES.
 */
export const MAX_DENSE_ENTRIES: number = (() => {
  const env = typeof process !== 'undefined' ? process.env?.MECHSTUDIO_MAX_DENSE_ENTRIES : undefined;
  const v = env ? Number(env) : NaN;
  return Number.isFinite(v) && v > 0 ? v : 2 ** 27;
})();

/** Refuse, with a message naming the object and its size, a dense rows x cols array over the limit. */
export function assertDenseFits(rows: number, cols: number, what: string, limit = MAX_DENSE_ENTRIES): void {
  if (!Number.isInteger(rows) || !Number.isInteger(cols) || rows < 0 || cols < 0) {
    throw new MechError('invalid-input', `${what}: dimensions must be non-negative integers, got ${rows} x ${cols}`);
  }
  const entries = rows * cols;
  if (entries > limit) {
    const gib = (entries * 8) / 2 ** 30;
    throw new MechError(
      'too-large',
      `${what} would be a dense ${rows} x ${cols} matrix (${gib.toFixed(1)} GiB), over the limit of ${limit} entries; use a structured domain or a smaller one`,
      { rows, cols, limit },
    );
  }
}

/** y = A x */
export function matVec(a: Matrix, x: Float64Array, out = new Float64Array(a.rows)): Float64Array {
  const { rows, cols, data } = a;
  for (let i = 0; i < rows; i++) {
    let s = 0;
    const o = i * cols;
    for (let j = 0; j < cols; j++) s += data[o + j]! * x[j]!;
    out[i] = s;
  }
  return out;
}

/** C = A B */
export function matMul(a: Matrix, b: Matrix): Matrix {
  if (a.cols !== b.rows)
    throw new MechError('invalid-input', `cannot multiply ${a.rows}x${a.cols} by ${b.rows}x${b.cols}`);
  const c = new Matrix(a.rows, b.cols);
  const n = b.cols;
  for (let i = 0; i < a.rows; i++) {
    const co = i * n;
    for (let k = 0; k < a.cols; k++) {
      const aik = a.data[i * a.cols + k]!;
      if (aik === 0) continue;
      const bo = k * n;
      for (let j = 0; j < n; j++) c.data[co + j]! += aik * b.data[bo + j]!;
    }
  }
  return c;
}
