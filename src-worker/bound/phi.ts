import { assertEpsilon } from '../../src-shared/errors';
import type { Matrix } from '../linalg/matrix';
import { phiMatrix, type Domain } from '../metric/domain';

/**
 * Phi[x][x'] = exp(-eps d(x, x')) (SPEC §2, §5), dense, with eps validated.
 * Refuses ('too-large') domains whose n x n matrix would not fit; product
 * domains go through kroneckerStructure instead.
 */
export function phi(domain: Domain, eps: number): Matrix {
  assertEpsilon(eps);
  return phiMatrix(domain, eps);
}
