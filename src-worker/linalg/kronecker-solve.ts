import { MechError } from '../../src-shared/errors';
import { Matrix } from './matrix';
import { luFactor, luSolve } from './lu';

/**
 * Linear algebra with a Kronecker product A = A_0 (x) A_1 (x) ... (x) A_{u-1}
 * of small square factors, never forming the N x N product (N = prod v_k).
 * Index convention (as domain.structure.product): a vector index is the
 * u-digit number i = sum_k i_k * stride_k with coordinate 0 most significant,
 * so A[i][j] = prod_k A_k[i_k][j_k].
 *
 * Mode product: applying B to coordinate k alone transforms every fibre
 * (all indices differing only in i_k) by B, O(N v_k) work. Then
 *   A x       = mode products with A_k for every k,
 *   A^-1 b    = mode products with A_k^-1 (since (x)A_k^-1 = ((x)A_k)^-1),
 *   x A = b   = (x)A_k^T x = b, mode products with A_k^-T.
 * Used for Phi on V^u with the Hamming metric (SPEC §5): Phi is the u-th
 * Kronecker power of the per-individual matrix.
 */
function kroneckerSize(factors: readonly Matrix[]): number {
  let n = 1;
  for (const f of factors) {
    if (f.rows !== f.cols)
      throw new MechError('invalid-input', `Kronecker factor must be square, got ${f.rows} x ${f.cols}`);
    n *= f.rows;
  }
  return n;
}

/** x <- (I (x) .. (x) B (x) .. (x) I) x, B acting on coordinate k; B given row-major v x v. */
function modeProduct(
  factors: readonly { rows: number }[],
  k: number,
  b: Float64Array,
  x: Float64Array,
  fibre: Float64Array,
): void {
  const v = factors[k]!.rows;
  let stride = 1;
  for (let j = k + 1; j < factors.length; j++) stride *= factors[j]!.rows;
  const block = v * stride;
  const n = x.length;
  for (let o = 0; o < n; o += block) {
    for (let t = 0; t < stride; t++) {
      const base = o + t;
      for (let i = 0; i < v; i++) fibre[i] = x[base + i * stride]!;
      for (let i = 0; i < v; i++) {
        let s = 0;
        const bo = i * v;
        for (let j = 0; j < v; j++) s += b[bo + j]! * fibre[j]!;
        x[base + i * stride] = s;
      }
    }
  }
}

/** y = ((x)A_k) x */
export function kroneckerMatVec(factors: readonly Matrix[], x: Float64Array, out?: Float64Array): Float64Array {
  const n = kroneckerSize(factors);
  if (x.length !== n)
    throw new MechError('invalid-input', `vector has ${x.length} entries, the Kronecker product has ${n}`);
  const y = out ?? new Float64Array(n);
  if (y !== x) y.set(x);
  const fibre = new Float64Array(maxSide(factors));
  for (let k = 0; k < factors.length; k++) modeProduct(factors, k, factors[k]!.data, y, fibre);
  return y;
}

/** Explicit inverse of a small factor (or its transpose); MechError when singular. */
function factorInverse(a: Matrix, transpose = false, what = 'Kronecker factor'): Float64Array {
  const v = a.rows;
  const f = luFactor(a);
  if (f.singular) {
    throw new MechError('not-applicable', `${what} (${v} x ${v}) is singular, so the Kronecker product is singular`, {
      singular: true,
    });
  }
  const inv = new Float64Array(v * v);
  const e = new Float64Array(v);
  for (let j = 0; j < v; j++) {
    e.fill(0);
    e[j] = 1;
    const col = luSolve(f, e); // column j of A^-1
    for (let i = 0; i < v; i++) {
      if (transpose) inv[j * v + i] = col[i]!;
      else inv[i * v + j] = col[i]!;
    }
  }
  return inv;
}

interface KroneckerSolveOptions {
  /** Solve x ((x)A_k) = b (row vector) instead of ((x)A_k) x = b. */
  transpose?: boolean;
}

/** Solve ((x)A_k) x = b (or x ((x)A_k) = b), factor by factor. */
export function kroneckerSolve(
  factors: readonly Matrix[],
  b: Float64Array,
  opts: KroneckerSolveOptions = {},
): Float64Array {
  const n = kroneckerSize(factors);
  if (b.length !== n)
    throw new MechError('invalid-input', `right-hand side has ${b.length} entries, the Kronecker product has ${n}`);
  const x = b.slice();
  const fibre = new Float64Array(maxSide(factors));
  // Identical factors (a Kronecker power) share one inverse.
  const cache = new Map<Matrix, Float64Array>();
  for (let k = 0; k < factors.length; k++) {
    const a = factors[k]!;
    let inv = cache.get(a);
    if (!inv) {
      inv = factorInverse(a, opts.transpose ?? false, `Kronecker factor ${k}`);
      cache.set(a, inv);
    }
    modeProduct(factors, k, inv, x, fibre);
  }
  return x;
}

/** Row i of (x)A_k: out[j] = prod_k A_k[i_k][j_k], O(N). */
export function kroneckerRow(factors: readonly Matrix[], i: number, out: Float64Array): Float64Array {
  const u = factors.length;
  // digits of i, coordinate 0 most significant
  const digits = new Array<number>(u);
  let rest = i;
  for (let k = u - 1; k >= 0; k--) {
    const v = factors[k]!.rows;
    digits[k] = rest % v;
    rest = Math.floor(rest / v);
  }
  out[0] = 1;
  let len = 1;
  for (let k = 0; k < u; k++) {
    const a = factors[k]!;
    const v = a.rows;
    const ro = digits[k]! * v;
    // expand in place from the back: out[p * v + t] = out[p] * a[i_k][t]
    for (let p = len - 1; p >= 0; p--) {
      const val = out[p]!;
      for (let t = v - 1; t >= 0; t--) out[p * v + t] = val * a.data[ro + t]!;
    }
    len *= v;
  }
  return out;
}

function maxSide(factors: readonly Matrix[]): number {
  let m = 1;
  for (const f of factors) m = Math.max(m, f.rows);
  return m;
}
