import { assertEpsilon } from '../../src-shared/errors';
import type { Domain } from '../metric/domain';
import { validatePrior } from '../measure/prior';
import { solveMu } from './mu';

/**
 * mu >= 0 is tested as mu_i >= -MU_TOL * sum|mu|: corner priors and their
 * convex combinations have exact zeros in mu that come out of the solve as
 * rounding noise of order 1e-16 * cond(Phi).
 */
export const MU_TOL = 1e-9;

type RegularityStatus = 'regular' | 'not-regular' | 'undecided';

export interface Regularity {
  status: RegularityStatus;
  /** mu with mu Phi = pi (null when Phi is singular). */
  mu: Float64Array | null;
  /** sum(mu): the utility bound when regular. */
  muSum: number;
  /** Most negative (smallest) mu component, its index and label. */
  minMu: number;
  minMuIndex: number;
  minMuLabel: string;
  method: 'dense-lu' | 'kronecker' | 'closed-form' | 'lp';
  /** Smallest |pivot| / max|Phi| of the LU (of the factor on product domains): a conditioning hint for the UI. */
  minPivotRatio: number;
  /** One sentence saying why (shown to users and in 'not-applicable' errors). */
  reason: string;
}

/**
 * A decider for the singular case: is there mu >= 0 with mu Phi = pi?
 * (LP feasibility, written in src-worker/lp/ by its owner and plugged in here.)
 */
export type RegularityLP = (domain: Domain, eps: number, prior: Float64Array) => Promise<boolean> | boolean;

/**
 * Is pi regular for (domain, eps), i.e. is the solution of mu Phi = pi
 * non-negative (SPEC §5)? Synchronous, by LU (Kronecker on product domains).
 * When Phi is singular the answer is 'undecided' here: use decideRegularity
 * with an LP decider.
 */
export function regularity(domain: Domain, eps: number, prior: ArrayLike<number>): Regularity {
  assertEpsilon(eps);
  const p = validatePrior(prior, domain.n);
  const sol = solveMu(domain, eps, p);
  const mu = sol.mu;
  if (!mu) {
    return {
      status: 'undecided',
      mu: null,
      muSum: NaN,
      minMu: NaN,
      minMuIndex: -1,
      minMuLabel: '',
      method: sol.method,
      minPivotRatio: sol.minPivotRatio,
      reason: `Phi = exp(-${eps} d) is singular for ${domain.spec}, so mu Phi = pi has no unique solution; regularity needs an LP feasibility check`,
    };
  }
  let sum = 0;
  let abs = 0;
  let minMu = Infinity;
  let minMuIndex = 0;
  for (let i = 0; i < mu.length; i++) {
    sum += mu[i]!;
    abs += Math.abs(mu[i]!);
    if (mu[i]! < minMu) {
      minMu = mu[i]!;
      minMuIndex = i;
    }
  }
  const minMuLabel = domain.label(minMuIndex);
  const regular = minMu >= -MU_TOL * abs;
  return {
    status: regular ? 'regular' : 'not-regular',
    mu,
    muSum: sum,
    minMu,
    minMuIndex,
    minMuLabel,
    method: sol.method,
    minPivotRatio: sol.minPivotRatio,
    reason: regular
      ? `mu Phi = pi has a non-negative solution (smallest component ${fmt(minMu)} at ${minMuLabel}), so the prior is regular`
      : `the prior is not regular for ${domain.spec} at epsilon ${eps}: it lies outside the region of regular priors (a mix of the corner priors with no negative weight), since as a mix of them it needs the weight ${fmt(minMu)} on the corner prior of ${minMuLabel}`,
  };
}

/**
 * Regularity with the singular case settled: when Phi is singular and an LP
 * decider is given, its answer decides (mu stays null: it is not unique).
 */
export async function decideRegularity(
  domain: Domain,
  eps: number,
  prior: ArrayLike<number>,
  opts: { decideByLP?: RegularityLP } = {},
): Promise<Regularity> {
  const r = regularity(domain, eps, prior);
  if (r.status !== 'undecided' || !opts.decideByLP) return r;
  const ok = await opts.decideByLP(domain, eps, validatePrior(prior, domain.n));
  return {
    ...r,
    status: ok ? 'regular' : 'not-regular',
    method: 'lp',
    reason: ok
      ? `Phi is singular; an LP found mu >= 0 with mu Phi = pi, so the prior is regular`
      : `Phi is singular; the LP found no mu >= 0 with mu Phi = pi, so the prior is not regular`,
  };
}

function fmt(v: number): string {
  return Number.isFinite(v) ? Number(v.toPrecision(6)).toString() : String(v);
}
