import { describe, expect, it } from 'vitest';
import { factsOf } from '../../../../src-worker/mechanism/facts';
import { planarLaplace } from '../../../../src-worker/mechanism/planar-laplace';
import { laplace1d } from '../../../../src-worker/mechanism/planar/offset-tables';
import { normLaplaceRegion } from '../../../../src-worker/mechanism/planar/norm-laplace-region';
import type { GridMetric } from '../../../../src-worker/metric/domain';
import { gridDomain } from '../../../../src-worker/metric/grid';
import { lineDomain } from '../../../../src-worker/metric/line';
import {
  maxRowSumError,
  mechErrorOf,
  neumaierSum,
  rowsOf,
  expectTightlyPrivate,
} from '../../support/mechanism-helpers';

// ---------------------------------------------------------------------------
// An INDEPENDENT quadrature (Cartesian, not polar): Gauss–Legendre tensor
// rules on 1/4-cell panels aligned with the axes, a Duffy transform for the
// panels touching the origin (the cusp of the density), and truncation of
// unbounded regions where e * distance > 45 (e^-45 ~ 3e-20).
// ---------------------------------------------------------------------------
function gaussLegendre(n: number): { x: Float64Array; w: Float64Array } {
  const x = new Float64Array(n);
  const w = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let z = Math.cos((Math.PI * (i + 0.75)) / (n + 0.5));
    for (let it = 0; it < 100; it++) {
      let p0 = 1;
      let p1 = z;
      for (let k = 2; k <= n; k++) [p0, p1] = [p1, ((2 * k - 1) * z * p1 - (k - 1) * p0) / k];
      const dp = (n * (z * p1 - p0)) / (z * z - 1);
      const dz = p1 / dp;
      z -= dz;
      if (Math.abs(dz) < 1e-16) {
        x[i] = z;
        w[i] = 2 / ((1 - z * z) * dp * dp);
        break;
      }
    }
  }
  return { x, w };
}
const GL = gaussLegendre(14);
const GLD = gaussLegendre(24);

function norm(metric: GridMetric, x: number, y: number): number {
  const a = Math.abs(x);
  const b = Math.abs(y);
  return metric === 'manhattan' ? a + b : metric === 'chebyshev' ? Math.max(a, b) : Math.hypot(a, b);
}
function constant(metric: GridMetric, e: number): number {
  return metric === 'manhattan' ? (e * e) / 4 : metric === 'chebyshev' ? (e * e) / 8 : (e * e) / (2 * Math.PI);
}
/** Tensor GL on a rectangle not containing the origin in its interior. */
function panel(metric: GridMetric, e: number, x0: number, x1: number, y0: number, y1: number): number {
  const cx = (x0 + x1) / 2;
  const hx = (x1 - x0) / 2;
  const cy = (y0 + y1) / 2;
  const hy = (y1 - y0) / 2;
  if (x0 <= 0 && x1 >= 0 && y0 <= 0 && y1 >= 0) {
    // corner at the origin (panels are split at the axes): Duffy on the two triangles
    const sx = x0 < 0 ? x0 : x1; // far x
    const sy = y0 < 0 ? y0 : y1;
    let s = 0;
    for (let i = 0; i < GLD.x.length; i++) {
      const u = (GLD.x[i]! + 1) / 2;
      for (let j = 0; j < GLD.x.length; j++) {
        const v = (GLD.x[j]! + 1) / 2;
        const w = (GLD.w[i]! * GLD.w[j]!) / 4;
        // triangle O,(sx,0),(sx,sy): x = sx u, y = sy u v ; other: x = sx u v, y = sy u ; |J| = |sx sy| u
        s +=
          w * u * (Math.exp(-e * norm(metric, sx * u, sy * u * v)) + Math.exp(-e * norm(metric, sx * u * v, sy * u)));
      }
    }
    return constant(metric, e) * Math.abs(sx * sy) * s;
  }
  let s = 0;
  for (let i = 0; i < GL.x.length; i++)
    for (let j = 0; j < GL.x.length; j++)
      s += GL.w[i]! * GL.w[j]! * Math.exp(-e * norm(metric, cx + hx * GL.x[i]!, cy + hy * GL.x[j]!));
  return constant(metric, e) * hx * hy * s;
}
function cartesianRegion(metric: GridMetric, e: number, x0: number, x1: number, y0: number, y1: number): number {
  const far = 45 / e + 2;
  const X0 = Math.max(x0, -far);
  const X1 = Math.min(x1, far);
  const Y0 = Math.max(y0, -far);
  const Y1 = Math.min(y1, far);
  // Panels of 1/4 near the origin (|t| <= 2), of 1 beyond (analytic there, far from the cusp).
  const cuts = (a: number, b: number): number[] => {
    const c: number[] = [a];
    let t = a;
    for (;;) {
      const h = Math.abs(t) < 2 - 1e-12 || Math.abs(t + 0.25) < 2 - 1e-12 ? 0.25 : 1;
      const nxt = Math.floor(t / h + 1e-9) * h + h;
      if (nxt >= b - 1e-12) break;
      c.push(nxt);
      t = nxt;
    }
    c.push(b);
    return c;
  };
  const xs = cuts(X0, X1);
  const ys = cuts(Y0, Y1);
  let s = 0;
  for (let i = 0; i + 1 < xs.length; i++)
    for (let j = 0; j + 1 < ys.length; j++) s += panel(metric, e, xs[i]!, xs[i + 1]!, ys[j]!, ys[j + 1]!);
  return s;
}

/** Row of the snapped mechanism recomputed from first principles with the independent quadrature. */
function independentRow(metric: GridMetric, e: number, R: number, C: number, i: number): number[] {
  const r = Math.floor(i / C);
  const c = i % C;
  const I = Infinity;
  const out: number[] = [];
  for (let q = 0; q < R; q++)
    for (let s = 0; s < C; s++) {
      const x0 = q === 0 ? -I : q - r - 0.5;
      const x1 = q === R - 1 ? I : q - r + 0.5;
      const y0 = s === 0 ? -I : s - c - 0.5;
      const y1 = s === C - 1 ? I : s - c + 0.5;
      out.push(cartesianRegion(metric, e, x0, x1, y0, y1));
    }
  return out;
}

/**
 * Chebyshev regions by a second independent route: the L-inf ball of radius r
 * is a square, so area(R ∩ B_r) = len([x0,x1] ∩ [-r,r]) * len([y0,y1] ∩ [-r,r])
 * and, integrating by parts, P(R) = (e^2/8) e int_0^inf e^(-e r) area(r) dr: a
 * 1-D integral of a piecewise quadratic times an exponential (Gauss–Legendre
 * on pieces of width <= 1/(2e) between the breakpoints |x0|, |x1|, |y0|, |y1|).
 */
function chebyshevByBalls(e: number, x0: number, x1: number, y0: number, y1: number): number {
  const len = (a: number, b: number, r: number) => Math.max(0, Math.min(b, r) - Math.max(a, -r));
  const area = (r: number) => len(x0, x1, r) * len(y0, y1, r);
  const brk = [0, ...[x0, x1, y0, y1].map(Math.abs).filter(Number.isFinite)].sort((a, b) => a - b);
  const end = brk[brk.length - 1]! + 60 / e;
  brk.push(end);
  let s = 0;
  for (let k = 0; k + 1 < brk.length; k++) {
    const a = brk[k]!;
    const b = brk[k + 1]!;
    const pieces = Math.max(1, Math.ceil((b - a) * 2 * e));
    const h = (b - a) / pieces;
    for (let p = 0; p < pieces; p++) {
      const c = a + (p + 0.5) * h;
      for (let i = 0; i < GL.x.length; i++) {
        const r = c + (h / 2) * GL.x[i]!;
        s += (h / 2) * GL.w[i]! * Math.exp(-e * r) * area(r);
      }
    }
  }
  return ((e * e) / 8) * e * s;
}

describe('planar Laplace snapped to a grid (SPEC §2)', () => {
  it('Euclidean cells and border regions agree with an independent Cartesian quadrature to 1e-9 (relative)', () => {
    for (const [R, C, eps, step] of [
      [4, 5, 1, 1],
      [3, 3, 0.8, 2.5], // e = eps * step = 2
    ] as const) {
      const m = planarLaplace(gridDomain(R, C, step), eps);
      const rows = rowsOf(m.channel);
      for (const i of [0, C + 1, R * C - 1]) {
        const ref = independentRow('euclidean', eps * step, R, C, i);
        ref.forEach((v, j) => {
          const got = rows[i]![j]!;
          expect(Math.abs(got - v), `row ${i} col ${j}: ${got} vs ${v}`).toBeLessThanOrEqual(1e-9 * v + 1e-18);
        });
      }
    }
  });

  it('Manhattan: closed-form product agrees with the polar-ray quadrature and the Cartesian one', () => {
    const e = 0.9;
    const oneD = laplace1d(e, 4);
    const I = Infinity;
    // cell (2, 1), tail t=1 x cell 3, quadrant (0, 2), origin cell
    const cases: [number, number, number, number, number][] = [
      [oneD.cell[2]! * oneD.cell[1]!, 1.5, 2.5, 0.5, 1.5],
      [oneD.tail[1]! * oneD.cell[3]!, 0.5, I, 2.5, 3.5],
      [oneD.tail[0]! * oneD.tail[2]!, -0.5, I, 1.5, I],
      [oneD.cell[0]! * oneD.cell[0]!, -0.5, 0.5, -0.5, 0.5],
    ];
    for (const [closed, x0, x1, y0, y1] of cases) {
      const ray = normLaplaceRegion('manhattan', e, x0, x1, y0, y1);
      const cart = cartesianRegion('manhattan', e, x0, x1, y0, y1);
      expect(Math.abs(ray - closed)).toBeLessThanOrEqual(1e-12 * closed);
      expect(Math.abs(cart - closed)).toBeLessThanOrEqual(1e-10 * closed);
    }
    // Chebyshev origin cell: 1 - (1 + e/2) e^(-e/2) (the L-inf ball of radius 1/2)
    const cheb = normLaplaceRegion('chebyshev', e, -0.5, 0.5, -0.5, 0.5);
    expect(Math.abs(cheb - (1 - (1 + e / 2) * Math.exp(-e / 2)))).toBeLessThan(1e-15);
    // Euclidean: the whole plane has mass 1, the disc-free origin cell is below the inscribed... sanity: mass of a half
    // plane is 1/2
    expect(Math.abs(normLaplaceRegion('euclidean', 0.37, 0, I, -I, I) - 0.5)).toBeLessThan(1e-14);
  });

  it('Chebyshev rows agree with an independent ball-area integral to 1e-9 (relative)', () => {
    const R = 4;
    const C = 5;
    const e = 1.1;
    const m = planarLaplace(gridDomain(R, C, 1, 'chebyshev'), e);
    const rows = rowsOf(m.channel);
    const I = Infinity;
    for (const i of [0, 7, 19]) {
      const r = Math.floor(i / C);
      const c = i % C;
      for (let q = 0; q < R; q++)
        for (let t = 0; t < C; t++) {
          const v = chebyshevByBalls(
            e,
            q === 0 ? -I : q - r - 0.5,
            q === R - 1 ? I : q - r + 0.5,
            t === 0 ? -I : t - c - 0.5,
            t === C - 1 ? I : t - c + 0.5,
          );
          const got = rows[i]![q * C + t]!;
          expect(Math.abs(got - v), `row ${i} cell (${q},${t}): ${got} vs ${v}`).toBeLessThanOrEqual(1e-9 * v + 1e-18);
        }
    }
  });

  it.each<[number, number, GridMetric, number, number]>([
    [6, 7, 'euclidean', 0.3, 1],
    [6, 7, 'euclidean', 40, 1],
    [5, 4, 'manhattan', 1.3, 0.5],
    [5, 4, 'chebyshev', 0.7, 1],
    [1, 6, 'euclidean', 1, 1],
    [5, 1, 'chebyshev', 2, 1],
    [1, 1, 'euclidean', 1, 1],
    [2, 2, 'euclidean', 0.01, 1],
  ])(
    'every row sums to 1 within 1e-12 (all metrics, degenerate grids, huge and tiny eps*step): %i x %i %s, eps %f, step %f',
    (R, C, metric, eps, step) => {
      const m = planarLaplace(gridDomain(R, C, step, metric), eps);
      expect(maxRowSumError(m.channel), `${R}x${C} ${metric} eps ${eps}`).toBeLessThan(1e-12);
    },
  );

  it('is eps*d-private and tight: passes at eps, fails at 0.99 eps; step scales eps', () => {
    for (const [R, C, metric, eps, step] of [
      [5, 7, 'euclidean', 1, 1],
      [4, 4, 'euclidean', 0.5, 2],
      [5, 6, 'manhattan', 0.8, 1],
      [5, 5, 'chebyshev', 0.7, 0.5],
    ] as const) {
      const d = gridDomain(R, C, step, metric);
      const m = planarLaplace(d, eps);
      expect(m.guaranteedEpsilon).toBe(eps);
      expect(factsOf(m, 'planar-laplace').epsPerCell).toBe(eps * step);
      const r = expectTightlyPrivate(m.channel, d, eps, { pairs: 'all' });
      expect(r.effectiveEpsilon, `${metric}`).toBeGreaterThan(0.99 * eps);
    }
  });

  it('a 1000 x 1000 Manhattan grid builds without an n x n array and streams rows', () => {
    const m = planarLaplace(gridDomain(1000, 1000, 1, 'manhattan'), 0.05);
    expect(m.channel.rows).toBe(1_000_000);
    const buf = new Float64Array(1_000_000);
    m.channel.row(123_456, buf);
    expect(Math.abs(neumaierSum(buf) - 1)).toBeLessThan(1e-12);
  });

  it('refuses non-grid domains and bad eps', () => {
    const e = mechErrorOf(() => planarLaplace(lineDomain(5), 1));
    expect(e.code).toBe('not-applicable');
    expect(e.message).toMatch(/grid domain/);
    expect(mechErrorOf(() => planarLaplace(gridDomain(2, 2), -1)).code).toBe('invalid-input');
  });
});
