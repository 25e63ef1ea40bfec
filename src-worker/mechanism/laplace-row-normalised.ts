import { assertEpsilon } from '../errors';
import type { Domain } from '../metric/domain';
import type { Mechanism } from './channel';
import { rowNormalisedKernel } from './row-normalised-kernel';

/**
 * Row-normalised Laplace variant (SPEC §2): C[x][y] proportional to
 * exp(-eps d(x,y)). On a bounded (finite) domain the truncation's row
 * normalisers differ, so the guarantee is only 2 eps * d (kernel ratio
 * e^(eps d) times normaliser ratio e^(eps d)); the true effective eps lies in
 * [eps, 2 eps] and is measured by the privacy check (the mechanism job
 * reports it as the result's effectiveEpsilon).
 */
export function laplaceRowNormalised(domain: Domain, eps: number): Mechanism {
  assertEpsilon(eps);
  const channel = rowNormalisedKernel(domain, eps);
  return {
    kind: 'laplace',
    channel,
    guaranteedEpsilon: 2 * eps,
    guarantee: `only 2 eps*d-private (= ${2 * eps}*d), not eps*d: normalising the truncated exp(-eps d) rows can double eps on a bounded domain; the mechanism job reports the effective eps measured by the check`,
    facts: { kind: 'laplace', kernelRate: eps },
  };
}
