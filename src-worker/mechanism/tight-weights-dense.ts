import { MechError } from '../../src-shared/errors';
import { solveSymmetric } from '../linalg/lu';
import { phiMatrix, type Domain } from '../metric/domain';

/**
 * Dense solve of Phi z = 1 with Phi[x][x'] = exp(-eps d(x,x')) (SPEC §2):
 * Cholesky when Phi is positive definite, LU otherwise. O(n^3) time, n^2
 * memory (refused beyond the dense limit). Kept on its own so a structured
 * solver (lattice / Kronecker) can replace it with the same signature.
 */
export type TightWeightsSolver = (domain: Domain, eps: number) => { z: Float64Array; method: string };

export const solveTightWeightsDense: TightWeightsSolver = (domain, eps) => {
  const phi = phiMatrix(domain, eps);
  const ones = new Float64Array(domain.n).fill(1);
  const r = solveSymmetric(phi, ones);
  if (!r) {
    throw new MechError(
      'not-applicable',
      `Phi = exp(-eps d) is singular for ${domain.spec} at eps = ${eps}: the tight-constraints weights are not unique; decide by linear programming instead`,
      { domain: domain.spec, epsilon: eps },
    );
  }
  return { z: r.x, method: `dense ${r.method}` };
};
