import { MechError } from '../errors';
import { luFactor, type LU } from '../linalg/lu';
import type { Matrix } from '../linalg/matrix';

/**
 * Solve (A ⊗ A ⊗ ... ⊗ A) x = b (u factors, A v x v) without forming the
 * v^u x v^u matrix: (A^{⊗u})^{-1} = (A^{-1})^{⊗u}, applied mode by mode — for
 * each mode, every fibre (v entries at stride v^(u-1-k)) is solved with one
 * LU of A. Cost O(u v^(u+1)) time, O(v^u) memory (SPEC §5). Index layout:
 * coordinate 0 most significant (as DomainStructure.product). Returns null
 * when A is singular. For a symmetric A (every Phi) the same call solves
 * x (A^{⊗u}) = b.
 */
export function kroneckerPowerSolve(a: Matrix, u: number, b: Float64Array): Float64Array | null {
  const f = luFactor(a);
  if (f.singular) return null;
  return kroneckerPowerSolveLU(f, u, b);
}

export function kroneckerPowerSolveLU(f: LU, u: number, b: Float64Array): Float64Array {
  return kroneckerSolveLU(Array.from({ length: u }, () => f), b);
}

/**
 * Solve (A_0 ⊗ A_1 ⊗ ... ⊗ A_{u-1}) x = b from LUs of the factors (sizes may
 * differ; coordinate 0 most significant). O(N sum_k n_k) time for N = prod n_k.
 */
export function kroneckerSolveLU(factors: LU[], b: Float64Array): Float64Array {
  let N = 1;
  for (const f of factors) N *= f.n;
  if (b.length !== N) throw new MechError('invalid-input', `right-hand side has ${b.length} entries, expected ${factors.map((f) => f.n).join(' x ')} = ${N}`);
  for (const f of factors) if (f.singular) throw new MechError('not-applicable', 'a Kronecker factor is singular to working precision');
  const x = b.slice();
  // Mode k views x as [outer][n_k][stride]; the n_k fibre rows of one outer
  // block are solved together, each substitution step a contiguous axpy over
  // `stride` entries (cache friendly even for mode 0, where stride = N / n_0).
  let stride = N;
  let scratch = new Float64Array(0);
  for (const f of factors) {
    const v = f.n;
    const { lu, perm } = f;
    stride /= v;
    const block = stride * v;
    if (scratch.length < block) scratch = new Float64Array(block);
    for (let o = 0; o < N; o += block) {
      // permuted copy: scratch row r = x row perm[r]
      for (let r = 0; r < v; r++) {
        const src = o + perm[r]! * stride;
        const dst = r * stride;
        for (let i = 0; i < stride; i++) scratch[dst + i] = x[src + i]!;
      }
      // forward: row_r -= sum_{c<r} L[r][c] row_c   (L unit lower)
      for (let r = 1; r < v; r++) {
        const ro = r * stride;
        for (let c = 0; c < r; c++) {
          const l = lu[r * v + c]!;
          if (l === 0) continue;
          const co = c * stride;
          for (let i = 0; i < stride; i++) scratch[ro + i] -= l * scratch[co + i]!;
        }
      }
      // back: row_r = (row_r - sum_{c>r} U[r][c] row_c) / U[r][r]
      for (let r = v - 1; r >= 0; r--) {
        const ro = r * stride;
        for (let c = r + 1; c < v; c++) {
          const uu = lu[r * v + c]!;
          if (uu === 0) continue;
          const co = c * stride;
          for (let i = 0; i < stride; i++) scratch[ro + i] -= uu * scratch[co + i]!;
        }
        const inv = 1 / lu[r * v + r]!;
        for (let i = 0; i < stride; i++) scratch[ro + i] *= inv;
      }
      for (let i = 0; i < block; i++) x[o + i] = scratch[i]!;
    }
  }
  return x;
}

/** y = (A ⊗ ... ⊗ A) x, mode by mode (for residual checks and tests). */
export function kroneckerPowerMultiply(a: Matrix, u: number, xIn: Float64Array): Float64Array {
  const v = a.rows;
  const N = v ** u;
  if (xIn.length !== N) throw new MechError('invalid-input', `vector has ${xIn.length} entries, expected ${N}`);
  const x = xIn.slice();
  const fibre = new Float64Array(v);
  let stride = N / v;
  for (let k = 0; k < u; k++) {
    const block = stride * v;
    for (let o = 0; o < N; o += block)
      for (let i = 0; i < stride; i++) {
        const base = o + i;
        for (let r = 0; r < v; r++) {
          let s = 0;
          for (let c = 0; c < v; c++) s += a.data[r * v + c]! * x[base + c * stride]!;
          fibre[r] = s;
        }
        for (let r = 0; r < v; r++) x[base + r * stride] = fibre[r]!;
      }
    stride /= v;
  }
  return x;
}
