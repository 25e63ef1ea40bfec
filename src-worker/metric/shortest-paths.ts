import { MechError } from '../../src-shared/errors';
import { MAX_DENSE_ENTRIES, assertDenseFits } from '../linalg/matrix';
import { MinHeap } from '../numeric/min-heap';
import type { Domain, WeightedEdges } from './domain';

/** Entry of bfsAllPairs for nodes in different components (distance +Infinity). */
export const UNREACHABLE = -1;

/** BFS distance entry as a metric value (UNREACHABLE -> Infinity). */
export function hopDistance(d: number): number {
  return d === UNREACHABLE ? Infinity : d;
}

/**
 * All-pairs shortest-path lengths of an unweighted undirected graph on n
 * nodes by one BFS per node (SPEC §1, graph domain): O(n (n + m)) time,
 * one dense n x n Int32Array (half the memory of doubles), UNREACHABLE (-1)
 * between components. Refuses (MechError 'too-large') a matrix over the
 * dense-memory limit.
 */
export function bfsAllPairs(n: number, from: Int32Array, to: Int32Array, what = 'graph distance matrix'): Int32Array {
  assertDenseFits(n, n, what);
  const adj = adjacency(n, from, to);
  const dist = new Int32Array(n * n).fill(UNREACHABLE);
  const queue = new Int32Array(n);
  for (let s = 0; s < n; s++) {
    const base = s * n;
    dist[base + s] = 0;
    let head = 0;
    let tail = 0;
    queue[tail++] = s;
    while (head < tail) {
      const x = queue[head++]!;
      const dx = dist[base + x]! + 1;
      for (let k = adj.start[x]!; k < adj.start[x + 1]!; k++) {
        const y = adj.next[k]!;
        if (dist[base + y] === UNREACHABLE) {
          dist[base + y] = dx;
          queue[tail++] = y;
        }
      }
    }
  }
  return dist;
}

/**
 * All-pairs shortest paths of a weighted undirected graph (Dijkstra from
 * every node with a binary heap). Used to check that a domain's `edges`
 * reproduce its metric and to compute weighted graph metrics.
 */
export function weightedAllPairs(n: number, edges: WeightedEdges, what = 'shortest-path matrix'): Float64Array {
  assertDenseFits(n, n, what);
  const adj = adjacency(n, edges.from, edges.to, edges.weight);
  const dist = new Float64Array(n * n).fill(Infinity);
  const heap = new MinHeap(edges.from.length * 2 + n + 1);
  for (let s = 0; s < n; s++) {
    const base = s * n;
    heap.clear();
    dist[base + s] = 0;
    heap.push(0, s);
    while (heap.size > 0) {
      const key0 = heap.topKey();
      const x = heap.pop();
      if (key0 > dist[base + x]!) continue;
      for (let k = adj.start[x]!; k < adj.start[x + 1]!; k++) {
        const y = adj.next[k]!;
        const d = key0 + adj.weight![k]!;
        if (d < dist[base + y]!) {
          dist[base + y] = d;
          heap.push(d, y);
        }
      }
    }
  }
  return dist;
}

/** Compressed (CSR) adjacency of an undirected edge list. */
export function adjacency(
  n: number,
  from: Int32Array,
  to: Int32Array,
  weight?: Float64Array,
): { start: Int32Array; next: Int32Array; weight?: Float64Array } {
  const m = from.length;
  const start = new Int32Array(n + 1);
  for (let k = 0; k < m; k++) {
    start[from[k]! + 1]!++;
    start[to[k]! + 1]!++;
  }
  for (let i = 0; i < n; i++) start[i + 1]! += start[i]!;
  const fill = start.slice(0, n);
  const next = new Int32Array(2 * m);
  const w = weight ? new Float64Array(2 * m) : undefined;
  for (let k = 0; k < m; k++) {
    const a = from[k]!;
    const b = to[k]!;
    const ia = fill[a]!++;
    const ib = fill[b]!++;
    next[ia] = b;
    next[ib] = a;
    if (w) {
      w[ia] = weight![k]!;
      w[ib] = weight![k]!;
    }
  }
  return w ? { start, next, weight: w } : { start, next };
}

/** Refuse (MechError 'too-large') an edge list of m edges over the dense-memory limit (entries of 8 bytes). */
export function assertEdgeListFits(m: number, what: string, limit = MAX_DENSE_ENTRIES): void {
  if (!(m <= limit)) {
    throw new MechError(
      'too-large',
      `${what} would have ${m} edges, over the limit of ${limit}; use the metric directly or a smaller domain`,
      {
        edges: m,
        limit,
      },
    );
  }
}

/**
 * The domain's graph edges when it has them and they fit the edge-list limit,
 * otherwise undefined. Edge lists of large domains (clique, grid, Hamming
 * cube, V^u, answer graphs) are built on first access and refused with
 * MechError 'too-large' when too big; code that merely *prefers* the edges
 * (choosing a method, counting pairs) uses this and falls back to the metric.
 */
export function edgesIfAvailable(domain: Domain): WeightedEdges | undefined {
  if (!('edges' in domain.structure)) return undefined;
  try {
    return domain.structure.edges;
  } catch (e) {
    if (e instanceof MechError && e.code === 'too-large') return undefined;
    throw e;
  }
}
