import { assertEpsilon } from '../errors';
import { luFactor, luSolveTransposed } from '../linalg/lu';
import { phiMatrix, type Domain } from '../metric/domain';
import { validatePrior } from '../measure/prior';
import { kroneckerFactors } from './kronecker-factors';
import { kroneckerSolve } from '../linalg/kronecker-solve';

export interface MuSolution {
  /** mu with mu Phi = pi, or null when Phi is singular (then mu is not unique: decide by LP). */
  mu: Float64Array | null;
  /** 'kronecker' when Phi is a Kronecker product (no n x n matrix is formed), else 'dense-lu'. */
  method: 'dense-lu' | 'kronecker';
  /** Smallest |pivot| / max|Phi| of the LU (smallest over the factors for Kronecker): a conditioning hint. */
  minPivotRatio: number;
}

/**
 * Solve mu Phi = pi (SPEC §5). Phi = exp(-eps d) is symmetric, so this is
 * Phi mu = pi. When Phi is a Kronecker product (V^u with summed distances:
 * Hamming, Manhattan; Manhattan grids) it is solved mode by mode through the
 * factors' LUs in O(N sum n_k) — O(u v^(u+1)) on V^u; other domains by a
 * dense LU (refused when too large).
 */
export function solveMu(domain: Domain, eps: number, prior: ArrayLike<number>): MuSolution {
  assertEpsilon(eps);
  const p = validatePrior(prior, domain.n);
  const factors = kroneckerFactors(domain, eps);
  if (factors) {
    // One LU per distinct factor (a Kronecker power shares one) for the singularity test and the pivot hint.
    const lus = new Map(factors.map((f) => [f, luFactor(f)] as const));
    const minPivotRatio = Math.min(...[...lus.values()].map((l) => l.minPivotRatio));
    const singular = [...lus.values()].some((l) => l.singular);
    return { mu: singular ? null : kroneckerSolve(factors, p), method: 'kronecker', minPivotRatio };
  }
  const f = luFactor(phiMatrix(domain, eps));
  return { mu: f.singular ? null : luSolveTransposed(f, p), method: 'dense-lu', minPivotRatio: f.minPivotRatio };
}
