import { MechError, assertEpsilon } from '../../src-shared/errors';
import { luFactor, luSolveTransposed } from '../linalg/lu';
import { phiMatrix, type Domain } from '../metric/domain';
import { validatePrior } from '../measure/prior';
import { kroneckerStructure } from './kronecker-structure';

interface ProductMu {
  /** One factor per individual: mu = factors[0] ⊗ ... ⊗ factors[u-1]. Null when phi1 is singular. */
  factors: Float64Array[] | null;
  /** sum(mu) = prod_k sum(factors[k]). */
  sum: number;
  /** Smallest entry of mu = min over products of one entry per factor. */
  min: number;
  /** Tuple (one index per coordinate) where the smallest entry sits. */
  argMin: Int32Array;
}

/**
 * mu for a product prior pi = p_1 ⊗ ... ⊗ p_u on a product domain with
 * summed distances (SPEC §5, "product:p1,p2,..." priors): since Phi is a
 * Kronecker power, mu is itself a product, mu = mu_1 ⊗ ... ⊗ mu_u with
 * mu_k phi1 = p_k — O(u v^3) whatever v^u is. `marginals` is one per-
 * individual distribution used for every individual, or one per individual.
 */
export function productMu(domain: Domain, eps: number, marginals: ArrayLike<number> | ArrayLike<number>[]): ProductMu {
  assertEpsilon(eps);
  const kron = kroneckerStructure(domain);
  if (!kron)
    throw new MechError(
      'not-applicable',
      `domain ${domain.spec} is not a product with summed per-coordinate distances; a product prior needs one (e.g. db:U,V with the Hamming metric)`,
    );
  const { factor, power: u } = kron;
  const ps = expandMarginals(marginals, u, factor.n);
  const f = luFactor(phiMatrix(factor, eps));
  if (f.singular) return { factors: null, sum: NaN, min: NaN, argMin: new Int32Array(u) };
  const factors = ps.map((p) => luSolveTransposed(f, p));
  const ext = extremeProduct(factors);
  let sum = 1;
  for (const mu of factors) {
    let s = 0;
    for (let i = 0; i < mu.length; i++) s += mu[i]!;
    sum *= s;
  }
  return { factors, sum, min: ext.min, argMin: ext.argMin };
}

function isList(m: ArrayLike<number> | ArrayLike<number>[]): m is ArrayLike<number>[] {
  return m.length > 0 && typeof (m as ArrayLike<unknown>)[0] === 'object';
}

/** One validated per-individual distribution per individual (a single one is repeated u times). */
export function expandMarginals(
  marginals: ArrayLike<number> | ArrayLike<number>[],
  u: number,
  v: number,
): Float64Array[] {
  const list: ArrayLike<number>[] = isList(marginals) ? marginals : Array.from({ length: u }, () => marginals);
  if (list.length !== u)
    throw new MechError(
      'invalid-input',
      `product prior has ${list.length} per-individual distributions but the domain has ${u} individuals`,
    );
  return list.map((m, k) => validatePrior(m, v, `per-individual prior ${k + 1}`));
}

/**
 * Smallest product a_1[i_1] * ... * a_u[i_u] over all index tuples, by a DP
 * tracking the smallest and the largest partial products (a sign flip turns
 * one into the other). O(u v).
 */
export function extremeProduct(factors: Float64Array[]): { min: number; max: number; argMin: Int32Array } {
  const u = factors.length;
  let lo = 1;
  let hi = 1;
  let loT: number[] = [];
  let hiT: number[] = [];
  for (let k = 0; k < u; k++) {
    const a = factors[k]!;
    let nlo = Infinity;
    let nhi = -Infinity;
    let nloT: number[] = [];
    let nhiT: number[] = [];
    for (let i = 0; i < a.length; i++) {
      const c1 = a[i]! * lo;
      const c2 = a[i]! * hi;
      if (c1 < nlo) ((nlo = c1), (nloT = [...loT, i]));
      if (c2 < nlo) ((nlo = c2), (nloT = [...hiT, i]));
      if (c1 > nhi) ((nhi = c1), (nhiT = [...loT, i]));
      if (c2 > nhi) ((nhi = c2), (nhiT = [...hiT, i]));
    }
    lo = nlo;
    hi = nhi;
    loT = nloT;
    hiT = nhiT;
  }
  return { min: lo, max: hi, argMin: Int32Array.from(loT) };
}
