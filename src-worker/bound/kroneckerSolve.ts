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
  const v = f.n;
  const N = v ** u;
  if (b.length !== N) throw new MechError('invalid-input', `right-hand side has ${b.length} entries, expected ${v}^${u} = ${N}`);
  const x = b.slice();
  const fibre = new Float64Array(v);
  const { lu, perm } = f;
  let stride = N / v; // mode 0: stride v^(u-1)
  for (let k = 0; k < u; k++) {
    const block = stride * v;
    for (let o = 0; o < N; o += block) {
      for (let i = 0; i < stride; i++) {
        const base = o + i;
        // gather with the row permutation, then L (unit) forward and U back substitution
        for (let j = 0; j < v; j++) fibre[j] = x[base + perm[j]! * stride]!;
        for (let r = 0; r < v; r++) {
          let s = fibre[r]!;
          const ro = r * v;
          for (let c = 0; c < r; c++) s -= lu[ro + c]! * fibre[c]!;
          fibre[r] = s;
        }
        for (let r = v - 1; r >= 0; r--) {
          let s = fibre[r]!;
          const ro = r * v;
          for (let c = r + 1; c < v; c++) s -= lu[ro + c]! * fibre[c]!;
          fibre[r] = s / lu[ro + r]!;
        }
        for (let j = 0; j < v; j++) x[base + j * stride] = fibre[j]!;
      }
    }
    stride /= v;
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
