import { assertEpsilon, MechError } from '../../src-shared/errors';
import { solvePhi } from '../phi/phi-solve';
import { Z_TOL } from '../mechanism/tight-constraints';
import { luFactor, luSolve } from '../linalg/lu';
import { levinsonSolve, toeplitzResidual } from '../linalg/levinson';
import { phiMatrix, type Domain } from '../metric/domain';
import { extremeProduct } from './product-mu';
import { kroneckerFactors } from './kronecker-factors';

export interface TightExistence {
  /** true: z = Phi^{-1} 1 >= 0; false: some z < 0; 'undecided': Phi singular (needs LP). */
  exists: boolean | 'undecided';
  /** Smallest component of z and where it sits (NaN / -1 when undecided). */
  minZ: number;
  minZIndex: number;
  /**
   * z itself when it was formed (dense and closed-form paths; null on product domains, where z is a Kronecker power).
   */
  z: Float64Array | null;
  method: 'ball-sizes' | 'kronecker' | 'structured' | 'dense-lu';
}

/**
 * Does the tight-constraints mechanism exist at eps (SPEC §2, §5)? It does iff
 * the uniform prior is regular iff z = Phi^{-1} 1 >= 0. The single entry point
 * of the threshold search, so a faster structured solver can replace it.
 *  - ball-size-symmetric metrics: Phi 1 = S 1 with S = sum_r n_r e^(-eps r),
 *    so z = 1/S > 0: always exists (closed form of SPEC §5);
 *  - Kronecker-product Phi (V^u with summed distances, Manhattan grids):
 *    z = z_0 ⊗ ... ⊗ z_{u-1} with phi_k z_k = 1, min z by a DP over the
 *    factors, O(sum n_k^3);
 *  - one-dimensional translation-invariant metrics other than c|k| (sum, average) of at
 *    most LEVINSON_MAX_POINTS points: Levinson's O(n^2) Toeplitz solve,
 *    kept when its residual is small (Phi of sum:U,V is not positive
 *    definite, where CG fails and MINRES is slow);
 *  - translation-invariant metrics: solvePhi (FFT products + CG/MINRES);
 *  - otherwise a dense LU of Phi.
 * z >= 0 is tested as min z >= -Z_TOL * max(1, max|z|), the same rule as
 * tightConstraints, so the threshold search and the construction never
 * disagree about existence.
 */
export function tightExists(domain: Domain, eps: number): TightExistence {
  assertEpsilon(eps);
  const n = domain.n;
  const balls = domain.structure.ballSizes;
  if (balls) {
    let s = 0;
    for (let k = 0; k < balls.radius.length; k++) s += balls.count[k]! * Math.exp(-eps * balls.radius[k]!);
    return { exists: true, minZ: 1 / s, minZIndex: 0, z: new Float64Array(n).fill(1 / s), method: 'ball-sizes' };
  }
  const factors = kroneckerFactors(domain, eps);
  if (factors) {
    const zs: Float64Array[] = [];
    let zmaxProd = 1;
    for (const phiK of factors) {
      const f = luFactor(phiK);
      if (f.singular) return { exists: 'undecided', minZ: NaN, minZIndex: -1, z: null, method: 'kronecker' };
      const zk = luSolve(f, new Float64Array(phiK.rows).fill(1));
      zs.push(zk);
      let zmax = 0;
      for (let i = 0; i < zk.length; i++) zmax = Math.max(zmax, Math.abs(zk[i]!));
      zmaxProd *= zmax;
    }
    const ext = extremeProduct(zs);
    let idx = 0;
    for (let k = 0; k < zs.length; k++) idx = idx * zs[k]!.length + ext.argMin[k]!;
    return {
      exists: ext.min >= -Z_TOL * Math.max(1, zmaxProd),
      minZ: ext.min,
      minZIndex: idx,
      z: null,
      method: 'kronecker',
    };
  }
  // Translation-invariant metrics go through FFT + preconditioned CG (the
  // threshold search calls this for every eps it tries, so it must be fast);
  // others through a dense solve.
  let z: Float64Array;
  let method: TightExistence['method'];
  const toeplitz = toeplitzZ(domain, eps);
  if (toeplitz) {
    z = toeplitz;
    method = 'structured';
  } else if (domain.structure.lattice) {
    try {
      const r = solvePhi(domain, eps, new Float64Array(n).fill(1));
      z = r.x;
      method = r.method.startsWith('dense') ? 'dense-lu' : 'structured';
    } catch (e) {
      if (e instanceof MechError && e.detail?.['singular'])
        return { exists: 'undecided', minZ: NaN, minZIndex: -1, z: null, method: 'structured' };
      throw e;
    }
  } else {
    const f = luFactor(phiMatrix(domain, eps));
    if (f.singular) return { exists: 'undecided', minZ: NaN, minZIndex: -1, z: null, method: 'dense-lu' };
    z = luSolve(f, new Float64Array(n).fill(1));
    method = 'dense-lu';
  }
  let minZ = Infinity;
  let minZIndex = 0;
  let zmax = 0;
  for (let i = 0; i < n; i++) {
    zmax = Math.max(zmax, Math.abs(z[i]!));
    if (z[i]! < minZ) {
      minZ = z[i]!;
      minZIndex = i;
    }
  }
  return { exists: minZ >= -Z_TOL * Math.max(1, zmax), minZ, minZIndex, z, method };
}

/** Levinson is O(n^2) per solve (and its residual check as much): used up to this many points. */
export const LEVINSON_MAX_POINTS = 8192;
/** Largest residual max|Phi z - 1| accepted from Levinson (it is not backward stable on indefinite Phi). */
const LEVINSON_RESIDUAL = 1e-10;

/**
 * z = Phi^{-1} 1 by Levinson on a 1-D non-periodic lattice; null when it does not apply, breaks down or is inaccurate.
 */
function toeplitzZ(domain: Domain, eps: number): Float64Array | null {
  const lat = domain.structure.lattice;
  const n = domain.n;
  if (!lat || lat.periodic || lat.shape.length !== 1 || n < 2 || n > LEVINSON_MAX_POINTS) return null;
  // d = c |k| (line, count): Phi is positive definite and CG solves it in O(n log n); leave it to solvePhi.
  const unit = lat.offsetDistance([1]);
  let linear = true;
  for (let k = 2; k < n && linear; k++) linear = lat.offsetDistance([k]) === k * unit;
  if (linear) return null;
  const r = new Float64Array(n);
  for (let k = 0; k < n; k++) r[k] = Math.exp(-eps * lat.offsetDistance([k]));
  const ones = new Float64Array(n).fill(1);
  const z = levinsonSolve(r, ones);
  if (!z || !z.every(Number.isFinite)) return null;
  return toeplitzResidual(r, z, ones) <= LEVINSON_RESIDUAL ? z : null;
}
