import { expect } from 'vitest';
import * as queries from '../../../src-worker/metric/database-queries';
import { domainLabels, type Domain, type WeightedEdges } from '../../../src-worker/metric/domain';
import { inducedAnswerDomain } from '../../../src-worker/metric/induced-answer-domain';
import { weightedAllPairs } from '../../../src-worker/metric/shortest-paths';

// the one MechError catcher of the unit tests, re-exported for the metric tests that take their helpers from here
export { mechError } from './mech-error';

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

/** The structure parts a domain may declare, each with the check that it reproduces the metric. */
const STRUCTURE_CHECKS = {
  edges: expectEdgesReproduceMetric,
  ballSizes: expectBallSizes,
  lattice: expectLattice,
  product: expectProduct,
} as const;

/**
 * The domain declares exactly the structure parts marked true (each reproduces the metric) and none of those marked
 * false; a part left out is not looked at.
 */
export function expectStructure(d: Domain, parts: Partial<Record<keyof typeof STRUCTURE_CHECKS, boolean>>): void {
  for (const [part, declared] of Object.entries(parts) as [keyof typeof STRUCTURE_CHECKS, boolean][])
    if (declared) STRUCTURE_CHECKS[part](d);
    else expect(d.structure[part], `${d.spec} declares no ${part}`).toBeUndefined();
}

/** The database query behind each closed-form answer-domain kind; a spec's parameters are the query's, in order. */
const QUERY_OF_KIND = {
  count: queries.countQuery,
  sum: queries.sumQuery,
  kcount: queries.kCountQuery,
  avg: queries.averageQuery,
  percentile: queries.percentileQuery,
  max: queries.maxQuery,
  min: queries.minQuery,
  argmax: queries.argmaxQuery,
};

/** The enumerable query instance of an answer-domain spec such as 'sum:2,3' or 'percentile:3,2,50'. */
export function queryOfSpec(spec: string): queries.QueryInstance {
  const [kind, params = ''] = spec.split(':');
  const make = QUERY_OF_KIND[kind as keyof typeof QUERY_OF_KIND] as
    ((...p: number[]) => queries.QueryInstance) | undefined;
  if (!make) throw new Error(`no query for the spec ${spec}`);
  return make(...params.split(',').map(Number));
}

/** Closed form equals the enumeration of V^u under the query its spec names: same labels, values and all distances. */
export function expectSameAsEnumeration(closed: Domain, inst: queries.QueryInstance = queryOfSpec(closed.spec)): void {
  const enumerated = inducedAnswerDomain(inst.database, inst.query);
  expect(domainLabels(enumerated), closed.spec).toEqual(domainLabels(closed));
  for (let i = 0; i < closed.n; i++) {
    if (closed.value) expect(enumerated.value!(i), `${closed.spec} value(${i})`).toBeCloseTo(closed.value(i), 14);
    for (let j = 0; j < closed.n; j++)
      expect(enumerated.distance(i, j), `${closed.spec} d(${i}, ${j})`).toBe(closed.distance(i, j));
  }
}

/**
 * Reference all-pairs shortest paths (Floyd-Warshall, O(n^3)) of an undirected edge list; unit: every edge counts 1.
 */
export function floydWarshall(
  n: number,
  g: { from: ArrayLike<number>; to: ArrayLike<number>; weight: ArrayLike<number> },
  unit = false,
): Float64Array {
  const d = new Float64Array(n * n).fill(Infinity);
  for (let i = 0; i < n; i++) d[i * n + i] = 0;
  for (let k = 0; k < g.from.length; k++) {
    const a = g.from[k]!;
    const b = g.to[k]!;
    d[a * n + b] = d[b * n + a] = Math.min(d[a * n + b]!, unit ? 1 : g.weight[k]!);
  }
  for (let k = 0; k < n; k++)
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) d[i * n + j] = Math.min(d[i * n + j]!, d[i * n + k]! + d[k * n + j]!);
  return d;
}

/**
 * m random undirected edges on n nodes drawn with rnd (self-loops dropped, parallel edges kept), from < to, each
 * weighted by weight().
 */
export function randomEdges(n: number, m: number, rnd: () => number, weight: () => number): WeightedEdges {
  const from: number[] = [];
  const to: number[] = [];
  const w: number[] = [];
  for (let k = 0; k < m; k++) {
    const a = Math.floor(rnd() * n);
    const b = Math.floor(rnd() * n);
    if (a === b) continue;
    from.push(Math.min(a, b));
    to.push(Math.max(a, b));
    w.push(weight());
  }
  return { from: Int32Array.from(from), to: Int32Array.from(to), weight: Float64Array.from(w) };
}
