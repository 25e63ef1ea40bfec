import { assertEpsilon } from '../errors';
import { luFactor, luSolveTransposed } from '../linalg/lu';
import { phiMatrix, type Domain } from '../metric/domain';
import { validatePrior } from '../measure/prior';
import { kroneckerPowerSolve } from './kroneckerSolve';
import { kroneckerStructure } from './kroneckerStructure';

export interface MuSolution {
  /** mu with mu Phi = pi, or null when Phi is singular (then mu is not unique: decide by LP). */
  mu: Float64Array | null;
  /** 'kronecker' on product domains with summed distances (no v^u x v^u matrix), else 'dense-lu'. */
  method: 'dense-lu' | 'kronecker';
  /** Smallest |pivot| / max|Phi| of the LU (of the factor for Kronecker): a conditioning hint. */
  minPivotRatio: number;
}

/**
 * Solve mu Phi = pi (SPEC §5). Phi = exp(-eps d) is symmetric, so this is
 * Phi mu = pi. Product domains with summed per-coordinate distances (V^u
 * Hamming / Manhattan) are solved mode by mode through the factor's LU in
 * O(u v^(u+1)); other domains by a dense LU (refused when too large).
 */
export function solveMu(domain: Domain, eps: number, prior: ArrayLike<number>): MuSolution {
  assertEpsilon(eps);
  const p = validatePrior(prior, domain.n);
  const kron = kroneckerStructure(domain);
  if (kron) {
    const phi1 = phiMatrix(kron.factor, eps);
    const f = luFactor(phi1);
    const mu = f.singular ? null : kroneckerPowerSolve(phi1, kron.power, p);
    return { mu, method: 'kronecker', minPivotRatio: f.minPivotRatio };
  }
  const f = luFactor(phiMatrix(domain, eps));
  return { mu: f.singular ? null : luSolveTransposed(f, p), method: 'dense-lu', minPivotRatio: f.minPivotRatio };
}
