import { describe, expect, it } from 'vitest';
import {
  TERNARY_AREA,
  buildTernaryView,
  convexHull,
  cornerPriors,
  fromTernaryXY,
  insideConvexPolygon,
  polygonArea,
  posteriorsUnderPrior,
  toTernaryXY,
} from '../../../../src-worker/explorer/ternary';
import { svgPath } from '../../../../src-shared/explorer/ternary-svg';
import { ternaryViewForDomain } from '../../../../src-worker/explorer/ternary-data';
import { cliqueDomain } from '../../../../src-worker/metric/clique';
import { lineDomain } from '../../../../src-worker/metric/line';
import { DenseChannel } from '../../../../src-worker/mechanism/channel';
import { Matrix } from '../../../../src-worker/linalg/matrix';
import { mechError } from '../../support/mech-error';

const S3 = Math.sqrt(3);
const sortKey = (b: number[]) => b.map((v) => v.toFixed(9)).join(',');

describe('ternary geometry (SPEC §6 simplex view)', () => {
  it('maps barycentric coordinates to the triangle (0,0), (1,0), (1/2, sqrt3/2) and back', () => {
    expect(toTernaryXY([1, 0, 0])).toEqual({ x: 0, y: 0 });
    expect(toTernaryXY([0, 1, 0])).toEqual({ x: 1, y: 0 });
    const top = toTernaryXY([0, 0, 1]);
    expect(top.x).toBeCloseTo(0.5, 15);
    expect(top.y).toBeCloseTo(S3 / 2, 15);
    const c = toTernaryXY([1, 1, 1]); // normalised by the sum
    expect(c.x).toBeCloseTo(0.5, 15);
    expect(c.y).toBeCloseTo(S3 / 6, 15);
    const b = fromTernaryXY(toTernaryXY([0.2, 0.5, 0.3]));
    expect(b[0]).toBeCloseTo(0.2, 14);
    expect(b[1]).toBeCloseTo(0.5, 14);
    expect(b[2]).toBeCloseTo(0.3, 14);
    expect(TERNARY_AREA).toBeCloseTo(S3 / 4, 15);
  });

  it('convex hull drops interior and collinear points, counter-clockwise', () => {
    const h = convexHull([
      { x: 0, y: 0 },
      { x: 2, y: 0 },
      { x: 1, y: 0 }, // collinear
      { x: 2, y: 2 },
      { x: 0, y: 2 },
      { x: 1, y: 1 }, // interior
    ]);
    expect(h.length).toBe(4);
    expect(polygonArea(h)).toBeCloseTo(4, 14);
    expect(insideConvexPolygon({ x: 1, y: 1 }, h)).toBe(true);
    expect(insideConvexPolygon({ x: 2.1, y: 1 }, h)).toBe(false);
    expect(insideConvexPolygon({ x: 2, y: 1 }, h)).toBe(true); // on the boundary
  });

  it('line 3, eps = ln 2: private region area 9/70, corner priors (4,2,1)/7, (1,2,1)/4, (1,2,4)/7, regular region area 9/98', () => {
    const v = ternaryViewForDomain(lineDomain(3), Math.LN2);
    expect(v.privateRegion.length).toBe(4);
    expect(v.privateArea).toBeCloseTo(9 / 70, 12);
    expect(v.cornerPriors.map((c) => sortKey(c.bary)).sort()).toEqual(
      [
        [4 / 7, 2 / 7, 1 / 7],
        [1 / 4, 1 / 2, 1 / 4],
        [1 / 7, 2 / 7, 4 / 7],
      ]
        .map(sortKey)
        .sort(),
    );
    expect(v.regularRegion.length).toBe(3);
    expect(v.regularArea).toBeCloseTo(9 / 98, 12);
    // Corner priors are private posteriors: the regular region lies inside the private one.
    for (const c of v.cornerPriors)
      expect(
        insideConvexPolygon(
          c.xy,
          v.privateRegion.map((p) => p.xy),
          1e-12,
        ),
      ).toBe(true);
    // Uniform prior: regular iff mu Phi = u has mu >= 0 (SPEC §5). By symmetry
    // mu = (a, b, a) with 5a/4 + b/2 = 1/3 and a + b = 1/3: mu = (2/9, 1/9, 2/9).
    const phi = [
      [1, 0.5, 0.25],
      [0.5, 1, 0.5],
      [0.25, 0.5, 1],
    ];
    const mu = solve3(phi, [1 / 3, 1 / 3, 1 / 3]);
    expect(v.uniform.regular).toBe(mu.every((m) => m >= 0));
    expect(mu[0]).toBeCloseTo(2 / 9, 12);
    expect(mu[1]).toBeCloseTo(1 / 9, 12);
    expect(v.uniform.regular).toBe(true);
    // Kernel mechanisms: 2 (SPEC §7); the first one shown attains the multiplicative capacity 5/3.
    expect(v.mechanisms.length).toBe(2);
    expect(v.mechanisms[0]!.name).toMatch(/multiplicative capacity/);
    const first = v.mechanisms[0]!.posteriors;
    expect(first.reduce((a, p) => a + p.outer * Math.max(...p.bary), 0) * 3).toBeCloseTo(5 / 3, 12);
    // Its posteriors are private-region vertices and average to the uniform prior.
    for (const p of first) expect(v.privateRegion.some((r) => sortKey(r.bary) === sortKey(p.bary))).toBe(true);
    for (let x = 0; x < 3; x++) expect(first.reduce((a, p) => a + p.outer * p.bary[x]!, 0)).toBeCloseTo(1 / 3, 12);
  });

  it('clique 3, eps = ln 2: hexagon of area 1/3, corner priors (2,1,1)/4, uniform prior regular', () => {
    const v = ternaryViewForDomain(cliqueDomain(3), Math.LN2);
    expect(v.privateRegion.length).toBe(6);
    // Hexagon with vertices (2,1,1)/4 and (2,2,1)/5 permuted: area by shoelace in barycentric terms.
    expect(v.privateArea).toBeCloseTo(hexArea(), 12);
    expect(v.cornerPriors[0]!.bary[0]).toBeCloseTo(0.5, 14);
    expect(v.regularArea).toBeCloseTo(1 / 16, 12); // triangle of (2,1,1)/4 and permutations: det = 4/64
    expect(v.uniform.regular).toBe(true);
    expect(v.mechanisms.length).toBe(5);
  });

  it('posteriors of randomised response under uniform and skewed priors', () => {
    const e = Math.E;
    const rr = [0, 1, 2].map((x) => [0, 1, 2].map((y) => (x === y ? e : 1) / (e + 2)));
    const post = posteriorsUnderPrior(rr, [1 / 3, 1 / 3, 1 / 3]);
    expect(post.length).toBe(3);
    expect(post[0]!.outer).toBeCloseTo(1 / 3, 14);
    expect(post[0]!.bary[0]).toBeCloseTo(e / (e + 2), 14);
    const skew = posteriorsUnderPrior(rr, [0.5, 0.5, 0]);
    expect(skew[2]!.outer).toBeCloseTo(1 / (e + 2), 14);
    expect(skew[2]!.bary).toEqual([0.5, 0.5, 0]);
    // A zero column is skipped.
    expect(
      posteriorsUnderPrior(
        [
          [1, 0],
          [1, 0],
          [1, 0],
        ],
        [1 / 3, 1 / 3, 1 / 3],
      ).length,
    ).toBe(1);
  });

  it('a given channel is shown instead of the kernels; svg paths are closed', () => {
    const m = new Matrix(3, 2, Float64Array.from([2 / 3, 1 / 3, 1 / 2, 1 / 2, 1 / 3, 2 / 3]));
    const v = ternaryViewForDomain(lineDomain(3), Math.LN2, { channel: new DenseChannel(m), channelName: 'test' });
    expect(v.mechanisms.length).toBe(1);
    expect(v.mechanisms[0]!.posteriors[0]!.bary[0]).toBeCloseTo(2 / 3 / 1.5, 14);
    const path = svgPath(v.regularRegion, 100, 10);
    expect(path.startsWith('M')).toBe(true);
    expect(path.endsWith('Z')).toBe(true);
    expect(path.split('L').length).toBe(3);
  });

  it('bad input raises typed MechErrors', () => {
    const code = (f: () => unknown): string => mechError(f).code;
    expect(code(() => ternaryViewForDomain(lineDomain(4), Math.LN2))).toBe('invalid-input');
    expect(code(() => ternaryViewForDomain(lineDomain(3), 0))).toBe('invalid-input');
    expect(code(() => toTernaryXY([1, 2]))).toBe('invalid-input');
    expect(code(() => toTernaryXY([0, 0, 0]))).toBe('invalid-input');
    expect(code(() => cornerPriors([[1, 2]]))).toBe('invalid-input');
    expect(code(() => buildTernaryView({ labels: ['a', 'b'], eps: 1, vertices: [], phi: [] }))).toBe('invalid-input');
  });
});

function solve3(a: number[][], b: number[]): number[] {
  // mu Phi = b with Phi symmetric: Cramer's rule.
  const det = (m: number[][]) =>
    m[0]![0]! * (m[1]![1]! * m[2]![2]! - m[1]![2]! * m[2]![1]!) -
    m[0]![1]! * (m[1]![0]! * m[2]![2]! - m[1]![2]! * m[2]![0]!) +
    m[0]![2]! * (m[1]![0]! * m[2]![1]! - m[1]![1]! * m[2]![0]!);
  const d = det(a);
  return [0, 1, 2].map((k) => det(a.map((row, i) => row.map((v, j) => (j === k ? b[i]! : v)))) / d);
}

function hexArea(): number {
  // Vertices around the hexagon (barycentric), area fraction = sum of |det| of fan triangles from the centre.
  const vs = [
    [2, 1, 1].map((x) => x / 4),
    [2, 2, 1].map((x) => x / 5),
    [1, 2, 1].map((x) => x / 4),
    [1, 2, 2].map((x) => x / 5),
    [1, 1, 2].map((x) => x / 4),
    [2, 1, 2].map((x) => x / 5),
  ];
  const c = [1 / 3, 1 / 3, 1 / 3];
  let a = 0;
  for (let i = 0; i < 6; i++) {
    const p = vs[i]!;
    const q = vs[(i + 1) % 6]!;
    a += Math.abs(
      c[0]! * (p[1]! * q[2]! - p[2]! * q[1]!) -
        c[1]! * (p[0]! * q[2]! - p[2]! * q[0]!) +
        c[2]! * (p[0]! * q[1]! - p[1]! * q[0]!),
    );
  }
  return a;
}
