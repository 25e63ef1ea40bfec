import { MechError, assertEpsilon } from '../../src-shared/errors';
import type { Domain } from '../metric/domain';

/**
 * Utility bound for single-orbit answer graphs (SPEC §5):
 * e^(eps m)(1 - e^eps) / (e^(eps m)(1 - e^eps) + c (1 - e^(eps m))),
 * m the diameter, c the size of every distance-k border. Equivalently
 * 1 / sum_{k=0..m} c_k e^(-eps k) with c_0 = 1, c_k = c: the utility of the
 * symmetric-graph mechanism (ring 6, eps ln 2: 4/11; clique 6: 2/7).
 */
export function singleOrbitUtilityBound(eps: number, c: number, m: number): number {
  assertEpsilon(eps);
  if (!Number.isFinite(c) || c < 0)
    throw new MechError('invalid-input', `border size c must be a finite number >= 0, got ${String(c)}`);
  if (!Number.isInteger(m) || m < 0)
    throw new MechError('invalid-input', `diameter m must be an integer >= 0, got ${String(m)}`);
  if (m === 0 || c === 0) return 1;
  // Divide numerator and denominator by e^(eps m)(1 - e^eps) < 0:
  // 1 / (1 + c (1 - e^(eps m)) / (e^(eps m) (1 - e^eps))) and
  // (1 - e^(eps m)) / (e^(eps m)(1 - e^eps)) = sum_{k=1..m} e^(-eps k), stable for any eps.
  let geo = 0;
  for (let k = 1; k <= m; k++) geo += Math.exp(-eps * k);
  return 1 / (1 + c * geo);
}

/**
 * The same bound read from the domain's single-orbit structure (odd ring,
 * clique); refused otherwise. An even ring is refused too: its antipodal
 * border has 1 point, not c = 2, so the hypothesis fails and the formula is
 * NOT an upper bound there (ring 6 at eps = ln 2: the formula gives 4/11, the
 * utility of the doubled-antipode construction, but the tight-constraints
 * mechanism is ln 2-private with uniform utility 8/21 > 4/11). The
 * regular-prior bound sum(mu) (utilityBound) applies to every ring.
 */
export function singleOrbitUtilityBoundFor(domain: Domain, eps: number): number {
  const so = domain.structure.singleOrbit;
  if (!so)
    throw new MechError(
      'not-applicable',
      `domain ${domain.spec} has no single-orbit automorphism (the bound needs one, e.g. ring or clique)`,
    );
  if (so.evenRing) {
    throw new MechError(
      'not-applicable',
      `the single-orbit utility bound does not apply to the even ring ${domain.spec}: its antipodal border has 1 point, not c = ${so.c}; use the regular-prior bound sum(mu) instead`,
      { domain: domain.spec },
    );
  }
  return singleOrbitUtilityBound(eps, so.c, so.diameter);
}
