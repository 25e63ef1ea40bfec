import { describe, expect, it } from 'vitest';
import { bruteForceVertices } from './brute-force-vertices';
import { privatePosteriorVertices, vertexOf } from '../../../../src-worker/explorer/posterior-vertices';
import { cliqueDomain } from '../../../../src-worker/metric/clique';
import type { Domain } from '../../../../src-worker/metric/domain';
import { gridDomain } from '../../../../src-worker/metric/grid';
import { lineDomain } from '../../../../src-worker/metric/line';
import { ringDomain } from '../../../../src-worker/metric/ring';
import { matrixDomain, randomEuclideanMetric, randomGraphMetric } from '../../support/metrics-for-tests';
import { mechError as err } from '../../support/mech-error';

const LN2 = Math.LN2;

function rowsOf(v: ReturnType<typeof privatePosteriorVertices>): number[][] {
  return Array.from({ length: v.count }, (_, i) => Array.from(vertexOf(v, i)));
}

function expectSameVertexSets(a: number[][], b: number[][]): void {
  expect(a.length).toBe(b.length);
  for (const x of a) {
    const match = b.find((y) => y.every((v, j) => Math.abs(v - x[j]!) <= 1e-9));
    expect(match, `vertex ${x.join(',')} missing from the reference`).toBeDefined();
  }
}

describe('private-posterior vertices (SPEC §6)', () => {
  it('line, eps = ln 2: 2, 4, 8, 16 vertices for N = 2..5 (SPEC §7), exactly', () => {
    const counts = [2, 3, 4, 5].map((N) => {
      const v = privatePosteriorVertices(lineDomain(N), LN2);
      expect(v.arithmetic).toBe('exact');
      return v.count;
    });
    expect(counts).toEqual([2, 4, 8, 16]);
  });

  it('line N: 2^(N-1) vertices up to N = 9; clique n: 2^n - 2 up to n = 8', () => {
    for (let N = 6; N <= 9; N++) expect(privatePosteriorVertices(lineDomain(N), LN2).count).toBe(2 ** (N - 1));
    for (let n = 2; n <= 8; n++) expect(privatePosteriorVertices(cliqueDomain(n), LN2).count).toBe(2 ** n - 2);
  });

  it('line 3 at eps = ln 2 has exactly the vertices (4,2,1)/7, (1,2,4)/7, (2,1,2)/5, (1,2,1)/4', () => {
    const got = rowsOf(privatePosteriorVertices(lineDomain(3), LN2));
    expectSameVertexSets(got, [
      [4 / 7, 2 / 7, 1 / 7],
      [1 / 7, 2 / 7, 4 / 7],
      [2 / 5, 1 / 5, 2 / 5],
      [1 / 4, 2 / 4, 1 / 4],
    ]);
  });

  it('every vertex is a private posterior with n - 1 independent tight constraints', () => {
    const v = privatePosteriorVertices(ringDomain(6), 0.9, { arithmetic: 'float' });
    expect(v.arithmetic).toBe('float');
    expect(v.count).toBe(20);
    for (let i = 0; i < v.count; i++) {
      const x = vertexOf(v, i);
      expect(x.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
      for (let a = 0; a < 6; a++)
        for (let b = 0; b < 6; b++)
          expect(x[a]!).toBeLessThanOrEqual(Math.exp(0.9 * ringDomain(6).distance(a, b)) * x[b]! * (1 + 1e-9));
      expect(v.tight[i]!.length).toBeGreaterThanOrEqual(5);
    }
  });

  const cases: [string, Domain, number][] = [
    ['line 4, ln 2', lineDomain(4), LN2],
    ['line 5, eps 0.4', lineDomain(5), 0.4],
    ['ring 5, ln 2', ringDomain(5), LN2],
    ['ring 4, eps 1.3', ringDomain(4), 1.3],
    ['clique 4, ln 2', cliqueDomain(4), LN2],
    ['clique 5, eps 0.25', cliqueDomain(5), 0.25],
    ['grid 2x2 manhattan, ln 2', gridDomain(2, 2, 1, 'manhattan'), LN2],
    ['grid 2x2 euclidean, eps 0.8', gridDomain(2, 2, 1, 'euclidean'), 0.8],
    ['grid 1x5 chebyshev, ln 3/2', gridDomain(1, 5, 1, 'chebyshev'), Math.log(1.5)],
    ['random graph metric n=5 #1', matrixDomain(randomGraphMetric(5, 1)), LN2],
    ['random graph metric n=5 #2', matrixDomain(randomGraphMetric(5, 2)), LN2],
    ['random graph metric n=4 #3', matrixDomain(randomGraphMetric(4, 3)), 0.5],
    ['random euclidean n=5 #4', matrixDomain(randomEuclideanMetric(5, 4)), 1],
    ['random euclidean n=4 #5', matrixDomain(randomEuclideanMetric(4, 5)), 2.5],
    [
      'disconnected graph (infinite distances)',
      matrixDomain([
        [0, 1, Infinity],
        [1, 0, Infinity],
        [Infinity, Infinity, 0],
      ]),
      LN2,
    ],
  ];
  for (const [name, dom, eps] of cases) {
    it(`double description agrees with brute force: ${name}`, () => {
      const ref = bruteForceVertices(dom, eps);
      const auto = privatePosteriorVertices(dom, eps);
      const flt = privatePosteriorVertices(dom, eps, { arithmetic: 'float' });
      expect(ref.length).toBeGreaterThan(1);
      expectSameVertexSets(rowsOf(auto), ref);
      expectSameVertexSets(rowsOf(flt), ref);
    });
  }

  it('algebraic and combinatorial adjacency tests give the same vertices (exact and float)', () => {
    for (const [dom, eps, expected] of [
      [cliqueDomain(6), LN2, 62],
      [ringDomain(7), LN2, 140],
      [matrixDomain(randomGraphMetric(7, 3)), 0.5, null],
      [matrixDomain(randomEuclideanMetric(6, 3)), 1, 252], // generic: C(2(n-1), n-1)
    ] as const) {
      const a = privatePosteriorVertices(dom, eps, { algebraicAbove: 0 });
      const c = privatePosteriorVertices(dom, eps, { algebraicAbove: Infinity });
      if (expected !== null) expect(a.count).toBe(expected);
      expect(Array.from(a.vertices)).toEqual(Array.from(c.vertices));
    }
  });

  it('uses exact arithmetic when e^(eps d) is rational or the metric has a common unit, float otherwise', () => {
    const base = (d: Domain, eps: number) => {
      const v = privatePosteriorVertices(d, eps);
      return `${v.arithmetic}/${v.exactBase}`;
    };
    expect(base(lineDomain(4), Math.log(1.5))).toBe('exact/rational');
    expect(base(gridDomain(2, 2, 1, 'manhattan'), LN2)).toBe('exact/rational');
    expect(base(lineDomain(4), 0.7)).toBe('exact/rounded');
    const triangle = [
      [0, 2, 5],
      [2, 0, 3],
      [5, 3, 0],
    ];
    expect(base(matrixDomain(triangle), 0.7)).toBe('exact/rounded'); // unit 1
    // the same triangle in quarters (0.5, 1.25, 0.75: exact in binary)
    expect(base(matrixDomain(triangle.map((row) => row.map((d) => d / 4))), 0.7)).toBe('exact/rounded'); // unit 1/4
    expect(base(gridDomain(2, 2), LN2)).toBe('float/null'); // sqrt 2 distances
    expect(privatePosteriorVertices(lineDomain(4), 0.7).count).toBe(8);
    expect(() => privatePosteriorVertices(gridDomain(2, 2), LN2, { arithmetic: 'exact-rounded' })).toThrow(
      /common unit/,
    );
  });

  it('stays exact at large eps * d where float verification loses vertices (line 5: 16 vertices at every eps)', () => {
    for (const eps of [0.05, 0.7, 5, 20, 40]) {
      const v = privatePosteriorVertices(lineDomain(5), eps);
      expect(v.arithmetic).toBe('exact');
      expect(v.count).toBe(16);
      expect(v.warnings).toEqual([]);
    }
    const f = privatePosteriorVertices(lineDomain(5), 40, { arithmetic: 'float' });
    expect(f.count).toBeLessThan(16);
    expect(f.warnings[0]).toMatch(/dropped/);
  });

  it('a disconnected metric gives the corners of the simplex for the isolated point', () => {
    const v = rowsOf(
      privatePosteriorVertices(
        matrixDomain([
          [0, 1, Infinity],
          [1, 0, Infinity],
          [Infinity, Infinity, 0],
        ]),
        LN2,
      ),
    );
    // delta_0 <= 2 delta_1, delta_1 <= 2 delta_0, delta_2 free: {e_2, (2,1,0)/3, (1,2,0)/3}
    expectSameVertexSets(v, [
      [0, 0, 1],
      [2 / 3, 1 / 3, 0],
      [1 / 3, 2 / 3, 0],
    ]);
  });

  it('reports progress per constraint that cuts the cone', () => {
    const seen: { done: number; of: number; rays: number }[] = [];
    const v = privatePosteriorVertices(lineDomain(5), LN2, { onProgress: (p) => seen.push(p) });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((p) => p.of === 25 && p.done <= 25)).toBe(true);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.done).toBeGreaterThan(seen[i - 1]!.done);
    expect(seen.at(-1)!.rays).toBe(v.count);
  });

  it('bad input raises typed MechErrors naming the problem', () => {
    let e = err(() => privatePosteriorVertices(lineDomain(3), 0));
    expect(e.code).toBe('invalid-input');
    expect(e.message).toMatch(/epsilon/);
    e = err(() => privatePosteriorVertices(lineDomain(3), -1));
    expect(e.code).toBe('invalid-input');
    e = err(() => privatePosteriorVertices(lineDomain(3), NaN));
    expect(e.code).toBe('invalid-input');
    e = err(() => privatePosteriorVertices(lineDomain(11), LN2));
    expect(e.code).toBe('too-large');
    expect(e.message).toMatch(/11 points.*n <= 10/);
    const ac = new AbortController();
    ac.abort();
    e = err(() => privatePosteriorVertices(lineDomain(5), LN2, { signal: ac.signal }));
    expect(e.code).toBe('cancelled');
    e = err(() => privatePosteriorVertices(cliqueDomain(8), LN2, { maxRays: 50 }));
    expect(e.code).toBe('too-large');
    expect(e.message).toMatch(/more than 50 extreme rays/);
    e = err(() =>
      privatePosteriorVertices(
        matrixDomain([
          [0, -1],
          [-1, 0],
        ]),
        LN2,
      ),
    );
    expect(e.code).toBe('invalid-input');
    expect(e.message).toMatch(/not a distance/);
  });
});
