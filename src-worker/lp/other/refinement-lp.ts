import { MechError } from '../../../src-shared/errors';
import { Matrix } from '../../linalg/matrix';
import { type RowSource, toDense } from '../../mechanism/channel';
import type { LpOptions } from '../solver/lp-options';
import { solveSparseLp } from '../solver/persistent-lp';
import { SparseLp } from '../solver/sparse-model';

export interface RefinementResult {
  /** A = B P for some row-stochastic P (docs/measures.md, "Refinement": B is refined by A). */
  refines: boolean;
  /** The witness P (cols(B) x cols(A)) when it exists. */
  P?: Matrix;
  /** min over row-stochastic P of sum_ij |(B P - A)_ij| (0 up to rounding iff A = B P). */
  residual: number;
}

/** Absolute tolerance on the L1 residual per entry of A. */
const REFINEMENT_TOL = 1e-9;

/**
 * Is A = B P for a row-stochastic P? (docs/measures.md, "Refinement": A is a
 * post-processing of B.) Decided by the LP
 *   min sum (s+ + s-)  s.t.  B P - A = s+ - s-,  P 1 = 1,  P, s+, s- >= 0,
 * which is always feasible, so "no refinement" is a positive residual rather
 * than a solver infeasibility verdict. Refines iff the residual is at most
 * REFINEMENT_TOL per entry of A (entries of A and B up to ~1e-9 apart are equal).
 */
export async function findRefinement(
  A: RowSource | Matrix,
  B: RowSource | Matrix,
  options?: LpOptions,
): Promise<RefinementResult> {
  const a = A instanceof Matrix ? A : toDense(A).matrix;
  const b = B instanceof Matrix ? B : toDense(B).matrix;
  if (a.rows !== b.rows)
    throw new MechError(
      'invalid-input',
      `refinement needs channels on the same secrets: A has ${a.rows} rows, B has ${b.rows}`,
    );
  const n = a.rows;
  const ma = a.cols;
  const mb = b.cols;
  const nP = mb * ma;
  const nS = n * ma;
  // Columns: P[k][j] at k*ma + j, then s+[i][j] at nP + i*ma + j, then s-[i][j] at nP + nS + i*ma + j.
  const lp = new SparseLp(nP + 2 * nS, nS + mb, n * ma * (mb + 2) + nP);
  for (let c = nP; c < nP + 2 * nS; c++) lp.colCost[c] = 1;
  const idx = new Int32Array(mb + 2);
  const val = new Float64Array(mb + 2);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < ma; j++) {
      let k = 0;
      for (let t = 0; t < mb; t++) {
        const v = b.data[i * mb + t]!;
        if (v !== 0) {
          idx[k] = t * ma + j;
          val[k] = v;
          k++;
        }
      }
      idx[k] = nP + i * ma + j;
      val[k++] = -1;
      idx[k] = nP + nS + i * ma + j;
      val[k++] = 1;
      const rhs = a.data[i * ma + j]!;
      lp.addRow(rhs, rhs, idx.subarray(0, k), val.subarray(0, k));
    }
  const ones = new Float64Array(ma).fill(1);
  const pidx = new Int32Array(ma);
  for (let t = 0; t < mb; t++) {
    for (let j = 0; j < ma; j++) pidx[j] = t * ma + j;
    lp.addRow(1, 1, pidx, ones);
  }
  const sol = await solveSparseLp(lp, `the refinement LP (${n} x ${ma} by ${n} x ${mb})`, {
    ...options,
    highsOptions: { small_matrix_value: 1e-12, ...options?.highsOptions },
  });
  const residual = Math.max(0, sol.objective);
  if (residual > REFINEMENT_TOL * Math.max(1, nS)) return { refines: false, residual };
  const P = new Matrix(mb, ma);
  for (let t = 0; t < mb; t++) {
    let s = 0;
    for (let j = 0; j < ma; j++) {
      const v = Math.max(0, sol.colValue[t * ma + j]!);
      P.data[t * ma + j] = v;
      s += v;
    }
    for (let j = 0; j < ma; j++) P.data[t * ma + j] = P.data[t * ma + j]! / s;
  }
  return { refines: true, P, residual };
}
