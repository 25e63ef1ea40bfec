import type { Domain } from '../metric/domain';

/**
 * When d on V^u is the SUM of per-coordinate distances (Hamming = sum of
 * per-coordinate discrete metrics, Manhattan d1, ...), Phi = exp(-eps d) is
 * the Kronecker power phi1 ⊗ ... ⊗ phi1 of the factor's Phi (SPEC §5), and
 * Phi never has to be built. Returns the factor and the power, or null.
 */
export function kroneckerStructure(domain: Domain): { factor: Domain; power: number } | null {
  const p = domain.structure.product;
  if (!p || p.combine !== 'sum' || !(p.power >= 1)) return null;
  if (p.factor.n ** p.power !== domain.n) return null;
  return { factor: p.factor, power: p.power };
}
