import { assertEpsilon } from '../../src-shared/errors';
import { luFactor, luSolveTransposed } from '../linalg/lu';
import { phiMatrix, type Domain } from '../metric/domain';
import { validatePrior } from '../measure/prior';
import { kroneckerFactors } from './kronecker-factors';
import { kroneckerSolve } from '../linalg/kronecker-solve';
import { compensatedSum } from '../numeric/compensated-sum';

interface MuSolution {
  /** mu with mu Phi = pi, or null when Phi is singular (then mu is not unique: decide by LP). */
  mu: Float64Array | null;
  /**
   * 'kronecker' when Phi is a Kronecker product, 'closed-form' on cliques (no n x n matrix is formed in either), else
   * 'dense-lu'.
   */
  method: 'dense-lu' | 'kronecker' | 'closed-form';
  /** Smallest |pivot| / max|Phi| of the LU (smallest over the factors for Kronecker): a conditioning hint. */
  minPivotRatio: number;
}

/**
 * Solve mu Phi = pi (SPEC §5). Phi = exp(-eps d) is symmetric, so this is
 * Phi mu = pi. When Phi is a Kronecker product (V^u with summed distances:
 * Hamming, Manhattan; Manhattan grids) it is solved mode by mode through the
 * factors' LUs in O(N sum n_k) — O(u v^(u+1)) on V^u; other domains by a
 * dense LU (refused when too large).
 */
export function solveMu(domain: Domain, eps: number, prior: ArrayLike<number>): MuSolution {
  assertEpsilon(eps);
  const p = validatePrior(prior, domain.n);
  if (domain.kind === 'clique' && domain.n >= 2) {
    // Phi = (1-a) I + a J with a = e^-eps (all distances 1): Phi^-1 = (I - a/(1-a+na) J) / (1-a),
    // so mu = (pi - a S / (1-a+na)) / (1-a), S = sum(pi). Written without cancellation as
    // mu_i = (pi_i - S/n) / (1-a) + S / (n (1-a+na)). Eigenvalues 1-a (n-1 times) and 1-a+na.
    const a = Math.exp(-eps);
    const n = domain.n;
    const sum = compensatedSum(p);
    const mean = sum / n;
    const base = sum / (n * (1 - a + n * a));
    const mu = new Float64Array(n);
    for (let i = 0; i < n; i++) mu[i] = (p[i]! - mean) / (1 - a) + base;
    return { mu, method: 'closed-form', minPivotRatio: 1 - a };
  }
  const factors = kroneckerFactors(domain, eps);
  if (factors) {
    // One LU per distinct factor (a Kronecker power shares one) for the singularity test and the pivot hint.
    const lus = new Map(factors.map((f) => [f, luFactor(f)] as const));
    const minPivotRatio = Math.min(...[...lus.values()].map((l) => l.minPivotRatio));
    const singular = [...lus.values()].some((l) => l.singular);
    return { mu: singular ? null : kroneckerSolve(factors, p), method: 'kronecker', minPivotRatio };
  }
  const f = luFactor(phiMatrix(domain, eps));
  return { mu: f.singular ? null : luSolveTransposed(f, p), method: 'dense-lu', minPivotRatio: f.minPivotRatio };
}
