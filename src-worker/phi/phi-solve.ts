import { MechError } from '../../src-shared/errors';
import type { Domain } from '../metric/domain';
import { MAX_DENSE_ENTRIES } from '../linalg/matrix';
import {
  ballSizeSolution,
  createPhiOperator,
  structuredPhiMethod,
  type PhiOperator,
  type PhiOperatorOptions,
  type PhiSolveInfo,
  type PhiSolveOptions,
} from './phi-operator';

/**
 * One entry point for Phi z = rhs, Phi[x][x'] = exp(-eps d(x, x')) (SPEC §2
 * tight constraints, SPEC §5 mu Phi = pi): picks the structured path
 * (lattice -> FFT + PCG, product with additive metric -> Kronecker) or the
 * dense one (phiMatrix + Cholesky/LU) and reports which, with iterations,
 * relative residual ||Phi x - rhs|| / ||rhs|| and time.
 *
 * Ball-size-symmetric metrics (ring, clique, Hamming cube) with a constant
 * rhs (Phi z = 1) use the closed form z = 1/S of SPEC §5 ('ball-sizes').
 *
 * When the structured path fails (CG breakdown: Phi not positive definite;
 * or no convergence) and the domain is small enough for a dense matrix, it
 * falls back to the dense solve and says so (fellBack); otherwise the
 * MechError from the structured path is thrown. A singular dense Phi throws
 * MechError('not-applicable', ..., { singular: true }): SPEC §5 then decides
 * regularity by LP.
 */
export interface SolvePhiOptions extends PhiOperatorOptions, PhiSolveOptions {}

export interface SolvePhiResult extends PhiSolveInfo {
  x: Float64Array;
  n: number;
  /** The structured path failed and the dense solve was used instead. */
  fellBack?: string;
  /** Time to build the operator (FFT plans, kernel spectrum, dense matrix), ms. */
  setupMs: number;
}

export function solvePhi(
  domain: Domain,
  eps: number,
  rhs: ArrayLike<number>,
  opts: SolvePhiOptions = {},
): SolvePhiResult {
  return solvePhiWith(domain, eps, rhs, opts).result;
}

/** mu Phi = pi (SPEC §5). Phi is symmetric, so this is the same solve; named for the caller's intent. */
export function solvePhiTransposed(
  domain: Domain,
  eps: number,
  rhs: ArrayLike<number>,
  opts: SolvePhiOptions = {},
): SolvePhiResult {
  return solvePhi(domain, eps, rhs, opts);
}

/** Like solvePhi, also returning the operator (kept by implicit mechanisms for rows on demand). */
export function solvePhiWith(
  domain: Domain,
  eps: number,
  rhs: ArrayLike<number>,
  opts: SolvePhiOptions = {},
): { result: SolvePhiResult; op: PhiOperator } {
  if (rhs.length !== domain.n) {
    throw new MechError(
      'invalid-input',
      `right-hand side has ${rhs.length} entries but ${domain.spec} has ${domain.n} points`,
    );
  }
  const b = rhs instanceof Float64Array ? rhs : Float64Array.from(rhs);
  const t0 = performance.now();
  // SPEC §5 closed form (ball-size-symmetric metric, constant rhs, e.g. Phi z = 1 on a clique):
  // exact, O(n); the operator kept for rows is the structured one, else entries from the metric.
  const want = opts.method ?? 'auto';
  if (want === 'auto' && domain.structure.ballSizes) {
    const x = ballSizeSolution(domain, eps, b);
    if (x) {
      const op = createPhiOperator(domain, eps, {
        ...opts,
        method: structuredPhiMethod(domain) ?? (domain.n > (opts.denseBelow ?? 400) ? 'metric' : 'dense'),
      });
      const setupMs = performance.now() - t0;
      const t1 = performance.now();
      const relResidual = op.method === 'metric' ? op.solve(b).info.relResidual : residualWith(op, x, b);
      return {
        result: {
          x,
          n: domain.n,
          setupMs,
          method: 'ball-sizes',
          iterations: 0,
          relResidual,
          timeMs: performance.now() - t1,
        },
        op,
      };
    }
  }
  const op = createPhiOperator(domain, eps, opts);
  const setupMs = performance.now() - t0;
  const solveOpts: PhiSolveOptions = {
    ...(opts.tol !== undefined ? { tol: opts.tol } : {}),
    ...(opts.maxIter !== undefined ? { maxIter: opts.maxIter } : {}),
    ...(opts.precondition !== undefined ? { precondition: opts.precondition } : {}),
    ...(opts.onIteration ? { onIteration: opts.onIteration } : {}),
  };
  try {
    const { x, info } = op.solve(b, solveOpts);
    return { result: { x, n: domain.n, setupMs, ...info }, op };
  } catch (e) {
    const limit = opts.maxDenseEntries ?? MAX_DENSE_ENTRIES;
    const retry =
      e instanceof MechError &&
      op.method === 'lattice' &&
      (e.code === 'not-applicable' || e.code === 'internal') &&
      domain.n * domain.n <= limit;
    if (!retry) throw e;
    const t1 = performance.now();
    const dense = createPhiOperator(domain, eps, {
      method: 'dense',
      ...(opts.maxDenseEntries !== undefined ? { maxDenseEntries: opts.maxDenseEntries } : {}),
    });
    const setup2 = performance.now() - t1;
    const { x, info } = dense.solve(b);
    return {
      result: { x, n: domain.n, setupMs: setupMs + setup2, ...info, fellBack: (e as MechError).message },
      op: dense,
    };
  }
}

function residualWith(op: PhiOperator, x: Float64Array, b: Float64Array): number {
  const q = op.apply(x, new Float64Array(b.length));
  let s = 0;
  let bn = 0;
  for (let i = 0; i < b.length; i++) {
    s += (q[i]! - b[i]!) ** 2;
    bn += b[i]! * b[i]!;
  }
  return bn === 0 ? Math.sqrt(s) : Math.sqrt(s / bn);
}
