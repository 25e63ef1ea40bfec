import { assertEpsilon } from '../../src-shared/errors';
import type { Matrix } from '../linalg/matrix';
import { phiMatrix, type Domain } from '../metric/domain';
import { lineDomain } from '../metric/line';
import { kroneckerStructure } from './kronecker-structure';

/**
 * Phi = exp(-eps d) as a Kronecker product phi_0 ⊗ ... ⊗ phi_{u-1} whenever d
 * is a sum of per-coordinate distances (SPEC §5):
 *  - product domains V^u with combine 'sum' (Hamming, Manhattan d1 on
 *    databases): u copies of the factor's Phi;
 *  - Manhattan grids R x C of step s: exp(-eps s |dr|) ⊗ exp(-eps s |dc|),
 *    two line matrices (index r*C + c: rows most significant).
 * Returns the dense factor matrices (small) or null when Phi has no such form.
 */
export function kroneckerFactors(domain: Domain, eps: number): Matrix[] | null {
  assertEpsilon(eps);
  const kron = kroneckerStructure(domain);
  if (kron) {
    const phi1 = phiMatrix(kron.factor, eps);
    return Array.from({ length: kron.power }, () => phi1);
  }
  const g = domain.structure.grid;
  if (g && g.metric === 'manhattan' && g.rows * g.cols === domain.n) {
    return [phiMatrix(lineDomain(g.rows), eps * g.step), phiMatrix(lineDomain(g.cols), eps * g.step)];
  }
  return null;
}
