import { cliqueDomain } from '../../../src-worker/metric/clique';
import { databaseDomain } from '../../../src-worker/metric/database';
import type { Domain } from '../../../src-worker/metric/domain';
import { gridDomain } from '../../../src-worker/metric/grid';
import { lineDomain } from '../../../src-worker/metric/line';
import { ringDomain } from '../../../src-worker/metric/ring';
import { productDomain } from './channel-fixtures';

/** Product domain V^u (coordinate 0 most significant): one definition, in the measure fixtures. */
export { productDomain } from './channel-fixtures';

export function maxRelDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let err = 0;
  let mx = 0;
  for (let i = 0; i < a.length; i++) {
    err = Math.max(err, Math.abs(a[i]! - b[i]!));
    mx = Math.max(mx, Math.abs(a[i]!), Math.abs(b[i]!));
  }
  return mx === 0 ? err : err / mx;
}

export function lcg(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/**
 * The discrete metric on N points with only its ball sizes (no edge list:
 * cliqueDomain lists N(N-1)/2 edges, 3 GiB at N = 20000).
 */
export function bareClique(N: number): Domain {
  return {
    kind: 'clique',
    spec: `bare-clique:${N}`,
    description: 'discrete metric, ball sizes only',
    n: N,
    label: (i) => `c${i}`,
    distance: (i, j) => (i === j ? 0 : 1),
    structure: { ballSizes: { radius: Float64Array.from([0, 1]), count: Float64Array.from([1, N - 1]) } },
  };
}

/**
 * One domain of each structure the streamed paths specialise on, each with its eps: a square Euclidean grid,
 * an oblong grid as Manhattan and (transposed) as Chebyshev, a line, a ring, a product of cliques, a database.
 * The caller picks the sizes.
 */
export function structuredCases(
  square: number,
  oblong: readonly [number, number],
  line: number,
  ring: number,
): [Domain, number][] {
  const [r, c] = oblong;
  return [
    [gridDomain(square, square, 1, 'euclidean'), 1.2],
    [gridDomain(r, c, 1, 'manhattan'), 0.4],
    [gridDomain(c, r, 1, 'chebyshev'), 2],
    [lineDomain(line), 0.3],
    [ringDomain(ring), 0.3],
    [productDomain(cliqueDomain(3), 4), 0.8],
    [databaseDomain(3, 4, { metric: 'manhattan' }), 0.7],
  ];
}
