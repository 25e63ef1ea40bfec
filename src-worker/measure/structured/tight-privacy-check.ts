import { assertEpsilon } from '../../../src-shared/errors';
import { edgesIfAvailable } from '../../metric/shortest-paths';
import { latticeKernel } from '../../phi/lattice-phi';
import { diameter, type Domain } from '../../metric/domain';
import type { ImplicitTightChannel } from '../../mechanism/implicit/implicit-tight-channel';
import { REL_TOL } from '../../../src-shared/numeric/tolerance';

/**
 * Privacy check (SPEC §4) of the tight-constraints mechanism using its
 * structure instead of n^2 x n ratios. For C[x][y] = Phi[x][y] z[y]:
 *   z[y] = 0: the column is 0 for every x, so 0/0 — no constraint;
 *   z[y] > 0: C[x][y] / C[x'][y] = exp(eps_m (d(x',y) - d(x,y))),
 * and d(x',y) - d(x,y) <= d(x,x') (triangle inequality), with equality at
 * y = x. Hence the effective eps is exactly the mechanism's eps_m (n >= 2,
 * some z[y] > 0: always, since Phi z = 1).
 *
 * The triangle-inequality step is then verified numerically, cheaply:
 *  - lattices: for each step direction e (the graph edges' offsets when the
 *    metric is a graph metric — checking edges suffices, SPEC §4 — else all
 *    offsets with |e|_inf <= 2), the largest (D(delta - e) - D(delta)) / D(e)
 *    over offsets delta with |delta_i| <= min(n_i - 1, window);
 *  - products with an additive metric: the same ratio over all triples of
 *    the (small) factor: a pair differing in several coordinates adds up
 *    per-coordinate numerators, each bounded by its own distance;
 *  - other domains: all triples (n <= 150), else the triples among the
 *    first 150 points (the domain's metric was validated on entry).
 *
 * The argument is about exact values; the rows the channel produces are
 * doubles. It carries over only while every positive entry
 * e^(-eps_m d(x,y)) z[y] stays a normal double (>= 2^-1022): an entry that
 * underflows to 0 next to a positive one is an infinite ratio, and subnormal
 * entries lose the precision the 1e-9 tolerance needs. So the check also
 * bounds the smallest entry, ln(min positive z) - eps_m * D with D an upper
 * bound of the diameter; when that is below ln 2^-1022 it does not vouch
 * (passes = false, representable = false) and the caller checks the rows themselves.
 */
export interface StructuredPrivacyCheck {
  epsilon: number;
  /** eps_m times the largest verified ratio exponent (1 when the metric is a metric). */
  effectiveEpsilon: number;
  passes: boolean;
  method: 'triangle-inequality';
  /** Triples (or direction/offset pairs) evaluated in the numerical verification. */
  verified: number;
  /** Largest (d(x',y) - d(x,y)) / d(x,x') found (1 expected). */
  maxRatio: number;
  /** What the numerical verification covered (the triangle inequality of the validated metric covers the rest). */
  coverage: TightCheckCoverage;
  /** Every positive entry is a normal double (>= 2^-1022), as the structural argument needs. */
  representable: boolean;
  /** A lower bound of ln(smallest positive entry): ln(min positive z) - eps_m * (an upper bound of the diameter). */
  lnMinEntry: number;
}

/**
 * What the tight-constraints check verified numerically: on a lattice, the edge directions (a graph metric) or the
 * steps |e| <= 2 against every offset within `window`; on a product, all factor triples; else all triples among the
 * first `checked` of `n` points.
 */
type TightCheckCoverage =
  | { kind: 'lattice'; graphMetric: boolean; directions: number; window: number }
  | { kind: 'factor-triples'; factors: number; size: number }
  | { kind: 'triples'; checked: number; n: number };

/** ln 2^-1022: entries below the smallest normal double are not trusted by the structural argument. */
const LN_MIN_NORMAL = -1022 * Math.LN2;

/**
 * An upper bound of the largest finite distance: 1-D/2-D lattices by the
 * triangle inequality along the axes (O(n1 + n2)), other domains by
 * metric/diameter (from ball sizes or product factors when the domain has
 * them; O(n^2) only for small dense domains).
 */
function diameterBound(domain: Domain): number {
  const s = domain.structure;
  if (s.lattice && s.lattice.shape.length <= 2 && !s.product && !s.ballSizes) {
    const { shape, offset } = latticeKernel(domain, 1);
    const n1 = shape.length === 2 ? shape[0]! : 1;
    const n2 = shape.length === 2 ? shape[1]! : shape[0]!;
    let m1 = 0;
    let m2 = 0;
    for (let a = 0; a < n1; a++) m1 = Math.max(m1, offset(a, 0));
    for (let b = 0; b < n2; b++) m2 = Math.max(m2, offset(0, b));
    return m1 + m2;
  }
  return diameter(domain);
}

export function checkTightPrivacy(
  channel: ImplicitTightChannel,
  eps: number,
  opts: { window?: number } = {},
): StructuredPrivacyCheck {
  assertEpsilon(eps);
  const { domain, op } = channel;
  const epsM = op.eps;
  const window = opts.window ?? 64;
  let maxRatio = 0;
  let verified = 0;
  const consider = (num: number, den: number) => {
    if (!(den > 0) || !Number.isFinite(den)) return;
    verified++;
    const r = num / den;
    if (r > maxRatio) maxRatio = r;
  };
  let coverage: TightCheckCoverage;
  const lat = domain.structure.lattice;
  const prod = domain.structure.product;
  if (op.method === 'lattice' && lat) {
    const { shape, offset } = latticeKernel(domain, epsM);
    const n1 = shape.length === 2 ? shape[0]! : 1;
    const n2 = shape.length === 2 ? shape[1]! : shape[0]!;
    const dirs: [number, number][] = [];
    const edges = edgesIfAvailable(domain);
    if (edges) {
      const seen = new Set<string>();
      for (let k = 0; k < edges.from.length; k++) {
        const a = edges.from[k]!;
        const b = edges.to[k]!;
        let d1 = Math.floor(b / n2) - Math.floor(a / n2);
        let d2 = (b % n2) - (a % n2);
        if (lat.periodic) {
          // shortest representative of the step on the torus
          if (shape.length === 1 && Math.abs(d2) > n2 / 2) d2 -= Math.sign(d2) * n2;
          if (shape.length === 2 && Math.abs(d1) > n1 / 2) d1 -= Math.sign(d1) * n1;
        }
        const key = `${d1},${d2}`;
        if (!seen.has(key)) {
          seen.add(key);
          dirs.push([d1, d2]);
        }
      }
      coverage = { kind: 'lattice', graphMetric: true, directions: dirs.length, window };
    } else {
      for (let a = -2; a <= 2; a++)
        for (let b = -2; b <= 2; b++) if ((a !== 0 || b !== 0) && (n1 > 1 || a === 0)) dirs.push([a, b]);
      coverage = { kind: 'lattice', graphMetric: false, directions: dirs.length, window };
    }
    const w1 = Math.min(n1 - 1, window);
    const w2 = Math.min(n2 - 1, window);
    for (const [e1, e2] of dirs) {
      const de = offset(e1, e2);
      for (let a = -w1; a <= w1; a++)
        for (let b = -w2; b <= w2; b++) consider(offset(a - e1, b - e2) - offset(a, b), de);
    }
  } else if (op.method === 'kronecker' && prod) {
    const f = prod.factor;
    const v = f.n;
    for (let a = 0; a < v; a++)
      for (let b = 0; b < v; b++)
        for (let c = 0; c < v; c++) if (a !== b) consider(f.distance(b, c) - f.distance(a, c), f.distance(a, b));
    coverage = { kind: 'factor-triples', factors: prod.power, size: v };
  } else {
    const n = domain.n;
    const m = Math.min(n, 150);
    for (let a = 0; a < m; a++)
      for (let b = 0; b < m; b++)
        if (a !== b)
          for (let y = 0; y < m; y++) consider(domain.distance(b, y) - domain.distance(a, y), domain.distance(a, b));
    coverage = { kind: 'triples', checked: m, n };
  }
  const effectiveEpsilon = epsM * maxRatio;
  let zMin = Infinity;
  for (const v of channel.z) if (v > 0 && v < zMin) zMin = v;
  const lnMinEntry = Math.log(zMin) - epsM * diameterBound(domain);
  const representable = lnMinEntry >= LN_MIN_NORMAL;
  return {
    epsilon: eps,
    effectiveEpsilon,
    passes: representable && effectiveEpsilon <= eps * (1 + REL_TOL),
    method: 'triangle-inequality',
    verified,
    maxRatio,
    coverage,
    representable,
    lnMinEntry,
  };
}
