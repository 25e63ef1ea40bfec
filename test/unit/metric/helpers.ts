import { expect } from 'vitest';
import { MechError, type MechErrorCode } from '../../../src-shared/errors';
import type { Domain } from '../../../src-worker/metric/domain';
import { weightedAllPairs } from '../../../src-worker/metric/shortest-paths';

/** Run fn and return the MechError it throws (fails if it does not throw one with this code). */
export function mechError(fn: () => unknown, code: MechErrorCode): MechError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(MechError);
    expect((e as MechError).code).toBe(code);
    return e as MechError;
  }
  throw new Error('expected a MechError, nothing was thrown');
}

/** The shortest-path metric of domain.structure.edges equals domain.distance on every pair. */
export function expectEdgesReproduceMetric(d: Domain): void {
  const edges = d.structure.edges;
  expect(edges).toBeDefined();
  for (let k = 0; k < edges!.from.length; k++) expect(edges!.from[k]!).toBeLessThan(edges!.to[k]!);
  const sp = weightedAllPairs(d.n, edges!);
  for (let i = 0; i < d.n; i++)
    for (let j = 0; j < d.n; j++) {
      const want = d.distance(i, j);
      const got = sp[i * d.n + j]!;
      if (want === Infinity) expect(got).toBe(Infinity);
      else expect(got).toBeCloseTo(want, 12);
    }
}

/** Every point sees ballSizes.count[k] points at distance radius[k], and nothing else. */
export function expectBallSizes(d: Domain): void {
  const b = d.structure.ballSizes!;
  expect(b).toBeDefined();
  for (let i = 0; i < d.n; i++) {
    const counts = new Map<number, number>();
    for (let j = 0; j < d.n; j++) {
      const r = d.distance(i, j);
      counts.set(r, (counts.get(r) ?? 0) + 1);
    }
    expect(counts.size).toBe(b.radius.length);
    b.radius.forEach((r, k) => expect(counts.get(r)).toBe(b.count[k]));
  }
}

/** Lattice offsets reproduce the metric: d(i,j) = offsetDistance(coords(j) - coords(i)). */
export function expectLattice(d: Domain): void {
  const lat = d.structure.lattice!;
  expect(lat).toBeDefined();
  expect(lat.shape.reduce((a, b) => a * b, 1)).toBe(d.n);
  const coords = (i: number) => {
    const c = new Array<number>(lat.shape.length);
    for (let a = lat.shape.length - 1; a >= 0; a--) {
      c[a] = i % lat.shape[a]!;
      i = Math.floor(i / lat.shape[a]!);
    }
    return c;
  };
  for (let i = 0; i < d.n; i++) {
    const ci = coords(i);
    for (let j = 0; j < d.n; j++) {
      const cj = coords(j);
      expect(lat.offsetDistance(cj.map((x, a) => x - ci[a]!))).toBeCloseTo(d.distance(i, j), 12);
    }
  }
}

/** Product structure: d = sum (or max) of the factor distances of the base-factor.n digits. */
export function expectProduct(d: Domain): void {
  const p = d.structure.product!;
  expect(p).toBeDefined();
  const w = p.factor.n;
  expect(w ** p.power).toBe(d.n);
  for (let i = 0; i < d.n; i++)
    for (let j = 0; j < d.n; j++) {
      let s = 0;
      let a = i;
      let b = j;
      for (let k = 0; k < p.power; k++) {
        const x = p.factor.distance(a % w, b % w);
        s = p.combine === 'sum' ? s + x : Math.max(s, x);
        a = Math.floor(a / w);
        b = Math.floor(b / w);
      }
      expect(s).toBeCloseTo(d.distance(i, j), 12);
    }
}
