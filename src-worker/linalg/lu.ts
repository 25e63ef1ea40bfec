import { MechError } from '../../src-shared/errors';
import { Matrix } from './matrix';

/**
 * LU factorisation with partial pivoting, in place on a copy: P A = L U with
 * unit lower L. Used for Phi z = 1 and mu Phi = pi (SPEC §2, §5) on dense
 * domains. A pivot below SINGULAR_RTOL * max|A| marks the matrix singular
 * (numerically); callers then decide by LP (SPEC §5).
 */
const SINGULAR_RTOL = 1e-13;

interface LU {
  n: number;
  lu: Float64Array; // row-major, L below diagonal (unit), U on and above
  perm: Int32Array; // row i of P A is row perm[i] of A
  singular: boolean;
  /** Smallest |pivot| / max|A|: a cheap conditioning hint. */
  minPivotRatio: number;
}

export function luFactor(a: Matrix): LU {
  if (a.rows !== a.cols) throw new MechError('invalid-input', `LU needs a square matrix, got ${a.rows} x ${a.cols}`);
  const n = a.rows;
  const lu = a.data.slice();
  const perm = new Int32Array(n);
  for (let i = 0; i < n; i++) perm[i] = i;
  let maxAbs = 0;
  for (let i = 0; i < lu.length; i++) maxAbs = Math.max(maxAbs, Math.abs(lu[i]!));
  let minPivotRatio = Infinity;
  let singular = maxAbs === 0 && n > 0;
  for (let k = 0; k < n; k++) {
    let p = k;
    let best = Math.abs(lu[k * n + k]!);
    for (let i = k + 1; i < n; i++) {
      const v = Math.abs(lu[i * n + k]!);
      if (v > best) {
        best = v;
        p = i;
      }
    }
    const ratio = maxAbs > 0 ? best / maxAbs : 0;
    if (ratio < minPivotRatio) minPivotRatio = ratio;
    if (ratio <= SINGULAR_RTOL) {
      singular = true;
      continue;
    }
    if (p !== k) {
      for (let j = 0; j < n; j++) {
        const t = lu[k * n + j]!;
        lu[k * n + j] = lu[p * n + j]!;
        lu[p * n + j] = t;
      }
      const t = perm[k]!;
      perm[k] = perm[p]!;
      perm[p] = t;
    }
    const pivot = lu[k * n + k]!;
    for (let i = k + 1; i < n; i++) {
      const f = lu[i * n + k]! / pivot;
      if (f === 0) continue;
      lu[i * n + k] = f;
      const io = i * n;
      const ko = k * n;
      for (let j = k + 1; j < n; j++) lu[io + j]! -= f * lu[ko + j]!;
    }
  }
  return { n, lu, perm, singular, minPivotRatio: n === 0 ? 1 : minPivotRatio };
}

/** Solve A x = b from a non-singular factorisation. */
export function luSolve(f: LU, b: Float64Array): Float64Array {
  if (f.singular) throw new MechError('not-applicable', 'the matrix is singular to working precision');
  const { n, lu, perm } = f;
  const x = new Float64Array(n);
  for (let i = 0; i < n; i++) x[i] = b[perm[i]!]!;
  for (let i = 0; i < n; i++) {
    let s = x[i]!;
    const io = i * n;
    for (let j = 0; j < i; j++) s -= lu[io + j]! * x[j]!;
    x[i] = s;
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = x[i]!;
    const io = i * n;
    for (let j = i + 1; j < n; j++) s -= lu[io + j]! * x[j]!;
    x[i] = s / lu[io + i]!;
  }
  return x;
}

/** Solve x A = b (i.e. A^T x^T = b^T) from a factorisation of A. */
export function luSolveTransposed(f: LU, b: Float64Array): Float64Array {
  if (f.singular) throw new MechError('not-applicable', 'the matrix is singular to working precision');
  const { n, lu, perm } = f;
  // A = P^T L U  =>  A^T = U^T L^T P ; solve U^T w = b, L^T v = w, x = P^T v
  const w = b.slice(0, n);
  for (let i = 0; i < n; i++) {
    let s = w[i]!;
    for (let j = 0; j < i; j++) s -= lu[j * n + i]! * w[j]!;
    w[i] = s / lu[i * n + i]!;
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = w[i]!;
    for (let j = i + 1; j < n; j++) s -= lu[j * n + i]! * w[j]!;
    w[i] = s;
  }
  const x = new Float64Array(n);
  for (let i = 0; i < n; i++) x[perm[i]!] = w[i]!;
  return x;
}

/**
 * Cholesky factorisation A = L L^T for symmetric positive definite A (the
 * symmetric solver: Phi = exp(-eps d) is SPD for many metrics, e.g. every
 * Euclidean or tree metric). Returns null when A is not positive definite, so
 * the caller falls back to LU.
 */
export function cholesky(a: Matrix): Float64Array | null {
  const n = a.rows;
  const l = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    let d = a.data[j * n + j]!;
    const jo = j * n;
    for (let k = 0; k < j; k++) d -= l[jo + k]! * l[jo + k]!;
    if (!(d > 0)) return null;
    const ljj = Math.sqrt(d);
    l[jo + j] = ljj;
    for (let i = j + 1; i < n; i++) {
      const io = i * n;
      let s = a.data[io + j]!;
      for (let k = 0; k < j; k++) s -= l[io + k]! * l[jo + k]!;
      l[io + j] = s / ljj;
    }
  }
  return l;
}

export function choleskySolve(l: Float64Array, b: Float64Array): Float64Array {
  const n = b.length;
  const y = b.slice();
  for (let i = 0; i < n; i++) {
    let s = y[i]!;
    const io = i * n;
    for (let k = 0; k < i; k++) s -= l[io + k]! * y[k]!;
    y[i] = s / l[io + i]!;
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = y[i]!;
    for (let k = i + 1; k < n; k++) s -= l[k * n + i]! * y[k]!;
    y[i] = s / l[i * n + i]!;
  }
  return y;
}

/**
 * Solve A x = b for a symmetric A: Cholesky when A is positive definite,
 * otherwise LU with partial pivoting. Returns null when A is singular.
 */
export function solveSymmetric(a: Matrix, b: Float64Array): { x: Float64Array; method: 'cholesky' | 'lu' } | null {
  const l = cholesky(a);
  if (l) return { x: choleskySolve(l, b), method: 'cholesky' };
  const f = luFactor(a);
  if (f.singular) return null;
  return { x: luSolve(f, b), method: 'lu' };
}

/** Solve a general square system; null when singular. */
export function solve(a: Matrix, b: Float64Array): Float64Array | null {
  const f = luFactor(a);
  if (f.singular) return null;
  return luSolve(f, b);
}
