import { MechError } from '../../src-shared/errors';
import type { Domain } from '../metric/domain';
import { validatePrior } from '../measure/prior';
import { regularity, type Regularity } from './regularity';

function requireRegular(r: Regularity, what: string): Regularity & { mu: Float64Array } {
  if (r.status !== 'regular' || !r.mu) {
    throw new MechError('not-applicable', `${what} does not apply: ${r.reason}`, {
      status: r.status,
      minMu: r.minMu,
      minMuIndex: r.minMuIndex,
      minMuLabel: r.minMuLabel,
    });
  }
  return r as Regularity & { mu: Float64Array };
}

/**
 * Utility bound for a regular prior (SPEC §5): every eps*d-private mechanism
 * has binary-gain utility (optimal remap) <= sum(mu). Refuses a prior that is
 * not regular (MechError 'not-applicable' naming the most negative mu
 * component) or undecided (singular Phi) rather than print a number.
 */
export function utilityBound(domain: Domain, eps: number, prior: ArrayLike<number>, known?: Regularity): number {
  const r = requireRegular(known ?? regularity(domain, eps, prior), 'the utility bound sum(mu)');
  return r.muSum;
}

/**
 * Min-entropy leakage bound for a regular prior (SPEC §5): every
 * eps*d-private mechanism leaks at most log2(sum(mu) / max pi) bits. Refuses
 * non-regular or undecided priors like utilityBound.
 */
export function leakageBound(domain: Domain, eps: number, prior: ArrayLike<number>, known?: Regularity): number {
  const p = validatePrior(prior, domain.n);
  const r = requireRegular(known ?? regularity(domain, eps, p), 'the leakage bound log2(sum(mu) / max pi)');
  let mx = 0;
  for (let i = 0; i < p.length; i++) if (p[i]! > mx) mx = p[i]!;
  return Math.log2(r.muSum / mx);
}
