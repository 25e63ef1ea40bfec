import { describe, expect, it } from 'vitest';
import { bfsAllPairs, weightedAllPairs, UNREACHABLE } from '../../../../src-worker/metric/shortest-paths';
import type { WeightedEdges } from '../../../../src-worker/metric/domain';
import { floydWarshall, randomEdges } from '../../support/metric-helpers';

function randomGraph(n: number, m: number, seed: number): WeightedEdges {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  return randomEdges(n, m, rnd, () => 0.5 + Math.floor(rnd() * 4));
}

describe('all-pairs shortest paths', () => {
  it.each([
    { n: 30, m: 25, seed: 1 },
    { n: 40, m: 80, seed: 2 },
    { n: 12, m: 5, seed: 3 },
  ])(
    'BFS and Dijkstra agree with Floyd–Warshall on random sparse graphs (several components): $n nodes, $m edges, seed $seed',
    ({ n, m, seed }) => {
      const g = randomGraph(n, m, seed);
      const bfs = bfsAllPairs(n, g.from, g.to);
      const refUnit = floydWarshall(n, g, true);
      for (let i = 0; i < n * n; i++) expect(bfs[i] === UNREACHABLE ? Infinity : bfs[i]).toBe(refUnit[i]);
      const dij = weightedAllPairs(n, g);
      const ref = floydWarshall(n, g, false);
      for (let i = 0; i < n * n; i++) expect(dij[i]).toBe(ref[i]);
      // fewer than n-1 edges: the graph has several components, so the Infinity path is exercised
      if (m < n - 1) expect(Array.from(bfs).filter((x) => x === UNREACHABLE).length).toBeGreaterThan(0);
    },
  );
});
