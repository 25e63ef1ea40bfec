import { solvePhi } from '../phi/phi-solve';
import type { Domain } from '../metric/domain';
import type { TightWeightsSolver } from './tight-weights-dense';

/**
 * Phi z = 1 (SPEC §2) through the engine's one structure-aware Phi solver
 * (phi/phi-solve: the ball-size closed form z = 1/S of SPEC §5, Kronecker
 * factors on V^u with summed distances, FFT-PCG on large lattices, dense
 * Cholesky/LU when small), so no n x n Phi is built when a factor form
 * serves. solveTightWeightsDense stays available as the dense reference.
 */
export const solveTightWeights: TightWeightsSolver = (domain: Domain, eps: number) => {
  const r = solvePhi(domain, eps, new Float64Array(domain.n).fill(1));
  return { z: r.x, method: r.method };
};
