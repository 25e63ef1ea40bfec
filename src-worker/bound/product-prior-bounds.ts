import { MechError } from '../../src-shared/errors';
import type { Domain } from '../metric/domain';
import { MU_TOL } from './regularity';
import { expandMarginals, productMu } from './product-mu';
import { kroneckerStructure } from './kronecker-structure';

export interface ProductPriorBounds {
  regular: boolean;
  /** sum(mu) = prod_k sum(mu_k) (SPEC §5 utility bound). */
  utilityBound: number;
  /** log2(sum(mu) / max pi), max pi = prod_k max p_k. */
  leakageBound: number;
  /** Smallest mu entry and the database (label) where it sits. */
  minMu: number;
  minMuLabel: string;
}

/**
 * The regular-prior bounds of SPEC §5 for a product prior on V^u with a
 * summed metric (Hamming, Manhattan), from the per-individual factors only:
 * mu = mu_1 ⊗ ... ⊗ mu_u, so regularity, sum(mu) and max pi cost O(u v^3)
 * whatever v^u is. Refuses a non-regular product prior (MechError
 * 'not-applicable' naming the most negative mu entry) like utilityBound.
 */
export function productPriorBounds(
  domain: Domain,
  eps: number,
  marginals: ArrayLike<number> | ArrayLike<number>[],
): ProductPriorBounds {
  const pm = productMu(domain, eps, marginals);
  const kron = kroneckerStructure(domain)!;
  if (!pm.factors)
    throw new MechError(
      'not-applicable',
      `Phi of the per-individual domain ${kron.factor.spec} is singular at epsilon ${eps}; regularity needs an LP`,
    );
  let abs = 1;
  for (const f of pm.factors) {
    let s = 0;
    for (let i = 0; i < f.length; i++) s += Math.abs(f[i]!);
    abs *= s;
  }
  let idx = 0;
  for (let k = 0; k < pm.argMin.length; k++) idx = idx * kron.factor.n + pm.argMin[k]!;
  const label = idx < domain.n ? domain.label(idx) : Array.from(pm.argMin, (i) => kron.factor.label(i)).join(',');
  const regular = pm.min >= -MU_TOL * abs;
  if (!regular) {
    throw new MechError(
      'not-applicable',
      `the product prior is not regular for ${domain.spec} at epsilon ${eps}: mu[${label}] = ${Number(pm.min.toPrecision(6))} < 0, so the bounds sum(mu) and log2(sum(mu)/max pi) do not apply`,
      { minMu: pm.min, minMuLabel: label },
    );
  }
  // max pi of the product prior = prod of the per-individual maxima
  let logMax = 0;
  for (const p of expandMarginals(marginals, kron.power, kron.factor.n)) logMax += Math.log2(Math.max(...p));
  return { regular, utilityBound: pm.sum, leakageBound: Math.log2(pm.sum) - logMax, minMu: pm.min, minMuLabel: label };
}
