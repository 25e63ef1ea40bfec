import { describe, expect, it } from 'vitest';
import { lineDomain } from '../../../../src-worker/metric/line';
import { ringDomain } from '../../../../src-worker/metric/ring';
import { cliqueDomain } from '../../../../src-worker/metric/clique';
import { gridDomain } from '../../../../src-worker/metric/grid';
import { diameter, distanceMatrix, phiMatrix } from '../../../../src-worker/metric/domain';
import { edgesIfAvailable } from '../../../../src-worker/metric/shortest-paths';
import { minPositiveDistance } from '../../../../src-worker/mechanism/randomised-response';
import { expectBallSizes, expectEdgesReproduceMetric, expectLattice, mechError } from '../../support/metric-helpers';

/**
 * Every distance-k border (points at distance k from x) has the same size c for 1 <= k <= m (the antipode of an even
 * ring: 1).
 */
function expectSingleOrbit(d: ReturnType<typeof ringDomain>): void {
  const s = d.structure.singleOrbit!;
  expect(s).toBeDefined();
  expect(diameter(d)).toBe(s.diameter);
  for (let x = 0; x < d.n; x++)
    for (let k = 1; k <= s.diameter; k++) {
      let c = 0;
      for (let y = 0; y < d.n; y++) if (d.distance(x, y) === k) c++;
      expect(c).toBe(s.evenRing && k === s.diameter ? 1 : s.c);
    }
}

describe('line, ring, clique and grid structure flags', () => {
  it('line: path edges and a non-periodic 1-D lattice', () => {
    for (const n of [1, 2, 6]) {
      const l = lineDomain(n);
      expectEdgesReproduceMetric(l);
      expectLattice(l);
      expect(diameter(l)).toBe(n - 1);
    }
  });

  it('ring: cycle edges, periodic lattice, ball sizes and single orbit (even ring antipode)', () => {
    for (const n of [1, 2, 3, 6, 7]) {
      const r = ringDomain(n);
      expectEdgesReproduceMetric(r);
      expectLattice(r);
      expectBallSizes(r);
      if (n > 1) expectSingleOrbit(r);
    }
    expect(ringDomain(6).structure.singleOrbit).toEqual({ c: 2, diameter: 3, evenRing: true });
    expect(ringDomain(7).structure.singleOrbit).toEqual({ c: 2, diameter: 3, evenRing: false });
  });

  it('clique: complete edges, ball sizes 1 and N-1, single orbit c = N-1', () => {
    for (const n of [1, 2, 5]) {
      const c = cliqueDomain(n);
      expectEdgesReproduceMetric(c);
      expectBallSizes(c);
      if (n > 1) expectSingleOrbit(c as ReturnType<typeof ringDomain>);
    }
    expect(cliqueDomain(3, ['x', 'y', 'z']).label(2)).toBe('z');
  });

  it('grid: lattice for every metric, 4-/8-neighbour edges for manhattan/chebyshev, none for euclidean', () => {
    for (const metric of ['euclidean', 'manhattan', 'chebyshev'] as const) {
      const g = gridDomain(3, 4, 0.5, metric);
      expectLattice(g);
      if (metric === 'euclidean') expect(g.structure.edges).toBeUndefined();
      else expectEdgesReproduceMetric(g);
    }
    const e = gridDomain(3, 4, 2);
    expect(e.distance(0, 11)).toBeCloseTo(2 * Math.hypot(2, 3), 14);
    expect(gridDomain(3, 4, 1, 'chebyshev').structure.edges!.from.length).toBe(17 + 12);
    mechError(() => gridDomain(3, 4, 0), 'invalid-input');
    mechError(() => gridDomain(0, 4), 'invalid-input');
  });

  it('clique and grid edge lists are built on first access, in the reference order, and refused when too large', () => {
    // Reference: the pair list as a plain loop would push it.
    const refGrid = (rows: number, cols: number, diag: boolean): number[][] => {
      const out: number[][] = [];
      for (let r = 0; r < rows; r++)
        for (let c = 0; c < cols; c++) {
          const i = r * cols + c;
          if (c + 1 < cols) out.push([i, i + 1]);
          if (r + 1 < rows) out.push([i, i + cols]);
          if (diag && r + 1 < rows && c + 1 < cols) out.push([i, i + cols + 1]);
          if (diag && r + 1 < rows && c > 0) out.push([i, i + cols - 1]);
        }
      return out;
    };
    for (const [rows, cols] of [
      [1, 1],
      [1, 4],
      [4, 1],
      [2, 3],
      [5, 4],
    ] as const)
      for (const metric of ['manhattan', 'chebyshev'] as const) {
        const e = gridDomain(rows, cols, 0.25, metric).structure.edges!;
        const ref = refGrid(rows, cols, metric === 'chebyshev');
        expect(Array.from(e.from, (f, k) => [f, e.to[k]!])).toEqual(ref);
        expect(Array.from(e.weight)).toEqual(ref.map(() => 0.25));
      }
    const c = cliqueDomain(4).structure.edges!;
    expect(Array.from(c.from, (f, k) => [f, c.to[k]!])).toEqual([
      [0, 1],
      [0, 2],
      [0, 3],
      [1, 2],
      [1, 3],
      [2, 3],
    ]);
    // 20000 labels: N(N-1)/2 = 199,990,000 edges (3.2 GB) is over the edge-list limit.
    const big = cliqueDomain(20000);
    expect('edges' in big.structure).toBe(true);
    expect(big.structure.singleOrbit).toEqual({ c: 19999, diameter: 1, evenRing: false });
    expect(() => big.structure.edges).toThrow(/199990000 edges/);
    mechError(() => big.structure.edges, 'too-large');
    expect(edgesIfAvailable(big)).toBeUndefined();
    expect(edgesIfAvailable(gridDomain(3, 3))).toBeUndefined();
    expect(edgesIfAvailable(lineDomain(3))!.from.length).toBe(2);
    expect(minPositiveDistance(big)).toBe(1);
    const g = gridDomain(2, 2, 1, 'manhattan');
    expect(g.structure.edges).toBe(g.structure.edges); // built once
  });

  it('dense distance and Phi matrices', () => {
    const d = distanceMatrix(ringDomain(4));
    expect(Array.from(d.row(0))).toEqual([0, 1, 2, 1]);
    const p = phiMatrix(lineDomain(3), Math.log(2));
    expect(p.get(0, 2)).toBeCloseTo(0.25, 15);
    expect(p.get(1, 1)).toBe(1);
  });
});

describe('diameter', () => {
  it('uses ball sizes and products on huge implicit domains, and equals brute force on small ones', async () => {
    const { hammingCubeDomain } = await import('../../../../src-worker/metric/hamming-cube');
    const { databaseDomain } = await import('../../../../src-worker/metric/database');
    expect(diameter(hammingCubeDomain(30))).toBe(30);
    expect(diameter(databaseDomain(12, 4, { metric: 'manhattan' }))).toBe(36);
    expect(diameter(databaseDomain(10, 4, { metric: 'max', absent: true }))).toBe(3);
    expect(diameter(databaseDomain(10, 4, { metric: 'normalised', absent: true }))).toBe(10);
    for (const d of [
      databaseDomain(3, 3, { metric: 'manhattan', absent: true }),
      databaseDomain(2, 4, { metric: 'max' }),
      hammingCubeDomain(3),
      ringDomain(7),
    ]) {
      let m = 0;
      for (let i = 0; i < d.n; i++) for (let j = 0; j < d.n; j++) m = Math.max(m, d.distance(i, j));
      expect(diameter(d), d.spec).toBe(m);
    }
  });
});
