import { assertEpsilon } from '../errors';
import { luFactor, luSolve } from '../linalg/lu';
import { phiMatrix, type Domain } from '../metric/domain';
import { extremeProduct, tupleIndex } from './productMu';
import { kroneckerStructure } from './kroneckerStructure';

export interface TightExistence {
  /** true: z = Phi^{-1} 1 >= 0; false: some z < 0; 'undecided': Phi singular (needs LP). */
  exists: boolean | 'undecided';
  /** Smallest component of z and where it sits (NaN / -1 when undecided). */
  minZ: number;
  minZIndex: number;
  /** z itself when it was formed (dense and closed-form paths; null on product domains, where z is a Kronecker power). */
  z: Float64Array | null;
  method: 'ball-sizes' | 'kronecker' | 'dense-lu';
}

/**
 * Does the tight-constraints mechanism exist at eps (SPEC §2, §5)? It does iff
 * the uniform prior is regular iff z = Phi^{-1} 1 >= 0. The single entry point
 * of the threshold search, so a faster structured solver can replace it.
 *  - ball-size-symmetric metrics: Phi 1 = S 1 with S = sum_r n_r e^(-eps r),
 *    so z = 1/S > 0: always exists (closed form of SPEC §5);
 *  - product domains with summed distances: z = z1 ⊗ ... ⊗ z1 with
 *    phi1 z1 = 1, min z by a DP over the factors, O(v^3 + u v);
 *  - otherwise a dense LU of Phi.
 * z >= 0 is tested as min z >= -1e-12 * max|z|.
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
  const kron = kroneckerStructure(domain);
  if (kron) {
    const f = luFactor(phiMatrix(kron.factor, eps));
    if (f.singular) return { exists: 'undecided', minZ: NaN, minZIndex: -1, z: null, method: 'kronecker' };
    const z1 = luSolve(f, new Float64Array(kron.factor.n).fill(1));
    const ext = extremeProduct(Array.from({ length: kron.power }, () => z1));
    let zmax = 0;
    for (let i = 0; i < z1.length; i++) zmax = Math.max(zmax, Math.abs(z1[i]!));
    const exists = ext.min >= -1e-12 * zmax ** kron.power;
    return { exists, minZ: ext.min, minZIndex: tupleIndex(ext.argMin, kron.factor.n), z: null, method: 'kronecker' };
  }
  const f = luFactor(phiMatrix(domain, eps));
  if (f.singular) return { exists: 'undecided', minZ: NaN, minZIndex: -1, z: null, method: 'dense-lu' };
  const z = luSolve(f, new Float64Array(n).fill(1));
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
  return { exists: minZ >= -1e-12 * zmax, minZ, minZIndex, z, method: 'dense-lu' };
}
