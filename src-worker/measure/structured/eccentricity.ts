import type { Domain } from '../../metric/domain';

/**
 * ecc(y) = max_x d(x, y) for every point, using structure where it makes
 * this O(n) (it gives min_x exp(-eps d(x,y)) = exp(-eps ecc(y)), the column
 * minima of the tight-constraints mechanism, hence its additive capacity):
 *  - ball-size-symmetric metrics: the largest radius, the same for all y;
 *  - periodic lattices (ring): translation invariance on the torus makes it
 *    the same for all y: one pass over the offsets from 0;
 *  - grids and lines: the distance is a norm of the offset, convex, so its
 *    maximum over the box of points is at one of the box's corners;
 *  - products with a summed metric: the sum of the factor eccentricities;
 *  - otherwise an O(n^2) scan with progress.
 */
export function eccentricities(
  domain: Domain,
  onProgress?: (fraction: number) => void,
): { ecc: Float64Array; method: string } {
  const n = domain.n;
  const s = domain.structure;
  const ecc = new Float64Array(n);
  if (s.ballSizes) {
    let m = 0;
    for (let k = 0; k < s.ballSizes.radius.length; k++)
      if (s.ballSizes.count[k]! > 0) m = Math.max(m, s.ballSizes.radius[k]!);
    return { ecc: ecc.fill(m), method: 'ball-sizes' };
  }
  if (s.lattice && s.lattice.periodic) {
    let m = 0;
    for (let x = 0; x < n; x++) m = Math.max(m, domain.distance(0, x));
    return { ecc: ecc.fill(m), method: 'periodic-lattice' };
  }
  if (s.grid || (s.lattice && domain.kind === 'line')) {
    const C = s.grid ? s.grid.cols : n;
    const R = s.grid ? s.grid.rows : 1;
    const corners = [0, C - 1, (R - 1) * C, R * C - 1];
    for (let y = 0; y < n; y++) {
      let m = 0;
      for (const c of corners) m = Math.max(m, domain.distance(c, y));
      ecc[y] = m;
    }
    return { ecc, method: 'box-corners' };
  }
  if (s.product && s.product.combine === 'sum') {
    const f = s.product.factor;
    const v = f.n;
    const fe = new Float64Array(v);
    for (let a = 0; a < v; a++) for (let b = 0; b < v; b++) fe[a] = Math.max(fe[a]!, f.distance(a, b));
    const u = s.product.power;
    for (let y = 0; y < n; y++) {
      let rest = y;
      let sum = 0;
      for (let k = 0; k < u; k++) {
        sum += fe[rest % v]!;
        rest = Math.floor(rest / v);
      }
      ecc[y] = sum;
    }
    return { ecc, method: 'product' };
  }
  for (let y = 0; y < n; y++) {
    if (onProgress && (y & 255) === 0) onProgress(y / n);
    let m = 0;
    for (let x = 0; x < n; x++) {
      const d = domain.distance(x, y);
      if (d > m) m = d;
    }
    ecc[y] = m;
  }
  return { ecc, method: 'scan' };
}
