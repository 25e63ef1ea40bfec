import { MechError, assertEpsilon } from '../../src-shared/errors';
import { Matrix, assertDenseFits } from '../linalg/matrix';
import type { Domain } from '../metric/domain';

/**
 * Corner prior y: row y of Phi = exp(-eps d) normalised to sum 1 (SPEC §5).
 * Regular priors are exactly the convex hull of the corner priors (for the
 * corner prior y, mu = e_y / sum_x Phi[y][x]). Streams one row: O(n).
 */
export function cornerPrior(domain: Domain, eps: number, y: number): Float64Array {
  assertEpsilon(eps);
  if (!Number.isInteger(y) || y < 0 || y >= domain.n)
    throw new MechError(
      'invalid-input',
      `corner prior index ${y} is not a point of ${domain.spec} (0..${domain.n - 1})`,
    );
  const row = new Float64Array(domain.n);
  let s = 0;
  for (let x = 0; x < domain.n; x++) {
    const v = x === y ? 1 : Math.exp(-eps * domain.distance(y, x));
    row[x] = v;
    s += v;
  }
  for (let x = 0; x < domain.n; x++) row[x] = row[x]! / s;
  return row;
}

/** All corner priors, one per row (n x n; refused when too large). */
export function cornerPriors(domain: Domain, eps: number): Matrix {
  assertEpsilon(eps);
  assertDenseFits(domain.n, domain.n, `corner priors of ${domain.spec}`);
  const m = new Matrix(domain.n, domain.n);
  for (let y = 0; y < domain.n; y++) m.row(y).set(cornerPrior(domain, eps, y));
  return m;
}
