import { MechError, assertEpsilon } from '../../../src-shared/errors';
import { validatePrior } from '../../measure/prior';
import { type Domain, phiMatrix } from '../../metric/domain';
import type { LpOptions } from '../solver/lp-options';
import { solveSparseLp } from '../solver/persistent-lp';
import { SparseLp } from '../solver/sparse-model';

/**
 * Regularity of a prior by LP feasibility (docs/bounds.md, "Regular priors"), for a singular Phi
 * where mu Phi = pi has no unique solution: pi is regular iff some mu >= 0
 * satisfies sum_x mu_x Phi[x][x'] = pi_x' for every x'. Returns one such mu
 * (a vertex of the feasible set) when it exists. Phi[x][x'] = e^(-eps d).
 *
 * The variables are unbounded above and the objective is sum(mu) minimised,
 * so the returned mu is the one with the smallest utility bound sum(mu) of
 * docs/bounds.md, "Regular priors" (for a singular Phi, every feasible mu gives a valid bound).
 */
export async function decideRegularityByLP(
  domain: Domain,
  eps: number,
  prior: ArrayLike<number>,
  options?: LpOptions,
): Promise<{ regular: boolean; mu?: Float64Array }> {
  assertEpsilon(eps);
  const n = domain.n;
  const pi = validatePrior(prior, n);
  const phi = phiMatrix(domain, eps);
  const lp = new SparseLp(n, n, n * n);
  lp.colCost.fill(1);
  const idx = new Int32Array(n);
  const val = new Float64Array(n);
  for (let xp = 0; xp < n; xp++) {
    let k = 0;
    for (let x = 0; x < n; x++) {
      const v = phi.data[x * n + xp]!;
      if (v !== 0) {
        idx[k] = x;
        val[k] = v;
        k++;
      }
    }
    lp.addRow(pi[xp]!, pi[xp]!, idx.subarray(0, k), val.subarray(0, k));
  }
  try {
    const sol = await solveSparseLp(lp, `the regularity LP on ${domain.spec}`, {
      ...options,
      highsOptions: { small_matrix_value: 1e-12, ...options?.highsOptions },
    });
    const mu = sol.colValue;
    for (let i = 0; i < n; i++) if (mu[i]! < 0) mu[i] = 0;
    return { regular: true, mu };
  } catch (e) {
    if (e instanceof MechError && e.code === 'infeasible') return { regular: false };
    throw e;
  }
}
