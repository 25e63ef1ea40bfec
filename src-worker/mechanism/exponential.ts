import { assertEpsilon } from '../../src-shared/errors';
import type { Domain } from '../metric/domain';
import type { Mechanism } from './channel';
import { rowNormalisedKernel } from './row-normalised-kernel';

/**
 * Exponential mechanism on any metric (SPEC §2): C[x][y] proportional to
 * exp(-eps d(x,y)/2), rows normalised. eps*d-private on every finite domain:
 * the kernel ratio is at most e^(eps d(x,x')/2) and the normalisers' ratio at
 * most e^(eps d(x,x')/2) (triangle inequality). Usually not tight.
 */
export function exponentialMechanism(domain: Domain, eps: number): Mechanism {
  assertEpsilon(eps);
  const channel = rowNormalisedKernel(domain, eps / 2);
  return {
    kind: 'exponential',
    channel,
    guaranteedEpsilon: eps,
    guarantee: `eps*d-private with eps = ${eps}: kernel exp(-eps d/2), row normalisation costs the other half`,
    facts: { kind: 'exponential', kernelRate: eps / 2 },
  };
}
