import type { GridMetric } from '../../metric/domain';
import { integrateGK } from './gauss-kronrod';

/**
 * Probability that planar Laplace noise falls in an axis-aligned rectangle
 * [x0,x1] x [y0,y1] (bounds may be +-Infinity), in units of the grid step,
 * with e = eps * step (SPEC §2). Densities, normalised on the plane:
 *   euclidean  e^2/(2 pi) exp(-e |z|_2)
 *   manhattan  e^2/4      exp(-e |z|_1)
 *   chebyshev  e^2/8      exp(-e |z|_inf)
 *
 * Method (deterministic, no tensor grid): polar coordinates around the true
 * point. Along the ray of angle t the norm is k(t) * rho (k = 1,
 * |cos|+|sin|, max(|cos|,|sin|)), so the radial integral has a closed form:
 *   int_{r0}^{r1} exp(-e k rho) rho drho = (H(e k r0) - H(e k r1)) / (e k)^2,
 *   H(u) = (1 + u) exp(-u),
 * and the region integral is c / k(t)^2 * (H(.) - H(.)) integrated over t by
 * adaptive Gauss–Kronrod, with c = 1/(2 pi), 1/4, 1/8. r0(t), r1(t) are the
 * ray's entry and exit distances; t is split at every corner angle, the axes
 * and the diagonals, so each piece is analytic (one active side, no kink of
 * k). The origin cell (which contains the cusp of the density) needs nothing
 * special: its r0 is 0. H(a) - H(b) is evaluated without cancellation as
 * exp(-a) * (a (1 - e^-delta) + q(delta)), q(delta) = 1 - (1 + delta) e^-delta.
 */

/** q(d) = 1 - (1 + d) e^-d >= 0, accurate for small d (series) and large d. */
function q(d: number): number {
  if (d === Infinity) return 1;
  if (d < 0.1) {
    // sum_{k>=2} (-1)^k d^k (k-1)/k!
    let term = d; // d^k / k! for k = 1
    let s = 0;
    for (let k = 2; k <= 14; k++) {
      term *= d / k;
      s += (k % 2 === 0 ? 1 : -1) * (k - 1) * term;
    }
    return s;
  }
  return -Math.expm1(-d) - d * Math.exp(-d);
}

/** H(a) - H(b) for 0 <= a <= b <= Infinity, H(u) = (1 + u) e^-u, without cancellation. */
function hDiff(a: number, b: number): number {
  if (!(b > a)) return 0;
  const ea = Math.exp(-a);
  if (ea === 0) return 0;
  if (b === Infinity) return (1 + a) * ea;
  const d = b - a;
  return ea * (a * -Math.expm1(-d) + q(d));
}

const TWO_PI = 2 * Math.PI;

function normFactor(metric: GridMetric): { c: number; k: (cs: number, sn: number) => number } {
  if (metric === 'manhattan') return { c: 1 / 4, k: (cs, sn) => Math.abs(cs) + Math.abs(sn) };
  if (metric === 'chebyshev') return { c: 1 / 8, k: (cs, sn) => Math.max(Math.abs(cs), Math.abs(sn)) };
  return { c: 1 / TWO_PI, k: () => 1 };
}

/** The norm of (x, y) for a grid metric. */
function planarNorm(metric: GridMetric, x: number, y: number): number {
  const a = Math.abs(x);
  const b = Math.abs(y);
  if (metric === 'manhattan') return a + b;
  if (metric === 'chebyshev') return Math.max(a, b);
  return Math.hypot(a, b);
}

/** Beyond this e * (smallest norm over the region) the probability underflows (e^-745 is the last subnormal). */
const UNDERFLOW_EXPONENT = 745;

interface RegionOptions {
  relTol?: number;
}

/**
 * Narrows bounds = [lo, hi] of the distance rho along a ray to where v0 <= rho * dir <= v1, for one axis of
 * the rectangle with the ray's direction cosine dir on it (hi = -1 when a ray parallel to the axis misses the slab).
 */
function clipRayToSlab(bounds: Float64Array, dir: number, v0: number, v1: number): void {
  if (dir > 0) {
    if (v0 > -Infinity) bounds[0] = Math.max(bounds[0]!, v0 / dir);
    if (v1 < Infinity) bounds[1] = Math.min(bounds[1]!, v1 / dir);
  } else if (dir < 0) {
    if (v0 > -Infinity) bounds[1] = Math.min(bounds[1]!, v0 / dir);
    if (v1 < Infinity) bounds[0] = Math.max(bounds[0]!, v1 / dir);
  } else if (v0 > 0 || v1 < 0) bounds[1] = -1;
}

export function normLaplaceRegion(
  metric: GridMetric,
  e: number,
  x0: number,
  x1: number,
  y0: number,
  y1: number,
  opts: RegionOptions = {},
): number {
  if (!(x1 > x0) || !(y1 > y0)) return 0;
  // The closest point of the rectangle to the origin minimises every monotone norm.
  const cx = Math.min(Math.max(0, x0), x1);
  const cy = Math.min(Math.max(0, y0), y1);
  if (e * planarNorm(metric, cx, cy) > UNDERFLOW_EXPONENT) return 0;
  if (x0 === -Infinity && x1 === Infinity && y0 === -Infinity && y1 === Infinity) return 1;
  const { c, k } = normFactor(metric);

  // Entry and exit distances of the ray of angle t (bounds[0] >= bounds[1] when it misses).
  const bounds = new Float64Array(2);
  const ray = (cs: number, sn: number): void => {
    bounds[0] = 0;
    bounds[1] = Infinity;
    // rho * cs >= x0, rho * cs <= x1, rho * sn >= y0, rho * sn <= y1
    clipRayToSlab(bounds, cs, x0, x1);
    clipRayToSlab(bounds, sn, y0, y1);
  };
  const integrand = (t: number): number => {
    const cs = Math.cos(t);
    const sn = Math.sin(t);
    ray(cs, sn);
    const lo = bounds[0]!;
    const hi = bounds[1]!;
    if (!(hi > lo)) return 0;
    const kk = k(cs, sn);
    return (c / (kk * kk)) * hDiff(e * kk * lo, e * kk * hi);
  };
  const hits = (t: number): boolean => {
    ray(Math.cos(t), Math.sin(t));
    return bounds[1]! > bounds[0]!;
  };

  // Breakpoints: axes, diagonals, and the angles of the finite corners.
  const brk: number[] = [
    -Math.PI,
    -0.75 * Math.PI,
    -0.5 * Math.PI,
    -0.25 * Math.PI,
    0,
    0.25 * Math.PI,
    0.5 * Math.PI,
    0.75 * Math.PI,
    Math.PI,
  ];
  for (const x of [x0, x1])
    for (const y of [y0, y1]) if (Number.isFinite(x) && Number.isFinite(y)) brk.push(Math.atan2(y, x));
  brk.sort((a, b) => a - b);
  const relTol = opts.relTol ?? 1e-12;
  let total = 0;
  for (let i = 0; i + 1 < brk.length; i++) {
    const a = brk[i]!;
    const b = brk[i + 1]!;
    if (!(b - a > 1e-15)) continue;
    if (!hits(0.5 * (a + b))) continue; // outside the region's angular span
    total += integrateGK(integrand, a, b, relTol).value;
  }
  return total;
}
