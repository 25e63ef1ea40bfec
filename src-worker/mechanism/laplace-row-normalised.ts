import { assertEpsilon } from '../../src-shared/errors';
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
 *
 * Guarantee (the honest label): guaranteedEpsilon = 2 eps, never eps: for
 * all x, x', y, C[x][y] / C[x'][y] = e^(-eps (d(x,y) - d(x',y))) Z(x') / Z(x)
 * <= e^(eps d(x,x')) e^(eps d(x,x')) by the triangle inequality on both
 * factors (Z(x) = sum_y e^(-eps d(x,y))). Preconditions: d a metric (the
 * triangle inequality), eps > 0 finite. Tolerance: none in the label; the
 * measured effective eps uses the privacy check's REL_TOL. docs/mechanisms.md
 * "Row-normalised Laplace: the honest 2ε label".
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
