import { MechError } from '../errors';
import { kroneckerFactors } from '../bound/kroneckerFactors';
import { luFactor, luSolve } from '../linalg/lu';
import type { Domain } from '../metric/domain';
import { solveTightWeightsDense, type TightWeightsSolver } from './tightWeightsDense';

/**
 * Phi z = 1 (SPEC §2) using the domain's structure before falling back to
 * the dense solve, so that no n x n Phi is built when a closed form serves:
 *  - ball-size-symmetric metrics (ring, clique, Hamming cube, V^u Hamming):
 *    Phi 1 = S 1 with S = sum_r n_r e^(-eps r), so z = 1/S (SPEC §5);
 *  - Kronecker-product Phi (V^u with summed distances, Manhattan grids,
 *    SPEC §5): z = z_0 ⊗ ... ⊗ z_{u-1} with phi_k z_k = 1, O(sum n_k^3 + n);
 *  - otherwise the dense Cholesky/LU (refused over the dense limit).
 */
export const solveTightWeights: TightWeightsSolver = (domain: Domain, eps: number) => {
  const n = domain.n;
  const balls = domain.structure.ballSizes;
  if (balls) {
    let s = 0;
    for (let k = 0; k < balls.radius.length; k++) s += balls.count[k]! * Math.exp(-eps * balls.radius[k]!);
    return { z: new Float64Array(n).fill(1 / s), method: 'ball-size closed form' };
  }
  const factors = kroneckerFactors(domain, eps);
  if (factors) {
    let z = Float64Array.from([1]);
    for (const phiK of factors) {
      const f = luFactor(phiK);
      if (f.singular) {
        throw new MechError(
          'not-applicable',
          `Phi = exp(-eps d) is singular for ${domain.spec} at eps = ${eps} (a Kronecker factor is singular): the tight-constraints weights are not unique; decide by linear programming instead`,
          { domain: domain.spec, epsilon: eps },
        );
      }
      const zk = luSolve(f, new Float64Array(phiK.rows).fill(1));
      const next = new Float64Array(z.length * zk.length);
      for (let i = 0; i < z.length; i++) for (let j = 0; j < zk.length; j++) next[i * zk.length + j] = z[i]! * zk[j]!;
      z = next;
    }
    if (z.length !== n) throw new MechError('internal', `Kronecker weights have ${z.length} entries, the domain ${domain.spec} has ${n}`);
    return { z, method: `Kronecker product of ${factors.length} factors` };
  }
  return solveTightWeightsDense(domain, eps);
};
